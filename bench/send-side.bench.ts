import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { createApp, createServices, defaultDeps } from '../emulator/src/app.ts';
import { ms, percentile, sampleLatency } from './measure.ts';
import { cpuMsOf, startChild } from './processes.ts';

const MAILTWIN = fileURLToPath(new URL('../bin/mailtwin.js', import.meta.url));
/** The demo fixture's follow-owner key of Acme, which may send as hello@acme.test. */
const DEMO_AUTH = { Authorization: 'Bearer sk-AcmeDemoApp1_FQS5F7JFVVquirfXcIsmhOSMsRqmDcjU' };
const DEMO_SENDER = 'hello@acme.test';

const MIB = 1024 * 1024;

function world() {
  const deps = defaultDeps({ logError: () => {} });
  const services = createServices(deps);
  const owner = services.directory.createOwner({ name: 'Bench' });
  const sender = services.directory.createMailbox({
    address: 'sender@acme.test',
    displayName: 'Sender',
  }).address;
  services.directory.grant(owner.id, sender);
  const { secret } = services.directory.createKey({
    ownerId: owner.id,
    name: 'bench',
    scope: 'follow-owner',
  });
  return {
    deps,
    services,
    app: createApp(deps, services),
    sender,
    auth: { Authorization: `Bearer ${secret}` },
  };
}

/** Sends over HTTP for `seconds`, each request to a distinct external recipient. */
async function sendThroughput(
  origin: string,
  auth: Record<string, string>,
  body: (i: number) => object,
  seconds: number,
) {
  let i = 0;
  const result = await autocannon({
    url: `${origin}/openapi/v1/emails/send`,
    duration: seconds,
    connections: 10,
    requests: [
      {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        setupRequest: (request) => ({ ...request, body: JSON.stringify(body(i++)) }),
      },
    ],
  });
  return {
    rps: result.requests.average,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    accepted: result['2xx'],
  };
}

/**
 * §4.3 and §8 figures: plain-text and Markdown sends over HTTP (MIME built with MailComposer
 * and stored, outbox capture included), a send with 20 attachments of 3 MiB in all, uploads.
 */
export async function benchSendSide(print: (line: string) => void): Promise<void> {
  // Over HTTP against `mailtwin serve` in its own process (demo data), as a client sees it:
  // the load tool never shares the emulator's event loop.
  const controlToken = `mt_${randomBytes(18).toString('base64url')}`;
  const emulator = await startChild(
    process.execPath,
    [MAILTWIN, 'serve', '--port', '{port}', '--no-smtp', '--control-token', controlToken],
    '/openapi/v1/mailboxes',
    DEMO_AUTH,
  );
  try {
    const cpuBefore = cpuMsOf(emulator.pid);
    const text = await sendThroughput(
      emulator.origin,
      DEMO_AUTH,
      (i) => ({
        from: DEMO_SENDER,
        to: `r${i}@external.test`,
        subject: `Order ${i}`,
        text: 'Your order has shipped.',
      }),
      5,
    );
    print(
      `plain-text sends over HTTP to mailtwin serve, a distinct recipient each: ${text.rps.toFixed(0)}/s (target ≥ 1,000/s), p99 ${text.p99} ms, non-2xx ${text.non2xx}`,
    );
    // Steadier than the rate on a shared machine: what each send cost the server's process.
    const cpuPerSend = (cpuMsOf(emulator.pid) - cpuBefore) / text.accepted;
    print(
      `  server CPU per plain-text send (all its threads, GC included): ${cpuPerSend.toFixed(2)} ms, ${(1000 / cpuPerSend).toFixed(0)} sends per CPU-second`,
    );
    const markdown = await sendThroughput(
      emulator.origin,
      DEMO_AUTH,
      (i) => ({
        from: DEMO_SENDER,
        to: `m${i}@external.test`,
        subject: 'Hello {{name}}',
        markdown:
          '# Hi {{name}}\n\nYour **order** [#{{n}}](https://shop.test/o) shipped.\n\n- one\n- two',
        variables: { name: `R${i}`, n: i },
      }),
      5,
    );
    print(
      `Markdown sends with variables over HTTP: ${markdown.rps.toFixed(0)}/s, p99 ${markdown.p99} ms, non-2xx ${markdown.non2xx}`,
    );
    const outbox = await fetch(`${emulator.origin}/_mailtwin/v1/outbox`, {
      headers: { Authorization: `Bearer ${controlToken}` },
    }).then((r) => r.json() as Promise<unknown[]>);
    print(
      `outbox after the runs: ${outbox.length} captured messages for ${text.accepted + markdown.accepted} accepted sends`,
    );
  } finally {
    await emulator.stop();
  }

  const { deps, app, sender, auth } = world();
  const post = async (path: string, init: RequestInit) =>
    Promise.resolve(app.request(`/openapi/v1${path}`, init));
  const ids: string[] = [];
  const per = Math.floor((3 * MIB) / 20);
  for (let i = 0; i < 20; i += 1) {
    const form = new FormData();
    form.append(
      'file',
      new Blob([new Uint8Array(per).map((_, j) => (j * 31 + i) & 255)]),
      `part-${i}.bin`,
    );
    ids.push(
      (
        (await (
          await post('/attachments', { method: 'POST', body: form, headers: auth })
        ).json()) as { id: string }
      ).id,
    );
  }
  const heavy = await sampleLatency(40, async () => {
    const response = await post('/emails/send', {
      method: 'POST',
      headers: { ...auth, 'Content-Type': 'application/json' },
      body: JSON.stringify({
        from: sender,
        to: 'heavy@external.test',
        subject: 'Files',
        text: 'Attached.',
        attachmentIds: ids,
      }),
    });
    if (response.status !== 201)
      throw new Error(`send failed: ${response.status} ${await response.text()}`);
  });
  const size = deps.store.outbox.list()[0]?.size ?? 0;
  print(
    `send with 20 attachments, ${20 * per} bytes raw (${size} bytes encoded), in process: p50 ${ms(percentile(heavy, 50))}, p99 ${ms(percentile(heavy, 99))} (n=40)`,
  );

  const file = new Uint8Array(MIB).fill(1);
  const started = performance.now();
  const count = 50;
  for (let i = 0; i < count; i += 1) {
    const form = new FormData();
    form.append('file', new Blob([file]), `u${i}.bin`);
    await post('/attachments', { method: 'POST', body: form, headers: auth });
  }
  const seconds = (performance.now() - started) / 1000;
  print(
    `uploads of 1 MiB in process: ${(count / seconds).toFixed(0)}/s, ${((count * MIB) / MIB / seconds).toFixed(0)} MiB/s`,
  );
}

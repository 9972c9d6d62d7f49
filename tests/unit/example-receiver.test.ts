// examples/receiver.ts over a real loopback socket, fed deliveries signed by the emulator's own
// signer (signatureFor): 2xx for authentic ones, each email processed once (§6.4), 401 for a bad
// signature (§6.3 rule 4), 400 for a malformed delivery, and the command-line entry point.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { VerifiedWebhook } from 'mailtwin/webhooks';
import { createReceiver, type ReceiverOptions } from '../../examples/receiver.ts';
import { signatureFor } from '../../emulator/src/webhook-delivery/signature.ts';

const SECRET = 'whsec_example_receiver_8Hq2XwVn4Lp9';
const WEBHOOK_ID = 'wh_01JD8Z7R2M3N4P5Q6R7S8T9V0W';
const root = fileURLToPath(new URL('../..', import.meta.url));

const servers: Server[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  await Promise.all(
    servers.splice(0).map((s) => new Promise<void>((resolve) => s.close(() => resolve()))),
  );
});

/** Starts a receiver on 127.0.0.1:0; returns its URL and the deliveries it processed. */
async function start(
  options: Partial<ReceiverOptions> = {},
): Promise<{ url: string; processed: VerifiedWebhook[] }> {
  const processed: VerifiedWebhook[] = [];
  const server = createReceiver({
    secret: SECRET,
    onEvent: (delivery) => {
      processed.push(delivery);
    },
    ...options,
  });
  servers.push(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/hooks/mail`, processed };
}

interface Delivery {
  headers: Record<string, string>;
  body: Buffer;
}

/** A delivery as the emulator sends it (§6.2): headers, and a body signed with signatureFor. */
function delivery(
  data: Record<string, unknown>,
  { event = 'email.received', timestamp = new Date().toISOString(), webhookId = WEBHOOK_ID } = {},
): Delivery {
  const body = Buffer.from(JSON.stringify({ event, webhookId, timestamp, data }), 'utf8');
  return {
    body,
    headers: {
      'Content-Type': 'application/json',
      'X-Service-Event': event,
      'X-Service-Webhook-Id': webhookId,
      'X-Service-Timestamp': timestamp,
      'X-Service-Signature': signatureFor(SECRET, timestamp, body),
    },
  };
}

async function post(url: string, { headers, body }: Delivery): Promise<Response> {
  return fetch(url, { method: 'POST', headers, body });
}

const email = (id: string) => ({ id, mailbox: 'alice@acme.test', subject: 'Invoice for March' });

describe('examples/receiver.ts', () => {
  it('answers 2xx to a signed delivery and hands the verified payload to onEvent', async () => {
    const { url, processed } = await start();
    const sent = delivery(email('e1'));
    const res = await post(url, sent);
    expect(res.status).toBe(200);
    expect(processed).toHaveLength(1);
    expect(processed[0]?.payload).toEqual(JSON.parse(sent.body.toString('utf8')));
  });

  it('processes a duplicate delivery of one email once, and answers the duplicate 200', async () => {
    const { url, processed } = await start();
    const first = delivery(email('e1'));
    expect((await post(url, first)).status).toBe(200);
    const again = await post(url, first);
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual({ received: true, duplicate: true });
    // A retry is signed anew with a later timestamp: still the same email for the same webhook.
    const retry = delivery(email('e1'), { timestamp: new Date(Date.now() + 1000).toISOString() });
    expect((await post(url, retry)).status).toBe(200);
    expect(processed).toHaveLength(1);
  });

  it('processes concurrent duplicates once', async () => {
    const processed: string[] = [];
    const { url } = await start({
      onEvent: async (d) => {
        await new Promise((resolve) => setTimeout(resolve, 50)); // still processing when the rest arrive
        processed.push(d.webhookId);
      },
    });
    const sent = delivery(email('e1'));
    const answers = await Promise.all([post(url, sent), post(url, sent), post(url, sent)]);
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(processed).toHaveLength(1);
  });

  it('keys deduplication on email id and webhook id together', async () => {
    const { url, processed } = await start();
    await post(url, delivery(email('e1')));
    await post(url, delivery(email('e2')));
    await post(url, delivery(email('e1'), { webhookId: 'wh_another' }));
    expect(processed.map((d) => `${d.webhookId}/${String(d.payload.data['id'])}`)).toEqual([
      `${WEBHOOK_ID}/e1`,
      `${WEBHOOK_ID}/e2`,
      'wh_another/e1',
    ]);
  });

  it('answers a tampered body 401 without processing it', async () => {
    const { url, processed } = await start();
    const sent = delivery(email('e1'));
    const tampered = Buffer.from(sent.body.toString('utf8').replace('March', 'April'), 'utf8');
    const res = await post(url, { ...sent, body: tampered });
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ code: 'signature_mismatch' });
    expect(processed).toHaveLength(0);
  });

  it('answers a replayed delivery outside the window 401', async () => {
    const { url, processed } = await start();
    const old = new Date(Date.now() - 10 * 60 * 1000).toISOString();
    const res = await post(url, delivery(email('e1'), { timestamp: old }));
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ code: 'timestamp_outside_tolerance' });
    expect(processed).toHaveLength(0);
  });

  it.each([
    ['a malformed signature', 'X-Service-Signature', 'sha256=abc', 'malformed_signature'],
    ['a missing signature', 'X-Service-Signature', undefined, 'missing_header'],
    [
      'a webhook id differing from the body',
      'X-Service-Webhook-Id',
      'wh_x',
      'header_body_mismatch',
    ],
  ])('answers %s 400', async (_what, name, value, code) => {
    const { url, processed } = await start();
    const sent = delivery(email('e1'));
    const headers = { ...sent.headers };
    if (value === undefined) delete headers[name];
    else headers[name] = value;
    const res = await post(url, { ...sent, headers });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ code });
    expect(processed).toHaveLength(0);
  });

  it('hands every test delivery to onEvent and answers 2xx', async () => {
    const { url, processed } = await start();
    const test = delivery({ test: true, message: 'hello' }, { event: 'webhook.test' });
    expect((await post(url, test)).status).toBe(200);
    expect((await post(url, test)).status).toBe(200);
    expect(processed.map((d) => d.event)).toEqual(['webhook.test', 'webhook.test']);
  });

  it('answers 500 when processing fails, and processes the retry', async () => {
    let calls = 0;
    const { url } = await start({
      onEvent: () => {
        calls += 1;
        if (calls === 1) throw new Error('database down');
      },
    });
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {});
    expect((await post(url, delivery(email('e1')))).status).toBe(500);
    expect(logged).toHaveBeenCalledWith('webhook receiver: processing failed:', expect.any(Error));
    expect((await post(url, delivery(email('e1')))).status).toBe(200);
    expect(calls).toBe(2);
  });

  it('answers a GET 405 and a body over maxBodyBytes 413', async () => {
    const { url, processed } = await start({ maxBodyBytes: 1024 });
    const get = await fetch(url);
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
    const big = delivery({ ...email('e1'), text: 'x'.repeat(2048) });
    expect((await post(url, big)).status).toBe(413);
    expect(processed).toHaveLength(0);
  });

  it('agrees with the emulator signer over the wire on any JSON data, byte for byte', async () => {
    const { url, processed } = await start();
    let n = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.dictionary(fc.string({ unit: 'binary' }), fc.jsonValue()),
        async (extra) => {
          n += 1;
          const data = { ...extra, id: `e${n}`, mailbox: 'a@b.test' };
          const sent = delivery(data);
          const res = await post(url, sent);
          expect(res.status).toBe(200);
          expect(processed.at(-1)?.payload).toEqual(JSON.parse(sent.body.toString('utf8')));
        },
      ),
      { numRuns: 40 },
    );
  });

  it('runs from the command line on a free port it prints', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'examples/receiver.ts'], {
      cwd: root,
      env: { ...process.env, MAILTWIN_WEBHOOK_SECRET: SECRET, PORT: '0', HOST: '127.0.0.1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      let output = '';
      child.stdout.setEncoding('utf8');
      const url = await new Promise<string>((resolve, reject) => {
        child.stdout.on('data', (chunk: string) => {
          output += chunk;
          const match = /listening on (http:\/\/127\.0\.0\.1:\d+\/)/.exec(output);
          if (match?.[1] !== undefined) resolve(match[1]);
        });
        child.once('exit', (code) => reject(new Error(`receiver exited with ${code}: ${output}`)));
      });
      expect((await post(url, delivery(email('e1')))).status).toBe(200);
      const logged = new RegExp(`email\\.received webhook=${WEBHOOK_ID} email=e1`);
      await expect.poll(() => output, { timeout: 5000 }).toMatch(logged);
    } finally {
      child.kill('SIGTERM');
      if (child.exitCode === null) await once(child, 'exit');
    }
  }, 20_000);

  it('refuses to start without a whsec_ secret, with the reason', async () => {
    const env = { ...process.env };
    delete env['MAILTWIN_WEBHOOK_SECRET'];
    const child = spawn(process.execPath, ['--import', 'tsx', 'examples/receiver.ts'], {
      cwd: root,
      env,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => (stderr += chunk));
    const [code] = (await once(child, 'exit')) as [number | null];
    expect(code).toBe(2);
    expect(stderr).toMatch(/MAILTWIN_WEBHOOK_SECRET/);
  }, 20_000);
});

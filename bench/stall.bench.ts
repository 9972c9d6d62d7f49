/**
 * Issue 27 item 1: while the worst request we can build runs, how long does a concurrent
 * `GET /mailboxes` wait? Starts `node bin/mailtwin.js serve` in its own process (the bench's
 * own event loop never shares the server's), sends each worst case while polling
 * GET /mailboxes every 20 ms, and prints the slowest and median GET per case. The target is
 * 100 ms. `MAILTWIN_BIN=/path/to/bin/mailtwin.js` measures another checkout (a before/after).
 */
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { ms, percentile } from './measure.ts';
import { startChild } from './processes.ts';

const MAILTWIN =
  process.env.MAILTWIN_BIN ?? fileURLToPath(new URL('../bin/mailtwin.js', import.meta.url));
/** The demo fixture's follow-owner key of Acme, which may send as hello@acme.test. */
const DEMO_AUTH = { Authorization: 'Bearer sk-AcmeDemoApp1_FQS5F7JFVVquirfXcIsmhOSMsRqmDcjU' };
const SENDER = 'hello@acme.test';

/** Each case: a name and the request body, built before the clock starts. */
function cases(): [name: string, body: Record<string, unknown> | null][] {
  const send = (fields: Record<string, unknown>) => ({
    from: SENDER,
    to: 'someone@example.test',
    subject: 'Stall',
    ...fields,
  });
  return [
    ['baseline: no send, 5 s', null],
    [
      '24 MB text of 4.8M {{a}} (sent, 4.8 MB)',
      send({ text: '{{a}}'.repeat(4_800_000), variables: { a: 'b' } }),
    ],
    ['24 MB text (refused 400 message_too_large)', send({ text: 'x'.repeat(24_000_000) })],
    [
      '24 MB subject (refused 400 by the schema)',
      send({ subject: 's'.repeat(24_000_000), text: 'x' }),
    ],
    [
      '1M {{a}} Markdown (5 MB)',
      send({ markdown: '{{a}}'.repeat(1_000_000), variables: { a: 'b' } }),
    ],
    ['3 MB Markdown of <b>x</b> (slow render)', send({ markdown: '<b>x</b>'.repeat(375_000) })],
    ['4.9 MB text (sent: stored with its index)', send({ text: 'word '.repeat(980_000) })],
  ];
}

/**
 * Sends `body` from a worker thread, so that writing megabytes never delays this thread's
 * polls: a slow GET is then the server's, not the bench's.
 */
function sendFromThread(url: string, body: Buffer): Promise<{ status: number; text: string }> {
  const source = `
    const { parentPort, workerData } = require('node:worker_threads');
    fetch(workerData.url, {
      method: 'POST',
      headers: workerData.headers,
      body: workerData.body,
    })
      .then(async (r) => parentPort.postMessage({ status: r.status, text: await r.text() }))
      .catch((e) => parentPort.postMessage({ status: 0, text: String(e) }));
  `;
  const bytes = new Uint8Array(body.buffer, body.byteOffset, body.byteLength);
  const worker = new Worker(source, {
    eval: true,
    workerData: { url, headers: { ...DEMO_AUTH, 'Content-Type': 'application/json' }, body: bytes },
  });
  return new Promise((resolve, reject) => {
    worker.once('message', (answer: { status: number; text: string }) => {
      resolve(answer);
      void worker.terminate();
    });
    worker.once('error', reject);
  });
}

/** With no body: polls for 5 s with nothing else running (what the machine's load alone costs). */
async function pollWhile(origin: string, body: Buffer | null) {
  const latencies: number[] = [];
  const started = performance.now();
  const sending =
    body === null
      ? new Promise<{ status: number; text: string }>((resolve) =>
          setTimeout(() => resolve({ status: 0, text: '' }), 5000),
        )
      : sendFromThread(`${origin}/openapi/v1/emails/send`, body);
  let done = false;
  void sending.finally(() => (done = true));
  while (!done) {
    const t = performance.now();
    const r = await fetch(`${origin}/openapi/v1/mailboxes`, { headers: DEMO_AUTH });
    await r.arrayBuffer();
    latencies.push(performance.now() - t);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const answer = await sending;
  return { latencies, answer, tookMs: performance.now() - started };
}

export async function benchStall(print: (line: string) => void): Promise<void> {
  const server = await startChild(
    process.execPath,
    [
      MAILTWIN,
      'serve',
      '--port',
      '{port}',
      '--no-smtp',
      '--max-request-bytes',
      String(25 * 1024 * 1024),
    ],
    '/openapi/v1/mailboxes',
    DEMO_AUTH,
  );
  try {
    // Warm: the validator compiles, the renderer loads and its threads start once per process.
    for (const text of ['warm', 'warm '.repeat(40_000)]) {
      await pollWhile(
        server.origin,
        Buffer.from(JSON.stringify({ from: SENDER, to: 'a@example.test', subject: 'w', text })),
      );
    }
    print(`${MAILTWIN}`);
    print('case | answer | send took | GETs | median GET | slowest GET (target 100 ms)');
    for (const [name, request] of cases()) {
      const body = request === null ? null : Buffer.from(JSON.stringify(request));
      const { latencies, answer, tookMs } = await pollWhile(server.origin, body);
      const sorted = [...latencies].sort((a, b) => a - b);
      const code =
        answer.status === 201 || answer.status === 0
          ? ''
          : ` ${/"code":"([a-z_]+)"/.exec(answer.text)?.[1] ?? ''}`;
      print(
        `${name} | ${answer.status}${code} | ${ms(tookMs)} | ${latencies.length} | ${ms(percentile(sorted, 50))} | ${ms(sorted.at(-1) ?? 0)}`,
      );
    }
  } finally {
    await server.stop();
  }
}

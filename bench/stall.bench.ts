/**
 * Issue 27 item 1: while the worst request we can build runs, how long does a concurrent
 * `GET /mailboxes` wait? Starts `node bin/mailtwin.js serve` in its own process (the bench's
 * own event loop never shares the server's), sends each worst case while polling
 * GET /mailboxes every 20 ms, and prints the slowest and median GET per case. The target is
 * 100 ms. Cases: large sends (rendered, refused, stored and indexed), an upload, a raw message
 * received through the control plane, and, in a second process under `serve --binding`, large
 * sends the binding renames. `MAILTWIN_BIN=/path/to/bin/mailtwin.js` measures another checkout
 * (a before/after); `MAILTWIN_STALL_CASES=raw,baseline` only the cases so named. Wall times:
 * on a loaded machine every figure stretches, the baseline row shows by how much.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { ms, percentile } from './measure.ts';
import { startChild } from './processes.ts';

const MAILTWIN =
  process.env.MAILTWIN_BIN ?? fileURLToPath(new URL('../bin/mailtwin.js', import.meta.url));
/** The demo fixture's follow-owner key of Acme, which may send as hello@acme.test. */
const DEMO_AUTH = { Authorization: 'Bearer sk-AcmeDemoApp1_FQS5F7JFVVquirfXcIsmhOSMsRqmDcjU' };
const SENDER = 'hello@acme.test';
const CONTROL_TOKEN = 'stallbench';
/** A renaming binding (every rename but the error table), for the run under --binding. */
const BINDING = fileURLToPath(
  new URL('../tests/variants/bindings/all-renames.yaml', import.meta.url),
);

/** One request to time: where it goes, with what headers, and its body (built beforehand). */
interface Request {
  path: string;
  headers: Record<string, string>;
  body: Buffer;
}

const json = (body: Record<string, unknown>): Request => ({
  path: '/openapi/v1/emails/send',
  headers: { ...DEMO_AUTH, 'Content-Type': 'application/json' },
  body: Buffer.from(JSON.stringify(body)),
});

const send = (fields: Record<string, unknown>) =>
  json({ from: SENDER, to: 'someone@example.test', subject: 'Stall', ...fields });

/** §4.9: one file of `size` bytes as multipart/form-data. */
function upload(size: number): Request {
  const boundary = 'stallbenchboundary';
  return {
    path: '/openapi/v1/attachments',
    headers: { ...DEMO_AUTH, 'Content-Type': `multipart/form-data; boundary=${boundary}` },
    body: Buffer.concat([
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.bin"\r\n` +
          'Content-Type: application/octet-stream\r\n\r\n',
      ),
      Buffer.alloc(size, 7),
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]),
  };
}

/** A raw message/rfc822 received through the control plane (§6.1), its text part `text`. */
function rawInbound(text: string): Request {
  return {
    path: `/_mailtwin/v1/inbound?mailbox=${SENDER}`,
    headers: { Authorization: `Bearer ${CONTROL_TOKEN}`, 'Content-Type': 'message/rfc822' },
    body: Buffer.from(
      'From: a@partner.test\r\nTo: hello@acme.test\r\nSubject: raw\r\nMIME-Version: 1.0\r\n' +
        `Content-Type: text/plain; charset=utf-8\r\n\r\n${text}`,
    ),
  };
}

/** Distinct words: what costs a full-text index most (D-68). */
const distinctWords = (count: number) =>
  Array.from({ length: count }, (_, i) => (i * 7919 + 1e6).toString(36)).join(' ');

/** Each case: a name and the request, built before the clock starts; null polls only. */
function cases(): [name: string, request: Request | null][] {
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
    ['4 MB of distinct words (sent: indexed up to D-68)', send({ text: distinctWords(500_000) })],
    ['3 MiB upload (multipart/form-data)', upload(3 * 1024 * 1024)],
    ['4.5 MB raw message/rfc822 received (control plane)', rawInbound('word '.repeat(900_000))],
  ];
}

/** The cases run again with the emulator speaking a renaming binding (serve --binding). */
function bindingCases(): [name: string, request: Request | null][] {
  return [
    [
      '--binding: 24 MB text (refused 400 message_too_large)',
      send({ text: 'x'.repeat(24_000_000) }),
    ],
    ['--binding: 4.9 MB text (sent)', send({ text: 'word '.repeat(980_000) })],
  ];
}

/**
 * Sends `body` from a worker thread, so that writing megabytes never delays this thread's
 * polls: a slow GET is then the server's, not the bench's.
 */
function sendFromThread(
  origin: string,
  request: Request,
): Promise<{ status: number; text: string }> {
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
  const { body } = request;
  const bytes = new Uint8Array(body.buffer, body.byteOffset, body.byteLength);
  const worker = new Worker(source, {
    eval: true,
    workerData: { url: `${origin}${request.path}`, headers: request.headers, body: bytes },
  });
  return new Promise((resolve, reject) => {
    worker.once('message', (answer: { status: number; text: string }) => {
      resolve(answer);
      void worker.terminate();
    });
    worker.once('error', reject);
  });
}

/**
 * CPU time (ms) the server's main thread, its event loop, has used: Linux's per-thread
 * counters, 10 ms ticks; undefined elsewhere. Wall times stretch with the machine's load; the
 * CPU the event loop spent while a GET waited does not, so it shows what the server itself held.
 */
function loopCpuMs(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/task/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return undefined;
  }
}

/** With no body: polls for 5 s with nothing else running (what the machine's load alone costs). */
async function pollWhile(origin: string, pid: number, request: Request | null) {
  const latencies: number[] = [];
  /** The server loop's CPU time during each GET. */
  const cpu: number[] = [];
  const started = performance.now();
  const sending =
    request === null
      ? new Promise<{ status: number; text: string }>((resolve) =>
          setTimeout(() => resolve({ status: 0, text: '' }), 5000),
        )
      : sendFromThread(origin, request);
  let done = false;
  void sending.finally(() => (done = true));
  while (!done) {
    const t = performance.now();
    const before = loopCpuMs(pid);
    const r = await fetch(`${origin}/openapi/v1/mailboxes`, { headers: DEMO_AUTH });
    await r.arrayBuffer();
    latencies.push(performance.now() - t);
    const after = loopCpuMs(pid);
    if (before !== undefined && after !== undefined) cpu.push(after - before);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const answer = await sending;
  return { latencies, cpu, answer, tookMs: performance.now() - started };
}

/** Starts `mailtwin serve` (with `extra` arguments), warms it, and times each case. */
async function runCases(
  print: (line: string) => void,
  extra: string[],
  list: [name: string, request: Request | null][],
): Promise<void> {
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
      '--control-token',
      CONTROL_TOKEN,
      ...extra,
    ],
    '/openapi/v1/mailboxes',
    DEMO_AUTH,
  );
  try {
    // Warm: the validator compiles, the renderer loads and its threads start once per process.
    for (const text of ['warm', 'warm '.repeat(40_000)])
      await pollWhile(
        server.origin,
        server.pid,
        json({ from: SENDER, to: 'a@example.test', subject: 'w', text }),
      );
    for (const [name, request] of list) {
      const { latencies, cpu, answer, tookMs } = await pollWhile(
        server.origin,
        server.pid,
        request,
      );
      const sorted = [...latencies].sort((a, b) => a - b);
      const code =
        answer.status === 201 || answer.status === 202 || answer.status === 0
          ? ''
          : ` ${/"code":"([a-z_]+)"/.exec(answer.text)?.[1] ?? ''}`;
      print(
        `${name} | ${answer.status}${code} | ${ms(tookMs)} | ${latencies.length} | ${ms(percentile(sorted, 50))} | ${ms(sorted.at(-1) ?? 0)} | ${cpu.length === 0 ? '-' : `${Math.max(...cpu)} ms`}`,
      );
    }
  } finally {
    await server.stop();
  }
}

/**
 * The cases whose names contain one of the comma-separated words of MAILTWIN_STALL_CASES (any
 * case), or all of them: `MAILTWIN_STALL_CASES=raw npm run bench -- stall` times one case.
 */
function chosen(
  list: [name: string, request: Request | null][],
): [name: string, request: Request | null][] {
  const words = process.env.MAILTWIN_STALL_CASES?.toLowerCase().split(',').filter(Boolean);
  if (words === undefined || words.length === 0) return list;
  return list.filter(([name]) => words.some((word) => name.toLowerCase().includes(word)));
}

export async function benchStall(print: (line: string) => void): Promise<void> {
  print(`${MAILTWIN}`);
  print(
    'case | answer | send took | GETs | median GET | slowest GET (target 100 ms) | ' +
      "most CPU the server's event loop spent during one GET (10 ms ticks)",
  );
  for (const [extra, list] of [
    [[], cases()],
    [['--binding', BINDING], bindingCases()],
  ] as const) {
    const run = chosen(list);
    if (run.length > 0) await runCases(print, [...extra], run);
  }
}

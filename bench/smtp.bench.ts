import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createTransport } from 'nodemailer';
import MailComposer from 'nodemailer/lib/mail-composer/index.js';
import { startCpuProfile } from './cpu-profile.ts';
import {
  cpuMsOf,
  freePort,
  minorFaultsOf,
  rssMbOf,
  startChild,
  type ChildServer,
} from './processes.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const MAILTWIN = join(ROOT, 'bin/mailtwin.js');
const DEMO_SECRET = 'sk-AcmeDemoApp1_FQS5F7JFVVquirfXcIsmhOSMsRqmDcjU';
const MAILBOX = 'hello@acme.test';
/** `SMTP_MESSAGES=500 npm run bench -- smtp` for a quicker look. */
const MESSAGES = Number(process.env.SMTP_MESSAGES ?? 5000);
const CONNECTIONS = 10;
/** `SMTP_CPU_PROF=dir npm run bench -- smtp` writes the emulator's CPU profile (`node --cpu-prof`) there. */
const PROFILE_DIR = process.env.SMTP_CPU_PROF;
/**
 * `SMTP_NODE_FLAGS="--max-semi-space-size=32" npm run bench -- smtp`: Node flags for the
 * emulator's process, for an A/B of V8 settings (printed with the figures); none by default,
 * so the emulator runs as `mailtwin serve` does.
 */
const NODE_FLAGS = (process.env.SMTP_NODE_FLAGS ?? '').split(/\s+/).filter(Boolean);
/**
 * `SMTP_CLIENT_PROF=dir npm run bench -- smtp`: a CPU profile of this process (the client) over
 * each line's timed window alone, written there as client-<line>.cpuprofile (inspector).
 */
const CLIENT_PROFILE_DIR = process.env.SMTP_CLIENT_PROF;
/** Messages sent untimed before the first line (`warmUp`). */
const WARM_UP = Math.min(1000, MESSAGES);
/** `SMTP_CLIENTS=2,3 npm run bench -- smtp`: only these lines (1-based, in CLIENTS' order). */
const ONLY = process.env.SMTP_CLIENTS?.split(',').map(Number);

/** A run's own word, so the API count finds exactly the messages this run sent. */
const TAG = `smtpbench${Date.now().toString(36)}`;

/** Resolves once `port` takes connections: serve starts SMTP after the API answers. */
async function smtpListening(port: number): Promise<void> {
  for (let attempt = 0; attempt < 1000; attempt += 1) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => (socket.destroy(), resolve(true)));
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`nothing listens on SMTP port ${port}`);
}

/** How many emails of the mailbox carry `tag` in their subject, walking every page. */
async function countListed(origin: string, tag: string): Promise<number> {
  const auth = { Authorization: `Bearer ${DEMO_SECRET}` };
  let found = 0;
  let cursor: string | null = null;
  do {
    const url = `${origin}/openapi/v1/emails?mailbox=${MAILBOX}&limit=100&q=${tag}${cursor === null ? '' : `&cursor=${cursor}`}`;
    const page = (await (await fetch(url, { headers: auth })).json()) as {
      emails: { subject: string }[];
      nextCursor: string | null;
    };
    found += page.emails.filter((e) => e.subject.includes(tag)).length;
    cursor = page.nextCursor;
  } while (cursor !== null);
  return found;
}

/**
 * The kernel's count of ACKs it held back to send later (delayed ACKs), machine-wide: a client
 * that writes a message in several small writes without TCP_NODELAY (Nagle) waits for each
 * such ACK, about 40 ms, once a message. NaN where /proc/net/netstat is not readable.
 */
function delayedAcks(): number {
  try {
    const [names, values] = readFileSync('/proc/net/netstat', 'utf8')
      .split('\n')
      .filter((line) => line.startsWith('TcpExt:'))
      .map((line) => line.split(/\s+/));
    const at = names?.indexOf('DelayedACKs') ?? -1;
    return at === -1 ? NaN : Number(values?.[at]);
  } catch {
    return NaN;
  }
}

/** One client of the run: how its sockets are made, how it sends, and what the row says of it. */
interface Client {
  label: string;
  /** nodemailer's `getSocket`: the connected socket a pooled connection uses; unset, its own. */
  getSocket?: (options: unknown, callback: (error: Error | null, socket?: object) => void) => void;
  /**
   * Whether each message is composed before the timer starts and handed to the transport as
   * `raw` (as Python's smtplib.sendmail takes bytes), instead of composed by nodemailer as it is
   * sent; what the line measures, in its own words.
   */
  preComposed: boolean;
  measures: string;
}

/** nodemailer's pool takes a connected socket as `connection`, as from a proxy. */
const noDelaySocket: Client['getSocket'] = (options, callback) => {
  const { host, port } = options as { host: string; port: number };
  const socket = connect({ host, port, noDelay: true });
  socket.once('error', (error) => callback(error));
  socket.once('connect', () => callback(null, { connection: socket }));
};

const COMPOSING =
  "nodemailer composes each message (MIME, text + HTML) as it sends it, on the same 2 cores: the client's composing counted in the rate";

const CLIENTS: Client[] = [
  { label: 'nodemailer as it comes', preComposed: false, measures: COMPOSING },
  {
    label: 'nodemailer, sockets with TCP_NODELAY',
    // nodemailer pipes a message to the socket in several writes; without TCP_NODELAY the
    // kernel holds all but the first until the server's delayed ACK (see delayedAcks).
    getSocket: noDelaySocket,
    preComposed: false,
    measures: COMPOSING,
  },
  {
    label: 'nodemailer, sockets with TCP_NODELAY, messages pre-composed',
    getSocket: noDelaySocket,
    preComposed: true,
    measures:
      "each message's bytes composed once before the timer by nodemailer's MailComposer and handed to the same pooled transport as `raw` (as smtplib.sendmail takes bytes): SMTP and ingest, not the client's composing",
  },
];

/**
 * Issue 31 item 2: SMTP ingest with a real client, nodemailer's SMTP transport pooling
 * `CONNECTIONS` connections, `MESSAGES` messages (text and HTML parts, about 2 KB each) to one
 * mailbox of `mailtwin serve`; the rate counts from the first message handed to the pool to the
 * last one accepted (250), then the API must list every one of them. Target ≥ 1,000 messages/s.
 * Three lines: nodemailer as it comes, then with TCP_NODELAY on its sockets, which tells the
 * server's pace from the 40 ms a message that nodemailer's writes wait for the server's delayed
 * ACK; then with TCP_NODELAY and every message composed before the timer (`raw`), which leaves
 * the client's MIME composing (about a third of its CPU) out of the two cores the rate shares.
 */
export async function benchSmtp(print: (line: string) => void): Promise<void> {
  const smtpPort = await freePort();
  let server: ChildServer | undefined;
  try {
    server = await startChild(
      process.execPath,
      [
        ...(PROFILE_DIR === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`]),
        ...NODE_FLAGS,
        MAILTWIN,
        'serve',
        '--port',
        '{port}',
        '--smtp-port',
        String(smtpPort),
        '--quiet',
      ],
      '/openapi/v1/mailboxes',
      { Authorization: `Bearer ${DEMO_SECRET}` },
    );
    await smtpListening(smtpPort);
    if (NODE_FLAGS.length > 0) print(`emulator run with node ${NODE_FLAGS.join(' ')}`);
    await warmUp(smtpPort, WARM_UP);
    print(`emulator warmed up with ${WARM_UP} messages (untimed) before the lines`);
    for (const [index, client] of CLIENTS.entries())
      if (ONLY === undefined || ONLY.includes(index + 1))
        await runClient(server, smtpPort, client, `${TAG}c${index}`, index + 1, print);
    print(`emulator RSS ${rssMbOf(server.pid).toFixed(0)} MB`);
  } finally {
    await server?.stop();
  }
}

async function runClient(
  server: ChildServer,
  smtpPort: number,
  client: Client,
  tag: string,
  line: number,
  print: (line: string) => void,
): Promise<void> {
  const transport = pooled(smtpPort, client.getSocket);
  const mail = (i: number) => mailOf(i, tag);
  // The bytes nodemailer itself would send for `mail(i)` (MailComposer, as sendMail compiles it;
  // no X-Mailer, as none is set), made for every message before the timer starts.
  const composed = new Map<number, Buffer>();
  if (client.preComposed)
    for (let i = -CONNECTIONS * 2; i < MESSAGES; i += 1)
      composed.set(i, await new MailComposer(mail(i)).compile().build());
  const envelope = { from: 'jin.park@northwind.test', to: [MAILBOX] };
  const send = (i: number) =>
    client.preComposed
      ? transport.sendMail({ envelope, raw: composed.get(i)! })
      : transport.sendMail(mail(i));
  // Warm the connections and the code paths before timing.
  await Promise.all(Array.from({ length: CONNECTIONS * 2 }, (_, i) => send(-1 - i)));
  const profiler = CLIENT_PROFILE_DIR === undefined ? undefined : await startCpuProfile();
  const systemBefore = systemMsOf(server.pid);
  const cpuBefore = cpuMsOf(server.pid);
  const faultsBefore = minorFaultsOf(server.pid);
  const clientBefore = process.cpuUsage();
  const acksBefore = delayedAcks();
  const started = performance.now();
  const results = await Promise.allSettled(Array.from({ length: MESSAGES }, (_, i) => send(i)));
  const seconds = (performance.now() - started) / 1000;
  const cpu = cpuMsOf(server.pid) - cpuBefore;
  const system = systemMsOf(server.pid) - systemBefore;
  const faults = minorFaultsOf(server.pid) - faultsBefore;
  const used = process.cpuUsage(clientBefore);
  const acks = delayedAcks() - acksBefore;
  await profiler?.stop(join(CLIENT_PROFILE_DIR!, `client-${line}.cpuprofile`));
  transport.close();
  const refused = results.filter((r) => r.status === 'rejected');
  const listed = (await countListed(server.origin, tag)) - CONNECTIONS * 2;
  print(
    `${client.label} (${client.measures}): ${MESSAGES} messages (text and HTML, ~2 KB) over ${CONNECTIONS} pooled connections to ${MAILBOX}: ${(MESSAGES / seconds).toFixed(0)} messages/s (target ≥ 1,000), ${seconds.toFixed(2)} s; CPU a message: emulator ${(cpu / MESSAGES).toFixed(2)} ms (of it in the kernel ${(system / MESSAGES).toFixed(2)}), nodemailer (this process, same cores) ${((used.user + used.system) / 1000 / MESSAGES).toFixed(2)} ms; emulator page faults a message ${(faults / MESSAGES).toFixed(1)}; delayed ACKs (machine-wide) ${(acks / MESSAGES).toFixed(2)} a message; refused ${refused.length}${refused.length > 0 ? ` (first: ${String((refused[0] as PromiseRejectedResult).reason)})` : ''}`,
  );
  print(
    `  listed by GET /emails afterwards: ${listed} of ${MESSAGES}${listed === MESSAGES ? ' (all)' : ' (MISSING SOME)'}`,
  );
}

const PARAGRAPH =
  'Thanks for the samples: the recycled mailers held up in the drop test and the print is sharp. ';

/** Message `i` of a line (text and HTML, about 2 KB composed), its subject carrying `tag`. */
function mailOf(i: number, tag: string) {
  return {
    from: 'Jin Park <jin.park@northwind.test>',
    to: MAILBOX,
    subject: `Order ${i} ${tag}`,
    text: `${PARAGRAPH.repeat(8)}\n\nOrder ${i}`,
    html: `<p>${PARAGRAPH.repeat(8)}</p><p>Order <b>${i}</b></p>`,
  };
}

/** nodemailer's pooled SMTP transport over CONNECTIONS connections, with `getSocket` if given. */
function pooled(smtpPort: number, getSocket: Client['getSocket']) {
  return createTransport({
    host: '127.0.0.1',
    port: smtpPort,
    secure: false,
    ignoreTLS: true,
    pool: true,
    maxConnections: CONNECTIONS,
    maxMessages: Infinity,
    ...(getSocket === undefined ? {} : { getSocket }),
  } as Parameters<typeof createTransport>[0]);
}

/**
 * Sends `count` messages untimed (composing, TCP_NODELAY), so the emulator's code is compiled
 * and its heap grown before any line is timed: the first line timed otherwise paid for it
 * (the emulator's CPU a message of the first line, 2,000 messages: 1.0-1.7 ms against 0.65-1.0
 * ms for the next on the same server).
 */
async function warmUp(smtpPort: number, count: number): Promise<void> {
  const transport = pooled(smtpPort, noDelaySocket);
  await Promise.all(
    Array.from({ length: count }, (_, i) => transport.sendMail(mailOf(i, `${TAG}warm`))),
  );
  transport.close();
}

/**
 * The system (kernel) part of a process's CPU so far in ms (/proc, as cpuMsOf), or NaN
 * elsewhere: the socket work of SMTP's replies and reads, apart from the emulator's own code.
 */
function systemMsOf(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    return Number(fields[12]) * 10; // clock ticks of 10 ms, as cpuMsOf reads them
  } catch {
    return Number.NaN;
  }
}

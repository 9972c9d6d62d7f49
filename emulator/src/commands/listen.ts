import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { UsageError } from '../cli-options.ts';
import {
  HELP_FLAG,
  defaultOf,
  helpOptions,
  parseArgsOptions,
  type Flag,
} from '../../../shared/flag-table.ts';
import {
  CONTROL_FLAGS,
  ControlError,
  controlCall,
  controlConnection,
  type ControlConnection,
} from './control-connection.ts';

/** D-30's default: the emulator gives a delivery as long, so a slower answer is lost anyway. */
export const DEFAULT_FORWARD_TIMEOUT_MS = 10_000;

/**
 * Every flag of `mailtwin listen`, written once: the parser, `--help` and the table of
 * docs/webhooks.md are made from it (flag-table.ts).
 */
export const LISTEN_FLAGS = [
  {
    name: 'forward-to',
    type: 'string',
    value: '<url>',
    required: true,
    description: 'Where each delivery goes, e.g. http://localhost:3000/hooks',
  },
  {
    name: 'owner',
    type: 'string',
    value: '<id>',
    unset: "the first owner, the demo's",
    description: 'The owner whose mail is delivered',
  },
  {
    name: 'scope',
    type: 'string',
    value: '<scope>',
    default: 'follow-owner',
    description:
      'follow-owner, one-domain (with --domain) or selected-mailbox (with --mailbox, repeatable)',
  },
  {
    name: 'domain',
    type: 'string',
    value: '<domain>',
    description: 'The domain of a one-domain webhook',
  },
  {
    name: 'mailbox',
    type: 'string[]',
    value: '<address>',
    description: 'A mailbox of a selected-mailbox webhook (repeatable)',
  },
  {
    name: 'forward-timeout-ms',
    type: 'string',
    value: '<n>',
    default: String(DEFAULT_FORWARD_TIMEOUT_MS),
    defaultNote: "the emulator's delivery time-out, D-30",
    description:
      'How long the receiver may take to answer one delivery, its whole answer read; then the emulator gets 504 and retries the delivery as a time-out',
  },
  ...CONTROL_FLAGS,
  HELP_FLAG,
] as const satisfies readonly Flag[];

export const LISTEN_HELP = `Usage: mailtwin listen --forward-to <url> [options]

Makes a webhook on a running emulator whose deliveries come to this command, forwards each to
<url> with its body, headers and signature unchanged, answers the emulator with the receiver's
status (so failures are retried as for any endpoint), and prints one line per delivery, timed
on the emulator's clock as the signatures are. Prints the webhook's signing secret as
MAILTWIN_WEBHOOK_SECRET=whsec_… first. Ctrl-C (or SIGTERM) deletes the webhook, and so does
its launcher going away (npx killed): listen then stops by itself.

The receiver's answer is passed on up to 1 MiB; the rest is not read (the line says it was
cut). A receiver that has not answered within --forward-timeout-ms is given up: the emulator
gets 504, so the delivery is retried as a time-out.

The emulator must accept loopback webhook targets: npm start does (--allow-loopback-webhooks).

${helpOptions(LISTEN_FLAGS)}`;

export interface ListenOptions {
  connection: ControlConnection;
  forwardTo: string;
  owner: string | undefined;
  scope: 'follow-owner' | 'one-domain' | 'selected-mailbox';
  domain: string | undefined;
  mailboxes: string[];
  /** `--forward-timeout-ms`: the deadline of one forward, connect to last byte of the answer. */
  forwardTimeoutMs: number;
}

/** The most of a receiver's answer read and passed on; a longer one is cut there. */
export const MAX_ANSWER_BYTES = 1024 * 1024;

const SCOPES = ['follow-owner', 'one-domain', 'selected-mailbox'] as const;

/** Parses `mailtwin listen` arguments; throws UsageError with a one-line reason. */
export function parseListenOptions(argv: string[], env: NodeJS.ProcessEnv): ListenOptions | 'help' {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: parseArgsOptions(LISTEN_FLAGS),
    }));
  } catch (error) {
    throw new UsageError(`${(error as Error).message.split('\n')[0]} (see mailtwin listen --help)`);
  }
  if (values.help) return 'help';
  const forwardTo = values['forward-to'];
  if (forwardTo === undefined) throw new UsageError('--forward-to <url> is required');
  let target: URL;
  try {
    target = new URL(forwardTo);
  } catch {
    throw new UsageError(`--forward-to must be an http(s) URL, got "${forwardTo}"`);
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:')
    throw new UsageError(`--forward-to must be an http(s) URL, got "${forwardTo}"`);
  const scope = values.scope ?? defaultOf(LISTEN_FLAGS, 'scope');
  if (!(SCOPES as readonly string[]).includes(scope))
    throw new UsageError(`--scope must be one of ${SCOPES.join(', ')}, got "${scope}"`);
  const timeout = values['forward-timeout-ms'] ?? defaultOf(LISTEN_FLAGS, 'forward-timeout-ms');
  if (!/^\d{1,7}$/.test(timeout) || Number(timeout) < 1)
    throw new UsageError(
      `--forward-timeout-ms must be an integer from 1 to 9999999, got "${timeout}"`,
    );
  return {
    connection: controlConnection(values, env),
    forwardTo: target.toString(),
    owner: values.owner,
    scope: scope as ListenOptions['scope'],
    domain: values.domain,
    mailboxes: values.mailbox ?? [],
    forwardTimeoutMs: Number(timeout),
  };
}

/** Headers a relay sets for itself; everything else of the signed request goes on unchanged. */
const HOP_BY_HOP = new Set(['host', 'connection', 'content-length', 'transfer-encoding']);

/**
 * Runs until `stop` is aborted: the relay listens on loopback, the webhook points at it, each
 * delivery is forwarded and answered with the receiver's status. Resolves once the webhook is
 * deleted and the relay closed. `print` gets each line of output.
 */
export async function runListen(
  options: ListenOptions,
  print: (line: string) => void,
  stop: AbortSignal,
): Promise<void> {
  const ownerId = options.owner ?? (await firstOwner(options.connection));
  const clock = await emulatorClock(options.connection);
  const limits = { timeoutMs: options.forwardTimeoutMs, maxAnswerBytes: MAX_ANSWER_BYTES };
  const relay = createServer((request, response) => {
    void relayOne(request, options.forwardTo, limits, clock).then(({ status, body, line }) => {
      print(line);
      response.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8' }).end(body);
    });
  });
  const port = await listenOnLoopback(relay);
  try {
    const webhook = await controlCall<{ id: string; secret: string }>(
      options.connection,
      'POST',
      '/webhooks',
      {
        json: {
          ownerId,
          url: `http://127.0.0.1:${port}/mailtwin-listen`,
          scope: options.scope,
          ...(options.domain === undefined ? {} : { domain: options.domain }),
          ...(options.mailboxes.length === 0 ? {} : { mailboxes: options.mailboxes }),
        },
      },
    ).catch((error: unknown) => {
      if (error instanceof ControlError && error.code === 'invalid_webhook_url')
        throw new ControlError(
          error.status,
          error.code,
          `the emulator refuses a loopback webhook (${error.message}): start it with --allow-loopback-webhooks, as npm start does`,
        );
      throw error;
    });
    print(
      `Forwarding email.received of owner ${ownerId} to ${options.forwardTo} (webhook ${webhook.id}); Ctrl-C to stop`,
    );
    print(`MAILTWIN_WEBHOOK_SECRET=${webhook.secret}`);
    await new Promise<void>((resolve) => {
      if (stop.aborted) resolve();
      stop.addEventListener('abort', () => resolve(), { once: true });
    });
    await controlCall(options.connection, 'DELETE', `/webhooks/${encodeURIComponent(webhook.id)}`);
    print(`Deleted webhook ${webhook.id}`);
  } finally {
    relay.closeAllConnections();
    await new Promise((resolve) => relay.close(resolve));
  }
}

async function firstOwner(connection: ControlConnection): Promise<string> {
  const owners = await controlCall<{ id: string }[]>(connection, 'GET', '/owners');
  const first = owners[0];
  if (first === undefined)
    throw new UsageError('the emulator has no owner: create one, or load the demo');
  return first.id;
}

function listenOnLoopback(server: Server): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
  });
}

/**
 * The emulator's time, which signatures carry (`X-Service-Timestamp`): the control plane's
 * clock (`GET /clock`) can be moved forward, so it is read again for each delivery. Its offset
 * from this machine's clock is kept, so a delivery is timed when it arrived; when the emulator
 * cannot be asked, the last offset stands.
 */
export interface EmulatorClock {
  /** Reads the clock again; resolves with the emulator's instant for `localMs`. */
  at(localMs: number): Promise<Date>;
}

export async function emulatorClock(connection: ControlConnection): Promise<EmulatorClock> {
  const read = async () => {
    const clock = await controlCall<{ now: string }>(connection, 'GET', '/clock');
    return Date.parse(clock.now) - Date.now();
  };
  let offsetMs = await read();
  return {
    async at(localMs) {
      offsetMs = await read().catch(() => offsetMs);
      return new Date(localMs + offsetMs);
    },
  };
}

/** One delivery from the emulator, forwarded; the line to print names it and how it went. */
async function relayOne(
  request: IncomingMessage,
  forwardTo: string,
  limits: ForwardLimits,
  clock: EmulatorClock,
): Promise<{ status: number; body: Uint8Array | string; line: string }> {
  const arrived = Date.now();
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const body = Buffer.concat(chunks);
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers))
    if (!HOP_BY_HOP.has(name) && typeof value === 'string') headers[name] = value;
  const event = headers['x-service-event'] ?? 'delivery';
  const emailId = emailIdOf(body);
  const [outcome, when] = await Promise.all([
    forwardDelivery({ headers, body }, forwardTo, limits),
    clock.at(arrived),
  ]);
  const head = `${when.toISOString()} ${event}${emailId === undefined ? '' : ` ${emailId}`} → ${forwardTo}`;
  return { status: outcome.status, body: outcome.body, line: `${head}: ${outcome.summary}` };
}

/** Bounds of one forward (issue 27 item 5): a receiver may neither flood nor stall `listen`. */
export interface ForwardLimits {
  timeoutMs: number;
  maxAnswerBytes: number;
  /** Starts the time-out and returns its cancel; a test holds it until its receiver saw the request. */
  startTimer?: (onTimeout: () => void, ms: number) => () => void;
}

function startTimeout(onTimeout: () => void, ms: number): () => void {
  const timer = setTimeout(onTimeout, ms);
  return () => clearTimeout(timer);
}

/**
 * Sends one delivery on: the receiver's status and at most `maxAnswerBytes` of its answer
 * (the rest is not read: the connection is dropped), 504 when it has not answered whole
 * within `timeoutMs`, 502 when it cannot be reached. `summary` says which.
 */
export async function forwardDelivery(
  delivery: { headers: Record<string, string>; body: Uint8Array },
  forwardTo: string,
  limits: ForwardLimits,
): Promise<{ status: number; body: Uint8Array | string; summary: string }> {
  const started = performance.now();
  const deadline = new AbortController();
  const cancelTimeout = (limits.startTimer ?? startTimeout)(
    () => deadline.abort(),
    limits.timeoutMs,
  );
  try {
    // The receiver's redirect is its answer (§2.5: deliveries never follow one).
    const answer = await fetch(forwardTo, {
      method: 'POST',
      headers: delivery.headers,
      body: delivery.body,
      redirect: 'manual',
      signal: deadline.signal,
    });
    const { bytes, cut } = await readAtMost(answer.body, limits.maxAnswerBytes);
    const ms = Math.round(performance.now() - started);
    const note = cut ? `; answer cut at ${limits.maxAnswerBytes} bytes, the rest not read` : '';
    return { status: answer.status, body: bytes, summary: `${answer.status} (${ms} ms${note})` };
  } catch (error) {
    if (deadline.signal.aborted)
      return {
        status: 504,
        body: 'receiver timed out',
        summary: `no answer within ${limits.timeoutMs} ms (--forward-timeout-ms); the emulator gets 504`,
      };
    const cause = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).message;
    return { status: 502, body: 'receiver unreachable', summary: `unreachable (${cause})` };
  } finally {
    cancelTimeout();
  }
}

/** Reads a body up to `max` bytes; beyond, stops reading and drops the connection. */
async function readAtMost(
  body: ReadableStream<Uint8Array> | null,
  max: number,
): Promise<{ bytes: Uint8Array; cut: boolean }> {
  if (body === null) return { bytes: new Uint8Array(0), cut: false };
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return { bytes: Buffer.concat(chunks), cut: false };
    if (size + value.byteLength > max) {
      chunks.push(value.subarray(0, max - size));
      await reader.cancel();
      return { bytes: Buffer.concat(chunks), cut: true };
    }
    chunks.push(value);
    size += value.byteLength;
  }
}

function emailIdOf(body: Buffer): string | undefined {
  try {
    const parsed = JSON.parse(body.toString('utf8')) as { data?: { id?: unknown } };
    return typeof parsed.data?.id === 'string' ? parsed.data.id : undefined;
  } catch {
    return undefined;
  }
}

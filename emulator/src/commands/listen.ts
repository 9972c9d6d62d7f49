import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { UsageError } from '../cli-options.ts';
import {
  ControlError,
  controlCall,
  controlConnection,
  type ControlConnection,
} from './control-connection.ts';

export const LISTEN_HELP = `Usage: mailtwin listen --forward-to <url> [options]

Makes a webhook on a running emulator whose deliveries come to this command, forwards each to
<url> with its body, headers and signature unchanged, answers the emulator with the receiver's
status (so failures are retried as for any endpoint), and prints one line per delivery. Prints
the webhook's signing secret as MAILTWIN_WEBHOOK_SECRET=whsec_… first. Ctrl-C (or SIGTERM)
deletes the webhook.

The emulator must accept loopback webhook targets: npm start does (--allow-loopback-webhooks).

Options:
  --forward-to <url>   Where each delivery goes (required), e.g. http://localhost:3000/hooks
  --owner <id>         The owner whose mail is delivered (default: the first owner, the demo's)
  --scope <scope>      follow-owner (default), one-domain (with --domain) or selected-mailbox
                       (with --mailbox, repeatable)
  --domain <domain>    The domain of a one-domain webhook
  --mailbox <address>  A mailbox of a selected-mailbox webhook (repeatable)
  --url <url>          The emulator (its origin or control URL; default $MAILTWIN_CONTROL_URL)
  --token <token>      Its control token (default $MAILTWIN_CONTROL_TOKEN)
  -h, --help           Show this help
`;

export interface ListenOptions {
  connection: ControlConnection;
  forwardTo: string;
  owner: string | undefined;
  scope: 'follow-owner' | 'one-domain' | 'selected-mailbox';
  domain: string | undefined;
  mailboxes: string[];
}

const SCOPES = ['follow-owner', 'one-domain', 'selected-mailbox'] as const;

/** Parses `mailtwin listen` arguments; throws UsageError with a one-line reason. */
export function parseListenOptions(argv: string[], env: NodeJS.ProcessEnv): ListenOptions | 'help' {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        'forward-to': { type: 'string' },
        owner: { type: 'string' },
        scope: { type: 'string' },
        domain: { type: 'string' },
        mailbox: { type: 'string', multiple: true },
        url: { type: 'string' },
        token: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
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
  const scope = values.scope ?? 'follow-owner';
  if (!(SCOPES as readonly string[]).includes(scope))
    throw new UsageError(`--scope must be one of ${SCOPES.join(', ')}, got "${scope}"`);
  return {
    connection: controlConnection(values, env),
    forwardTo: target.toString(),
    owner: values.owner,
    scope: scope as ListenOptions['scope'],
    domain: values.domain,
    mailboxes: values.mailbox ?? [],
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
  const relay = createServer((request, response) => {
    void forward(request, options.forwardTo).then(({ status, body, line }) => {
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

/** Sends one delivery on and says how it went: the receiver's status, or 502 when unreachable. */
async function forward(
  request: IncomingMessage,
  forwardTo: string,
): Promise<{ status: number; body: string; line: string }> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const body = Buffer.concat(chunks);
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers))
    if (!HOP_BY_HOP.has(name) && typeof value === 'string') headers[name] = value;
  const event = headers['x-service-event'] ?? 'delivery';
  const emailId = emailIdOf(body);
  const started = performance.now();
  const head = `${new Date().toISOString()} ${event}${emailId === undefined ? '' : ` ${emailId}`} → ${forwardTo}`;
  try {
    // The receiver's redirect is its answer (§2.5: deliveries never follow one).
    const answer = await fetch(forwardTo, { method: 'POST', headers, body, redirect: 'manual' });
    const text = await answer.text();
    const ms = Math.round(performance.now() - started);
    return { status: answer.status, body: text, line: `${head}: ${answer.status} (${ms} ms)` };
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).message;
    return { status: 502, body: 'receiver unreachable', line: `${head}: unreachable (${cause})` };
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

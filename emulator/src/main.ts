import { existsSync, readFileSync, statSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { dirname, isAbsolute, relative } from 'node:path';
import { serve } from '@hono/node-server';
import { createApp, createServices, defaultDeps, type Services } from './app.ts';
import type { SinkRecord } from './services/webhook-sink.ts';
import {
  MAIN_HELP,
  SERVE_HELP,
  UsageError,
  parseServeOptions,
  type ServeOptions,
} from './cli-options.ts';
import { FixtureError, loadFixtureFile, type FixtureSummary } from './fixtures/load-fixture.ts';
import { openStore, type Store } from './store/store.ts';

/** The `mailtwin` command. Exit status: 0 on a clean stop, 2 on bad configuration. */
export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === 'help' || command === '--help' || command === '-h') {
    process.stdout.write(MAIN_HELP);
    return 0;
  }
  if (command !== 'serve') {
    process.stderr.write(`mailtwin: unknown command "${command}"\n\n${MAIN_HELP}`);
    return 2;
  }
  try {
    const options = parseServeOptions(rest);
    if (options === 'help') {
      process.stdout.write(SERVE_HELP);
      return 0;
    }
    await startServer(options);
    return 0;
  } catch (error) {
    if (!(error instanceof UsageError || error instanceof FixtureError)) throw error;
    process.stderr.write(`mailtwin serve: ${error.message.replace(/\s*\n\s*/g, ' ')}\n`);
    return 2;
  }
}

/** What the store held or received at start-up, for the banner. */
type Loaded =
  | { kind: 'fixture'; path: string; summary: FixtureSummary }
  | { kind: 'none' }
  | { kind: 'existing'; owners: number; mailboxes: number; emails: number };

/**
 * Opens the store, loads the fixture into it when it is empty, listens, and prints the banner
 * once listening. Stops cleanly on SIGINT/SIGTERM. Configuration errors throw UsageError or
 * FixtureError before anything listens.
 */
async function startServer(options: ServeOptions): Promise<void> {
  const store = openStoreAt(options.db);
  try {
    const deps = defaultDeps({
      store,
      controlToken: options.controlToken,
      maxRequestBytes: options.maxRequestBytes,
      allowLoopbackWebhooks: options.allowLoopbackWebhooks,
      webhookTimeoutMs: options.webhookTimeoutMs,
      rateLimit: options.rateLimit,
    });
    const services = createServices(deps);
    const loaded = await loadInitialData(services, options.fixtures);
    const app = createApp(deps, services);
    const address = await listen(app.fetch, options, store);
    const origin = `http://${formatHost(address.address)}:${address.port}`;
    deps.selfOrigin.value = origin;
    services.dispatcher.start(); // also resumes retries a --db file had pending
    const demo = await demonstrateWebhook(services, loaded);
    process.stdout.write(banner({ origin, options, loaded, services, demo }));
  } catch (error) {
    store.close();
    throw error;
  }
}

function openStoreAt(path: string | null): Store {
  if (path === null) return openStore(':memory:');
  const dir = dirname(path);
  if (!existsSync(dir) || !statSync(dir).isDirectory()) {
    throw new UsageError(`--db ${path}: the directory ${dir} does not exist`);
  }
  try {
    return openStore(path);
  } catch (error) {
    throw new UsageError(`--db ${path}: cannot open the database (${(error as Error).message})`);
  }
}

/** The fixture goes only into an empty store, so a database file keeps what it holds. */
async function loadInitialData(services: Services, fixtures: string | null): Promise<Loaded> {
  const { directory, emails } = services.deps.store;
  const existing = {
    owners: directory.listOwners().length,
    mailboxes: directory.listMailboxes().length,
    emails: emails.count(),
  };
  const empty =
    existing.owners === 0 &&
    existing.mailboxes === 0 &&
    existing.emails === 0 &&
    directory.listKeys().length === 0 &&
    directory.listSuppressions().length === 0;
  if (!empty) return { kind: 'existing', ...existing };
  if (fixtures === null) return { kind: 'none' };
  const path = displayPath(fixtures);
  return { kind: 'fixture', path, summary: await loadFixtureFile(services, path) };
}

/**
 * Long query strings (a 5,000-character `q`) reach the app and get its 400 with `field`; only
 * beyond this Node itself answers 431.
 */
const MAX_HEADER_BYTES = 64 * 1024;

function listen(
  fetch: (request: Request) => Response | Promise<Response>,
  options: ServeOptions,
  store: Store,
): Promise<AddressInfo> {
  return new Promise<AddressInfo>((resolve, reject) => {
    const server = serve(
      {
        fetch,
        port: options.port,
        hostname: options.host,
        serverOptions: { maxHeaderSize: MAX_HEADER_BYTES },
      },
      (info) => {
        server.off('error', onError);
        const stop = (signal: string) => {
          process.stderr.write(`mailtwin: ${signal} received, stopping\n`);
          server.close(() => {
            store.close();
            process.exit(0);
          });
        };
        process.once('SIGINT', () => stop('SIGINT'));
        process.once('SIGTERM', () => stop('SIGTERM'));
        resolve(info);
      },
    );
    const onError = (error: NodeJS.ErrnoException) => {
      const where = `${options.host}:${options.port}`;
      const reason =
        error.code === 'EADDRINUSE'
          ? 'the port is already in use'
          : error.code === 'EACCES'
            ? 'permission denied'
            : error.code === 'EADDRNOTAVAIL' || error.code === 'ENOTFOUND'
              ? 'no such address on this machine'
              : error.message;
      reject(new UsageError(`cannot listen on ${where}: ${reason}`));
    };
    server.once('error', onError);
  });
}

function formatHost(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}

/** Relative to the working directory when inside it, so the banner stays short. */
function displayPath(path: string): string {
  const rel = relative(process.cwd(), path);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel) ? rel : path;
}

function plural(count: number, one: string, many = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`;
}

function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version?: string;
  };
  return pkg.version ?? '';
}

/**
 * With fresh demo data and a webhook to the sink, one welcome email is delivered at start-up so
 * the banner can show a whole signed delivery: sent, received, signature verified.
 */
async function demonstrateWebhook(
  services: Services,
  loaded: Loaded,
): Promise<SinkRecord | undefined> {
  if (loaded.kind !== 'fixture' || !services.deps.allowLoopbackWebhooks) return undefined;
  const webhook = loaded.summary.webhooks.find((w) => w.url.startsWith('{origin}/_mailtwin/sink'));
  if (webhook === undefined) return undefined;
  const ownerId = services.webhooks.get(webhook.id).ownerId;
  const mailbox = services.deps.store.directory.grantedMailboxes(ownerId)[0];
  if (mailbox === undefined) return undefined;
  services.inbound.injectJson({
    mailbox: mailbox.address,
    from: 'mailtwin <hello@mailtwin.test>',
    to: [mailbox.address],
    subject: 'Welcome to mailtwin',
    text: 'This email was delivered when the emulator started, to show a signed email.received webhook delivery to the demo sink.',
  });
  await services.dispatcher.runDue();
  return services.sink.list()[0];
}

/**
 * Human lines first; then, last, the `KEY=value` lines a script can read (only those that
 * exist: no MAILTWIN_API_KEY when no fixture with keys was loaded).
 */
function banner(input: {
  origin: string;
  options: ServeOptions;
  loaded: Loaded;
  services: Services;
  demo: SinkRecord | undefined;
}): string {
  const { origin, options, loaded, services, demo } = input;
  const { directory } = services.deps.store;
  const baseUrl = `${origin}/openapi/v1`;
  const controlUrl = `${origin}/_mailtwin/v1`;
  const label = (name: string) => `  ${name.padEnd(11)}`;
  const lines = [
    `mailtwin ${version()}: Email Service API emulator`,
    `${label('API')}${baseUrl}`,
    `${label('Reference')}${origin}/openapi/docs`,
    `${label('Spec')}${origin}/openapi/openapi.json`,
    `${label('Control')}${controlUrl} (Authorization: Bearer $MAILTWIN_CONTROL_TOKEN)`,
    `${label('Database')}${options.db === null ? 'in memory (lost when mailtwin stops)' : options.db}`,
  ];
  const keys = loaded.kind === 'fixture' ? loaded.summary.keys : [];
  if (loaded.kind === 'fixture') {
    const { summary } = loaded;
    lines.push(
      `${label('Loaded')}${loaded.path}: ${plural(summary.owners, 'owner')}, ` +
        `${plural(summary.mailboxes, 'mailbox', 'mailboxes')}, ${plural(summary.emails, 'email')}, ` +
        `${plural(summary.suppressions, 'suppressed address', 'suppressed addresses')}`,
    );
  } else if (loaded.kind === 'existing') {
    lines.push(
      `${label('Loaded')}nothing: the database already holds ${plural(loaded.owners, 'owner')}, ` +
        `${plural(loaded.mailboxes, 'mailbox', 'mailboxes')}, ${plural(loaded.emails, 'email')} ` +
        '(key secrets are not stored, so none is printed)',
    );
  } else {
    lines.push(`${label('Loaded')}nothing (--no-demo): add data through the control plane`);
  }
  const nameWidth = Math.max(0, ...keys.map((k) => k.name.length));
  keys.forEach((summaryKey, i) => {
    const key = directory.getKey(summaryKey.id);
    const owner = directory.getOwner(summaryKey.ownerId)?.name ?? summaryKey.ownerId;
    const scope =
      key?.scope === 'one-domain'
        ? `one-domain ${key.domain}`
        : key?.scope === 'selected-mailbox'
          ? `selected-mailbox ${key.mailboxes.join(', ')}`
          : summaryKey.scope;
    lines.push(
      `${label(i === 0 ? 'API keys' : '')}${summaryKey.name.padEnd(nameWidth)}  ${summaryKey.secret}  ${scope} (${owner})`,
    );
  });
  const webhooks = loaded.kind === 'fixture' ? loaded.summary.webhooks : [];
  webhooks.forEach((webhook, i) => {
    lines.push(
      `${label(i === 0 ? 'Webhooks' : '')}${webhook.id} → ${webhook.url.replace('{origin}', origin)}`,
    );
  });
  if (demo !== undefined) {
    const verdict = demo.verified
      ? 'signature verified'
      : `NOT verified (${demo.error ?? 'unknown'})`;
    lines.push(
      `${label('Delivered')}${demo.event} "${demo.subject ?? ''}" to the sink, ${verdict} (GET ${controlUrl}/sink)`,
    );
  }
  if (options.allowLoopbackWebhooks) {
    lines.push(
      `${label('Note')}webhook targets on loopback are allowed (--allow-loopback-webhooks)`,
    );
  }
  lines.push('', `MAILTWIN_BASE_URL=${baseUrl}`);
  const first = keys[0];
  if (first !== undefined) lines.push(`MAILTWIN_API_KEY=${first.secret}`);
  lines.push(
    `MAILTWIN_CONTROL_URL=${controlUrl}`,
    `MAILTWIN_CONTROL_TOKEN=${services.deps.controlToken}`,
  );
  const firstWebhook = webhooks[0];
  if (firstWebhook !== undefined) lines.push(`MAILTWIN_WEBHOOK_SECRET=${firstWebhook.secret}`);
  lines.push('');
  return lines.join('\n');
}

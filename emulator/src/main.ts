import { existsSync, statSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, isAbsolute, relative } from 'node:path';
import { closeServices, createApp, createServices, defaultDeps } from './app.ts';
import type { Services } from './deps.ts';
import { serveWithJsonErrors } from './http/node-server.ts';
import { banner, loadedSecrets, recoverSecrets, type Loaded } from './banner.ts';
import { ControllableClock } from './clock.ts';
import type { SinkRecord } from './services/webhook-sink.ts';
import {
  MAIN_HELP,
  SERVE_HELP,
  UsageError,
  parseServeOptions,
  type ServeOptions,
} from './cli-options.ts';
import { FixtureError, loadFixtureFile } from './fixtures/load-fixture.ts';
import { watchLauncher } from './launcher-watch.ts';
import { ControlError } from './commands/control-connection.ts';
import { LISTEN_HELP, parseListenOptions, runListen } from './commands/listen.ts';
import { TRIGGER_HELP, parseTriggerOptions, runTrigger } from './commands/trigger.ts';
import { resolveServeBinding, runBinding } from './commands/binding.ts';
import type { SmtpIngress, SmtpOutcome } from './smtp/smtp-ingress.ts';
import { RequestLog } from './request-log.ts';
import { writeReadyFile } from './ready-file.ts';
import { openStore, type Store } from './store/store.ts';
import { WalCheckpoints } from './store/checkpoints.ts';

/** The `mailtwin` command. Exit status: 0 on a clean stop, 2 on bad configuration. */
export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === 'help' || command === '--help' || command === '-h') {
    process.stdout.write(MAIN_HELP);
    return 0;
  }
  if (command === 'listen' || command === 'trigger') return runControlCommand(command, rest);
  if (command === 'binding')
    return runBinding(
      rest,
      (text) => process.stdout.write(text),
      (text) => process.stderr.write(text),
    );
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

/** `mailtwin listen` and `mailtwin trigger`: clients of a running emulator's control plane. */
async function runControlCommand(command: 'listen' | 'trigger', argv: string[]): Promise<number> {
  try {
    if (command === 'trigger') {
      const options = parseTriggerOptions(argv, process.env);
      if (options === 'help') {
        process.stdout.write(TRIGGER_HELP);
        return 0;
      }
      process.stdout.write(`${await runTrigger(options)}\n`);
      return 0;
    }
    const options = parseListenOptions(argv, process.env);
    if (options === 'help') {
      process.stdout.write(LISTEN_HELP);
      return 0;
    }
    const stop = new AbortController();
    process.once('SIGINT', () => stop.abort());
    process.once('SIGTERM', () => stop.abort());
    // As serve does: started by npx, listen stops (deleting its webhook) once npx is gone.
    const unwatch = watchLauncher((pid) => {
      process.stderr.write(`mailtwin listen: its launcher (pid ${pid}) went away, stopping\n`);
      stop.abort();
    });
    try {
      await runListen(options, (line) => process.stdout.write(`${line}\n`), stop.signal);
    } finally {
      unwatch();
    }
    return 0;
  } catch (error) {
    // The emulator refused what was asked (an unknown mailbox, say): the command line was
    // right, so no usage hint, and exit 1 as for any run that failed.
    if (error instanceof ControlError) {
      process.stderr.write(`mailtwin ${command}: ${error.message} (${error.code})\n`);
      return 1;
    }
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`mailtwin ${command}: ${error.message} (run with --help for usage)\n`);
    return 2;
  }
}

/**
 * Opens the store, loads the fixture into it when it is empty, listens, and prints the banner
 * once listening. Stops cleanly on SIGINT/SIGTERM, or when its launcher goes away. Configuration
 * errors throw UsageError or FixtureError before anything listens.
 */
async function startServer(options: ServeOptions): Promise<void> {
  // Before anything opens or listens: a binding that cannot be spoken is a configuration error.
  const spoken = await resolveServeBinding(options);
  const store = openStoreAt(options.db);
  // A --db file's WAL is flushed and checkpointed off the requests' path (issue 31 item 1); this
  // stops by itself once the store is closed.
  if (options.db !== null) new WalCheckpoints(store.db);
  try {
    // The clock keeps its offset with the data: a restart on a --db file does not move time back.
    const clock = new ControllableClock(Date.now, {
      load: () => store.settings.readClock(),
      save: (state) => store.settings.writeClock(state),
    });
    const deps = defaultDeps({
      store,
      clock,
      controlToken: options.controlToken,
      maxRequestBytes: options.maxRequestBytes,
      hosts: { allowed: options.allowedHosts, boundHost: options.host },
      allowLoopbackWebhooks: options.allowLoopbackWebhooks,
      webhookTimeoutMs: options.webhookTimeoutMs,
      rateLimit: options.rateLimit,
      deliveryDelayMs: options.deliveryDelayMs,
      binding: spoken?.binding ?? null,
      responseCache: options.responseCache,
    });
    const services = createServices(deps);
    reportCacheCountsOnExit(services);
    const loaded = await loadInitialData(services, options.fixtures);
    const app = createApp(deps, services);
    const log = options.log === null ? null : new RequestLog(services, options.log);
    const { server, address } = await listen(log?.wrap(app.fetch) ?? app.fetch, options);
    const smtp = await listenSmtp(services, options, log).catch((error: unknown) => {
      server.close(); // nothing may keep listening after a configuration error
      throw error;
    });
    stopWhenTold(server, services, smtp);
    const origin = `http://${formatHost(address.address)}:${address.port}`;
    deps.selfOrigin.value = origin;
    services.dispatcher.start(); // also resumes retries a --db file had pending
    const demo = await demonstrateWebhook(services, loaded);
    const fixturePath = options.fixtures === null ? null : displayPath(options.fixtures);
    const secrets =
      loaded.kind === 'fixture'
        ? loadedSecrets(loaded.summary)
        : loaded.kind === 'existing'
          ? await recoverSecrets(services, options.fixtures)
          : loadedSecrets(undefined);
    process.stdout.write(
      banner({
        origin,
        options,
        loaded,
        secrets,
        fixturePath,
        services,
        demo,
        smtpUrl: smtp?.url ?? null,
        pid: process.pid,
        bindingSource: spoken?.source ?? null,
      }),
    );
    if (options.readyFile !== null) {
      const remove = writeReadyFile(options.readyFile, {
        origin,
        baseUrl: `${origin}/openapi/v1`,
        controlUrl: `${origin}/_mailtwin/v1`,
        controlToken: deps.controlToken,
        smtpUrl: smtp?.url ?? null,
        pid: process.pid,
      });
      process.once('exit', remove);
    }
    log?.start(); // after the banner, so it stays one block
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
  const isBusy = (error: unknown) => (error as { code?: unknown }).code === 'SQLITE_BUSY';
  try {
    try {
      return openStore(path, { lockWaitMs: 0 });
    } catch (error) {
      if (!isBusy(error)) throw error;
      // An emulator stopped just before may take its grace period to let go of the file.
      process.stderr.write(
        `mailtwin serve: --db ${path} is held by another process; waiting up to ${DB_LOCK_WAIT_MS / 1000} s for it\n`,
      );
      return openStore(path, { lockWaitMs: DB_LOCK_WAIT_MS });
    }
  } catch (error) {
    if (isBusy(error)) {
      throw new UsageError(
        `--db ${path}: the file is in use by another process (another mailtwin serve?); an emulator holds its file for as long as it runs`,
      );
    }
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
  const summary = await loadFixtureFile(services, path);
  return { kind: 'fixture', path, summary };
}

/**
 * Long query strings (a 5,000-character `q`) reach the app and get its 400 with `field`; only
 * beyond this Node itself answers 431.
 */
const MAX_HEADER_BYTES = 64 * 1024;

function listen(
  fetch: (request: Request) => Response | Promise<Response>,
  options: ServeOptions,
): Promise<{ server: Server; address: AddressInfo }> {
  return new Promise((resolve, reject) => {
    const server = serveWithJsonErrors(
      {
        fetch,
        port: options.port,
        hostname: options.host,
        serverOptions: { maxHeaderSize: MAX_HEADER_BYTES },
        maxBodyBytes: options.maxRequestBytes,
        settlePath: '/readyz',
      },
      (address) => {
        server.off('error', onError);
        resolve({ server, address });
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

/** The SMTP ingress (issue 17), on the API's host; null with --no-smtp. */
async function listenSmtp(
  services: Services,
  options: ServeOptions,
  log: RequestLog | null,
): Promise<SmtpIngress | null> {
  if (options.smtpPort === null) return null;
  // smtp-server loads only when SMTP is on, and after the HTTP server listens.
  const { startSmtpIngress } = await import('./smtp/smtp-ingress.ts');
  try {
    return await startSmtpIngress(
      {
        store: services.deps.store,
        inbound: services.inbound,
        chaos: services.chaos,
        maxMessageBytes: options.maxRequestBytes,
        limits: options.smtpLimits,
        ...(log === null ? {} : { onMessage: (outcome: SmtpOutcome) => log.smtpMessage(outcome) }),
      },
      options.host,
      options.smtpPort,
    );
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const reason = code === 'EADDRINUSE' ? 'the port is already in use' : (error as Error).message;
    throw new UsageError(
      `cannot listen for SMTP on ${options.host}:${options.smtpPort}: ${reason} (--smtp-port, --no-smtp)`,
    );
  }
}

/** How long requests in progress may take to finish once the server is told to stop. */
const STOP_GRACE_MS = 5_000;
/** How long a start waits for a --db file another process holds: a stopping emulator's grace. */
const DB_LOCK_WAIT_MS = STOP_GRACE_MS + 2_000;

/**
 * Stops on SIGINT or SIGTERM, or when the launcher (`npm start`, `npx mailtwin serve`) went
 * away: stops listening at once, keeps the clock's current instant with the data, lets requests
 * in progress finish, closes the store and exits 0.
 */
function stopWhenTold(server: Server, services: Services, smtp: SmtpIngress | null): void {
  let stopping = false;
  const stop = (reason: string) => {
    if (stopping) return;
    stopping = true;
    process.stderr.write(`mailtwin: ${reason}, stopping\n`);
    services.dispatcher.stop();
    services.deps.events.publish({ type: 'emulator.stopping' }); // ends event streams
    services.localDelivery.stop(); // mail still on its way is lost (see --help)
    try {
      services.deps.clock.checkpoint();
    } catch (error) {
      process.stderr.write(`mailtwin: could not keep the clock (${(error as Error).message})\n`);
    }
    void smtp?.close();
    // Once the requests in progress are answered: render threads ended, then the store.
    server.close(() => {
      closeServices(services).then(
        () => process.exit(0),
        (error: unknown) => {
          process.stderr.write(`mailtwin: could not stop cleanly (${(error as Error).message})\n`);
          process.exit(1);
        },
      );
    });
    server.closeIdleConnections(); // keep-alive connections would hold the close back
    // A request that never ends (a client gone quiet) does not keep it from stopping.
    setTimeout(() => server.closeAllConnections(), STOP_GRACE_MS).unref();
  };
  process.once('SIGINT', () => stop('SIGINT received'));
  process.once('SIGTERM', () => stop('SIGTERM received'));
  watchLauncher((pid) => stop(`its launcher (pid ${pid}) went away`));
}

/**
 * With `MAILTWIN_CACHE_COUNTS=1` in the environment (`npm run bench` sets it), the response
 * cache's hits and misses go to stderr as the process exits, so a load run can print its ratio.
 */
function reportCacheCountsOnExit(services: Services): void {
  if (process.env.MAILTWIN_CACHE_COUNTS !== '1') return;
  process.once('exit', () => {
    const { hits, misses } = services.responseCache.counts;
    process.stderr.write(`mailtwin: response cache ${hits} hits, ${misses} misses\n`);
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

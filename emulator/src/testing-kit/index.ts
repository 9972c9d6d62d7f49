/**
 * `mailtwin/testing` (issue 30 item 4): what a client developer's test suite needs from the
 * emulator. Start it in this process or as a child on a free port, make a tenant per test
 * worker (a private world, D-70), wait for mail without polling (D-71), read the outbox, move
 * the clock, arm chaos. docs/testing-kit.md has the vitest and jest recipes.
 *
 * ```ts
 * import { startMailtwin } from 'mailtwin/testing';
 * const server = await startMailtwin();            // in process, port 0
 * const tenant = await server.mailtwin.createTenant();
 * await tenant.send({ to: tenant.mailboxes[1], subject: 'Hi', text: 'Hello' });
 * const [mail] = await tenant.waitForMail({ mailbox: tenant.mailboxes[1], subject: 'Hi' });
 * await server.stop();
 * ```
 *
 * @packageDocumentation
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { packagePath } from '../package-root.ts';
import { Mailtwin, type MailtwinEndpoint } from './client.ts';

export * from './client.ts';

/** How `startMailtwin` runs the emulator. */
export interface StartOptions {
  /**
   * `in-process` (default): the emulator answers on a socket of this process, with an empty
   * in-memory store. `child`: `mailtwin serve` in a child process (`--ready-file`), for a
   * process that must not hold the emulator, or a global setup shared by workers.
   */
  mode?: 'in-process' | 'child';
  /** 0 (default): a free port. */
  port?: number;
  /** The control plane's token; random when absent. */
  controlToken?: string;
  /** Child mode: more `mailtwin serve` flags (e.g. `['--smtp-port', '0']`). */
  args?: string[];
  /** Child mode: how long to wait for it to answer; 60000 ms when absent. */
  startTimeoutMs?: number;
}

/** A running emulator. */
export interface RunningMailtwin extends MailtwinEndpoint {
  /** The API's base URL (§5 rule 5). */
  baseUrl: string;
  /** A client of its control plane. */
  mailtwin: Mailtwin;
  /** Variables to hand to test workers (`MAILTWIN_ORIGIN`, `MAILTWIN_CONTROL_TOKEN`). */
  env: Record<'MAILTWIN_ORIGIN' | 'MAILTWIN_CONTROL_TOKEN', string>;
  stop(): Promise<void>;
}

/** Starts an emulator on a free port (in this process unless `mode: 'child'`). */
export async function startMailtwin(options: StartOptions = {}): Promise<RunningMailtwin> {
  const controlToken = options.controlToken ?? `mt_${randomBytes(24).toString('base64url')}`;
  const started =
    options.mode === 'child'
      ? await startChild(controlToken, options)
      : await startInProcess(controlToken, options.port ?? 0);
  const endpoint = { origin: started.origin, controlToken };
  return {
    ...endpoint,
    baseUrl: `${started.origin}/openapi/v1`,
    mailtwin: new Mailtwin(endpoint),
    env: { MAILTWIN_ORIGIN: started.origin, MAILTWIN_CONTROL_TOKEN: controlToken },
    stop: started.stop,
  };
}

/**
 * A client of the emulator a global setup started, from the variables it handed to workers
 * (`RunningMailtwin.env`), or from `mailtwin serve --ready-file`'s file (`MAILTWIN_READY_FILE`).
 */
export function connectMailtwin(env: Record<string, string | undefined> = process.env): Mailtwin {
  if (env.MAILTWIN_READY_FILE !== undefined) {
    const ready = JSON.parse(readFileSync(env.MAILTWIN_READY_FILE, 'utf8')) as MailtwinEndpoint;
    return new Mailtwin({ origin: ready.origin, controlToken: ready.controlToken });
  }
  const origin = env.MAILTWIN_ORIGIN;
  const controlToken = env.MAILTWIN_CONTROL_TOKEN;
  if (origin === undefined || controlToken === undefined) {
    throw new Error(
      'mailtwin/testing: set MAILTWIN_ORIGIN and MAILTWIN_CONTROL_TOKEN (RunningMailtwin.env) or MAILTWIN_READY_FILE',
    );
  }
  return new Mailtwin({ origin, controlToken });
}

async function startInProcess(
  controlToken: string,
  port: number,
): Promise<{ origin: string; stop: () => Promise<void> }> {
  // Loaded only here: a worker that connects to a running emulator never loads the emulator.
  const { inProcessEmulator } = await import('../in-process.ts');
  const { serveWithJsonErrors } = await import('../http/node-server.ts');
  const emulator = inProcessEmulator({
    controlToken,
    allowLoopbackWebhooks: true,
    logError: (error) => console.error('[mailtwin] unexpected error', error),
  });
  return new Promise((resolve) => {
    const server = serveWithJsonErrors(
      {
        fetch: (request) => emulator.fetch(request),
        port,
        hostname: '127.0.0.1',
        settlePath: '/readyz',
      },
      (info) =>
        resolve({
          origin: `http://127.0.0.1:${info.port}`,
          stop: () =>
            new Promise<void>((done) => {
              server.close(() => done());
              server.closeAllConnections();
            }),
        }),
    );
  });
}

async function startChild(
  controlToken: string,
  options: StartOptions,
): Promise<{ origin: string; stop: () => Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'mailtwin-kit-'));
  const readyFile = join(dir, 'ready.json');
  const child = spawn(
    process.execPath,
    [
      packagePath('bin/mailtwin.js'),
      'serve',
      '--port',
      String(options.port ?? 0),
      '--no-demo',
      '--no-smtp',
      '--quiet',
      '--allow-loopback-webhooks',
      '--control-token',
      controlToken,
      '--ready-file',
      readyFile,
      ...(options.args ?? []),
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const deadline = Date.now() + (options.startTimeoutMs ?? 60_000);
  // The file appears once the emulator answers; its start takes about half a second.
  while (!existsSync(readyFile)) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
      throw new Error(`mailtwin serve did not start: ${stderr.trim() || 'timed out'}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  const { origin } = JSON.parse(readFileSync(readyFile, 'utf8')) as { origin: string };
  return {
    origin,
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

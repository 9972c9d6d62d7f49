/**
 * What the Prism tests share: a free loopback port, the emulator on a real socket (recording the
 * requests it receives), Prism as a child process (waited for until it answers), and
 * `mailtwin-conformance` as a child process whose report.json is read back. Prism validates
 * against spec/openapi.yaml on its own (its own router and validator), so a run through it is a
 * check of the suite and the emulator by a third party.
 *
 * Nothing here waits for a length of time and hopes: Prism is ready when it answers, its log is
 * complete when a marker request logged after everything else has arrived, and the emulator
 * never closes a connection Prism may still reuse (see IDLE_CONNECTION_MS). Deadlines are
 * safety nets far above the measured durations, never what an assertion depends on.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { serve, type ServerType } from '@hono/node-server';
import { createApp, defaultDeps } from '../../emulator/src/app.ts';
import type { AppDeps } from '../../emulator/src/deps.ts';
import type { JsonReport } from '../../conformance/src/report/json.ts';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url)).replace(/\/$/, '');
export const SPEC = join(ROOT, 'spec/openapi.yaml');
const PRISM = join(ROOT, 'node_modules/@stoplight/prism-cli/dist/index.js');
const CONFORMANCE = join(ROOT, 'bin/mailtwin-conformance.js');

/** A port nothing listens on right now: bind port 0, read the port, close. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A request as the emulator received it, and whether it has answered it yet. */
export interface ReceivedRequest {
  /** Lower case, as the spec's operations are keyed. */
  method: string;
  /** The path as received, e.g. `/openapi/v1/emails/…`. */
  path: string;
  answered: boolean;
}

export interface RunningEmulator {
  origin: string;
  /** Every request received so far, in order of arrival. */
  requests(): readonly ReceivedRequest[];
  close(): Promise<void>;
}

/**
 * How long the emulator keeps an idle keep-alive connection open here: longer than any test
 * run, so never while Prism may reuse it. Prism forwards with node-fetch through Node's global
 * agent, which keeps upstream connections alive and reuses them. While Prism handles a large
 * upload its event loop is blocked for seconds (it decodes the body and logs it, about a second
 * per MiB at `--verboseLevel info` on a busy machine); if the emulator closes the idle
 * connection meanwhile (Node's default keepAliveTimeout is 5 s), Prism never sees the close
 * and writes the forwarded upload into a dead socket: `write EPIPE`, answered by Prism itself
 * as a 500 FetchError. That was the flaky failure of the 6 MiB upload of issue 12 item 22.
 */
export const IDLE_CONNECTION_MS = 15 * 60_000;

/**
 * The emulator on 127.0.0.1 and a port of the system's choosing. Idle connections stay open
 * (IDLE_CONNECTION_MS) and an incomplete request is never timed out (`requestTimeout` 0), so
 * a request Prism leaves hanging stays visibly unanswered until Prism goes away.
 */
export async function startEmulator(overrides: Partial<AppDeps>): Promise<RunningEmulator> {
  const app = createApp(defaultDeps(overrides));
  const received: ReceivedRequest[] = [];
  const fetch = async (request: Request, env: unknown) => {
    const entry: ReceivedRequest = {
      method: request.method.toLowerCase(),
      path: new URL(request.url).pathname,
      answered: false,
    };
    received.push(entry);
    try {
      return await app.fetch(request, env);
    } finally {
      entry.answered = true;
    }
  };
  let server: ServerType | undefined;
  const port = await new Promise<number>((resolve) => {
    server = serve({ fetch, hostname: '127.0.0.1', port: 0 }, (info) => resolve(info.port));
  });
  const http = server as ServerType & { keepAliveTimeout: number; requestTimeout: number };
  http.keepAliveTimeout = IDLE_CONNECTION_MS;
  http.requestTimeout = 0;
  return {
    origin: `http://127.0.0.1:${port}`,
    requests: () => received,
    close: () =>
      new Promise<void>((resolve) => {
        // Prism keeps connections alive; drop them so close() returns.
        (server as { closeAllConnections?: () => void }).closeAllConnections?.();
        server!.close(() => resolve());
      }),
  };
}

export interface RunningPrism {
  url: string;
  /** Everything Prism wrote so far (stdout and stderr as received), without the harness's own requests. */
  log(): string;
  /**
   * Resolves once every line Prism logged for the requests it answered so far is in log().
   * Prism logs through a stream pipeline that runs after it has replied, so a reply can arrive
   * before its log line; this sends a marker request that Prism answers itself and waits for
   * the marker's log line, which the pipeline (first in, first out) writes after all of those.
   */
  flushed(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * The suite's flags for a run against `prism mock` of the spec at `url` (static mode: every
 * answer is the spec's example): the example's API key and mailbox (the preflight asks for one
 * that GET /mailboxes lists), destructive checks on, no rate limit. One list for the Prism test
 * and `npm run can-fail`, so both judge the same run.
 */
export function prismMockRunFlags(url: string): string[] {
  return [
    '--base-url',
    url,
    '--unversioned-base-url',
    '--api-key',
    'sk-PrismMock01_0123456789abcdefghijABCDEFGHIJ01',
    '--destructive',
    '--mailbox',
    'hello@acme.test',
    '--seed',
    '1',
    '--max-rps',
    '0',
  ];
}

/** The path prefix of the requests the harness itself sends to Prism (not in the spec). */
const HARNESS_PATH = '/mailtwin-harness';

/**
 * Starts `prism <args> -h 127.0.0.1 -p <free port>` and resolves once it answers a request
 * itself (its 404 for a path outside the spec): at any `--verboseLevel`, and never fooled by
 * another program on that port. Rejects with its output if it exits first or does not answer
 * within `timeoutMs`.
 */
export async function startPrism(args: string[], timeoutMs = 60_000): Promise<RunningPrism> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, [PRISM, ...args, '-h', '127.0.0.1', '-p', String(port)], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, FORCE_COLOR: '0' },
  });
  let output = '';
  const waiters = new Set<() => void>();
  const onData = (chunk: Buffer) => {
    output += chunk.toString('utf8');
    for (const waiter of waiters) waiter();
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  const exited = new Promise<never>((_resolve, reject) =>
    child.once('exit', (code, signal) =>
      reject(new Error(`prism exited (${code ?? signal}):\n${output}`)),
    ),
  );
  exited.catch(() => {});

  /** Waits until Prism's output contains `text`, or fails with the output after `ms`. */
  const outputContains = (text: string, ms: number) =>
    new Promise<void>((resolve, reject) => {
      const check = () => {
        if (!output.includes(text)) return;
        waiters.delete(check);
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        waiters.delete(check);
        reject(new Error(`prism did not log ${text} within ${ms} ms:\n${output.slice(-4000)}`));
      }, ms);
      waiters.add(check);
      check();
    });

  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const answer = await Promise.race([
      fetch(`${url}${HARNESS_PATH}/ready`, { signal: AbortSignal.timeout(5_000) })
        .then((response) => response.text())
        .catch(() => ''),
      exited,
    ]).catch((error: Error) => {
      throw new Error(`prism did not start: ${error.message}`);
    });
    if (answer.includes('prism/errors#NO_PATH_MATCHED_ERROR')) break;
    if (performance.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`prism did not answer within ${timeoutMs} ms:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    url,
    log: () =>
      output
        .split('\n')
        .filter((line) => !line.includes(HARNESS_PATH))
        .join('\n'),
    flushed: async () => {
      const marker = `${HARNESS_PATH}/flushed/${randomUUID()}`;
      await (await fetch(`${url}${marker}`, { signal: AbortSignal.timeout(60_000) })).arrayBuffer();
      await outputContains(marker, 60_000);
    },
    stop: () => stopChild(child),
  };
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
  await exited;
  clearTimeout(timer);
}

export interface ConformanceRun {
  exitCode: number | null;
  stdout: string;
  stderr: string;
  report: JsonReport;
  durationMs: number;
}

/**
 * Runs `mailtwin-conformance <args> --report json --report-dir <temporary>` as a child process
 * (asynchronously: the emulator it may talk to lives in this process) and reads report.json.
 * `timeoutMs` only stops a run that hangs: a run through Prism takes 1.5-2 min on these 2 cores
 * at a load of 6, and went past 4.5 min at a load of 15 (other jobs sharing the machine).
 */
export async function runConformance(args: string[], timeoutMs = 600_000): Promise<ConformanceRun> {
  const reportDir = mkdtempSync(join(tmpdir(), 'mailtwin-prism-'));
  const started = performance.now();
  try {
    const child = spawn(
      process.execPath,
      [CONFORMANCE, ...args, '--report', 'json', '--report-dir', reportDir],
      { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: conformanceEnv() },
    );
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    const exitCode = await new Promise<number | null>((resolve) =>
      child.once('exit', (code) => resolve(code)),
    );
    clearTimeout(timer);
    let report: JsonReport;
    try {
      report = JSON.parse(readFileSync(join(reportDir, 'report.json'), 'utf8')) as JsonReport;
    } catch (error) {
      throw new Error(
        `mailtwin-conformance exited ${exitCode} without a readable report.json (${(error as Error).message})\n` +
          `stdout:\n${stdout.slice(-4000)}\nstderr:\n${stderr.slice(-4000)}`,
      );
    }
    return { exitCode, stdout, stderr, report, durationMs: performance.now() - started };
  } finally {
    rmSync(reportDir, { recursive: true, force: true });
  }
}

/**
 * The child's environment without this vitest run's own settings and secrets of the suite, and
 * with one worker. Prism runs on one thread and blocks on a large body (seconds on a busy
 * machine); a second worker's request sent meanwhile on a keep-alive connection Prism was about
 * to close as idle would be dropped unread when Prism's overdue idle timer fires first (a reset,
 * which the suite reports as a failure). One worker sends one request at a time, so no request
 * waits on an idle connection. On 2 cores the suite runs one worker anyway.
 */
function conformanceEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, FORCE_COLOR: '0', NO_COLOR: '1' };
  for (const name of Object.keys(env)) {
    if (name.startsWith('VITEST') || name.startsWith('MAILTWIN_')) delete env[name];
  }
  delete env.NODE_ENV;
  delete env.TEST;
  env.VITEST_MAX_WORKERS = '1';
  // For the same reason, one check and one case at a time (checks run side by side otherwise).
  env.MAILTWIN_CONFORMANCE_CONCURRENCY = '1';
  return env;
}

type ReportCheck = JsonReport['checks'][number];

/** The checks that failed, each once with its rules and whole failure text. */
export function failedChecks(report: JsonReport): ReportCheck[] {
  return report.checks.filter((check) => check.state === 'failed');
}

/** A failed check as a reader of an assertion message needs it: where, what, and why. */
export function describeCheck(check: ReportCheck): string {
  return `--- ${check.file}: ${check.name}\n${check.errors.join('\n')}`;
}

/** Rule ids by status, sorted, from report.json's `rules`. */
export function ruleIds(report: JsonReport, status: JsonReport['rules'][number]['status']) {
  return report.rules
    .filter((rule) => rule.status === status)
    .map((rule) => rule.id)
    .sort();
}

export interface SpecOperation {
  operationId: string;
  method: string;
  template: string;
  regex: RegExp;
}

/** The operations under `paths` of spec/openapi.yaml (webhooks are not served, so not here). */
export function specOperations(): SpecOperation[] {
  const spec = parse(readFileSync(SPEC, 'utf8')) as {
    paths: Record<string, Record<string, { operationId?: string }>>;
  };
  const methods = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
  return Object.entries(spec.paths).flatMap(([template, item]) =>
    methods.flatMap((method) => {
      const operation = item[method];
      if (operation === undefined) return [];
      const pattern = template
        .split('/')
        .map((segment) =>
          /^\{.+\}$/.test(segment) ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'),
        )
        .join('/');
      return [
        {
          operationId: String(operation.operationId),
          method,
          template,
          regex: new RegExp(`^${pattern}$`),
        },
      ];
    }),
  );
}

/** The operation a request goes to; a literal segment wins (`/emails/send` over `{emailId}`). */
export function operationOf(
  operations: readonly SpecOperation[],
  method: string,
  path: string,
): SpecOperation | undefined {
  const literals = (template: string) => template.split('/').filter((s) => !s.startsWith('{'));
  return operations
    .filter((op) => op.method === method.toLowerCase() && op.regex.test(path))
    .sort((a, b) => literals(b.template).length - literals(a.template).length)[0];
}

/**
 * The requests under `prefix` among `requests`, with `prefix` cut from their paths. Given the
 * emulator's requests and `/openapi/v1`, while Prism is the only client of that path: what Prism
 * forwarded (and then validated the answer of), counted where it arrived rather than read from
 * Prism's log.
 */
export function requestsUnder(
  requests: readonly ReceivedRequest[],
  prefix: string,
): ReceivedRequest[] {
  return requests
    .filter((request) => request.path.startsWith(`${prefix}/`))
    .map((request) => ({ ...request, path: request.path.slice(prefix.length) }));
}

/**
 * What Prism answered itself instead of the upstream, by its error type: its log's
 * `Request terminated with error: <type>: <title>` lines, counted.
 */
export function prismOwnAnswers(log: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const match of log.matchAll(/Request terminated with error: (\S+?):? (.*)$/gm)) {
    const key = `${match[1]} ${match[2]}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts;
}

/**
 * The response violations Prism logged: with `--errors` an error-level one turns the response
 * into a 500 `…#VIOLATIONS` (logged as a terminated request); a warning-level one is logged as
 * `Violation: response…`.
 */
export function responseViolations(log: string): string[] {
  return log
    .split('\n')
    .filter((line) => /errors#VIOLATIONS|Violation: response/.test(line))
    .map((line) => line.trim());
}

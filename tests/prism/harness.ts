/**
 * What the Prism tests share: a free loopback port, the emulator on a real socket, Prism as a
 * child process (waited for until it says it listens), and `mailtwin-conformance` as a child
 * process whose report.json is read back. Prism validates against spec/openapi.yaml on its own
 * (its own router and validator), so a run through it is a check of the suite and the emulator
 * by a third party.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { serve, type ServerType } from '@hono/node-server';
import { createApp, defaultDeps, type AppDeps } from '../../emulator/src/app.ts';
import type { JsonReport } from '../../conformance/src/report-json.ts';

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

export interface RunningEmulator {
  origin: string;
  close(): Promise<void>;
}

/** The emulator on 127.0.0.1 and a port of the system's choosing. */
export async function startEmulator(overrides: Partial<AppDeps>): Promise<RunningEmulator> {
  const app = createApp(defaultDeps(overrides));
  let server: ServerType | undefined;
  const port = await new Promise<number>((resolve) => {
    server = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, (info) =>
      resolve(info.port),
    );
  });
  return {
    origin: `http://127.0.0.1:${port}`,
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
  /** Everything Prism wrote so far, stdout and stderr interleaved as received. */
  log(): string;
  /** Resolves once Prism has written nothing for `quietMs` (its logger writes after replying). */
  settled(quietMs?: number): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Starts `prism <args> -h 127.0.0.1 -p <free port>` and resolves once it logs that it is
 * listening; rejects with its output if it exits first or takes longer than `timeoutMs`.
 */
export async function startPrism(args: string[], timeoutMs = 45_000): Promise<RunningPrism> {
  const port = await freePort();
  const child = spawn(process.execPath, [PRISM, ...args, '-h', '127.0.0.1', '-p', String(port)], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, FORCE_COLOR: '0' },
  });
  let output = '';
  let lastOutput = performance.now();
  const onData = (chunk: Buffer) => {
    output += chunk.toString('utf8');
    lastOutput = performance.now();
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`prism did not start listening within ${timeoutMs} ms:\n${output}`));
    }, timeoutMs);
    const watch = () => {
      if (/Prism is listening on/.test(output)) {
        clearTimeout(timer);
        child.stdout!.off('data', watch);
        resolve();
      }
    };
    child.stdout!.on('data', watch);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`prism exited (${code ?? signal}) before listening:\n${output}`));
    });
  });
  return {
    url: `http://127.0.0.1:${port}`,
    log: () => output,
    settled: async (quietMs = 300) => {
      while (performance.now() - lastOutput < quietMs) {
        await new Promise((resolve) => setTimeout(resolve, quietMs / 3));
      }
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
 */
export async function runConformance(args: string[], timeoutMs = 170_000): Promise<ConformanceRun> {
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

/** The child's environment without this vitest run's own settings and secrets of the suite. */
function conformanceEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, FORCE_COLOR: '0', NO_COLOR: '1' };
  for (const name of Object.keys(env)) {
    if (name.startsWith('VITEST') || name.startsWith('MAILTWIN_')) delete env[name];
  }
  delete env.NODE_ENV;
  delete env.TEST;
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
 * The requests Prism forwarded to `upstream` (and then validated the response of), read from
 * its `--verboseLevel info` log: one `> Forwarding "<method>" request to <url>...` line each.
 */
export function forwardedRequests(
  log: string,
  upstream: string,
): { method: string; path: string }[] {
  const requests: { method: string; path: string }[] = [];
  for (const match of log.matchAll(/> Forwarding "(\w+)" request to (\S+?)\.\.\.$/gm)) {
    const url = new URL(match[2]!);
    const path = url.pathname.startsWith(`${new URL(upstream).pathname}/`)
      ? url.pathname.slice(new URL(upstream).pathname.length)
      : url.pathname;
    requests.push({ method: match[1]!.toLowerCase(), path });
  }
  return requests;
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

/**
 * Paths Prism forwarded more often than the upstream answered them: requests the emulator never
 * answered, as Prism saw it (`The upstream call to <path> has returned <status>` is missing).
 */
export function unansweredForwards(log: string, upstream: string): string[] {
  const balance = new Map<string, number>();
  for (const request of forwardedRequests(log, upstream)) {
    balance.set(request.path, (balance.get(request.path) ?? 0) + 1);
  }
  for (const match of log.matchAll(/The upstream call to (\S+) has returned \d+/g)) {
    balance.set(match[1]!, (balance.get(match[1]!) ?? 0) - 1);
  }
  return [...balance].filter(([, n]) => n > 0).map(([path]) => path);
}

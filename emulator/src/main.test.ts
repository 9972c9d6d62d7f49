import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, describe, expect, it } from 'vitest';

// `mailtwin serve` as people run it: a child process on a real loopback port.
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const START_TIMEOUT_MS = 30_000;
const running = new Set<ChildProcess>();
const scratch = mkdtempSync(join(tmpdir(), 'mailtwin-main-'));

interface Started {
  child: ChildProcess;
  stdout: string;
  vars: Record<string, string>;
}

/** Spawns `mailtwin serve`; resolves once the last KEY=value line (the control token) is out. */
function startServe(args: string[]): Promise<Started> {
  const child = spawn(process.execPath, ['bin/mailtwin.js', 'serve', ...args], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  return new Promise((resolve, reject) => {
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(
      () => reject(new Error(`no banner after ${START_TIMEOUT_MS} ms:\n${stdout}\n${stderr}`)),
      START_TIMEOUT_MS,
    );
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      // The banner is one write ending with its KEY=value lines (the webhook secret, if any, last).
      if (/MAILTWIN_CONTROL_TOKEN=[^\n]*\n(?:MAILTWIN_WEBHOOK_SECRET=[^\n]*\n)?$/.test(stdout)) {
        clearTimeout(timer);
        resolve({ child, stdout, vars: keyValues(stdout) });
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`mailtwin serve exited with ${code} before its banner:\n${stderr}`));
    });
  });
}

/** Runs `mailtwin serve` expecting it to exit on its own (bad configuration). */
function runToExit(
  args: string[],
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ['bin/mailtwin.js', 'serve', ...args], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, stdout, stderr })));
}

function keyValues(stdout: string): Record<string, string> {
  return Object.fromEntries(
    stdout
      .split('\n')
      .map((line) => /^(MAILTWIN_[A-Z_]+)=(.*)$/.exec(line))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => [m[1], m[2]]),
  );
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

afterEach(async () => {
  await Promise.all([...running].map(stop));
  running.clear();
});

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('mailtwin serve', () => {
  it(
    'prints the KEY=value lines last and serves the demo data to the printed key',
    async () => {
      const { stdout, vars } = await startServe(['--port', '0']);
      const lines = stdout.trimEnd().split('\n');
      expect(lines.slice(-5).map((l) => l.split('=')[0])).toEqual([
        'MAILTWIN_BASE_URL',
        'MAILTWIN_API_KEY',
        'MAILTWIN_CONTROL_URL',
        'MAILTWIN_CONTROL_TOKEN',
        'MAILTWIN_WEBHOOK_SECRET',
      ]);
      expect(vars.MAILTWIN_WEBHOOK_SECRET).toMatch(/^whsec_[A-Za-z0-9]{24,64}$/);
      const base = vars.MAILTWIN_BASE_URL ?? '';
      expect(base).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/openapi\/v1$/);
      expect(base).not.toMatch(/:0\//);
      expect(vars.MAILTWIN_CONTROL_URL).toBe(base.replace('/openapi/v1', '/_mailtwin/v1'));
      expect(vars.MAILTWIN_API_KEY).toMatch(/^sk-[A-Za-z0-9]{12}_[A-Za-z0-9]{32}$/);
      expect(vars.MAILTWIN_CONTROL_TOKEN).toMatch(/^\S{16,}$/);
      expect(stdout).toMatch(/Loaded .*demo\.json: \d+ owners, \d+ mailboxes, \d+ emails/);
      expect(stdout).toContain(`Demo app`);
      expect(stdout).not.toContain('webhook targets on loopback are allowed');

      const response = await fetch(`${base}/mailboxes`, {
        headers: { Authorization: `Bearer ${vars.MAILTWIN_API_KEY}` },
      });
      expect(response.status).toBe(200);
      const mailboxes = (await response.json()) as { address: string }[];
      expect(Array.isArray(mailboxes)).toBe(true);
      expect(mailboxes.length).toBeGreaterThan(0);
    },
    START_TIMEOUT_MS + 10_000,
  );

  it(
    'starts empty with --no-demo: no MAILTWIN_API_KEY, the given control token, loopback note',
    async () => {
      const { stdout, vars } = await startServe([
        '--port',
        '0',
        '--no-demo',
        '--control-token',
        'mt_test_token_123',
        '--allow-loopback-webhooks',
      ]);
      expect(Object.keys(vars)).toEqual([
        'MAILTWIN_BASE_URL',
        'MAILTWIN_CONTROL_URL',
        'MAILTWIN_CONTROL_TOKEN',
      ]);
      expect(vars.MAILTWIN_CONTROL_TOKEN).toBe('mt_test_token_123');
      expect(stdout).toContain('webhook targets on loopback are allowed');
      expect(stdout).toContain('nothing (--no-demo)');
      const response = await fetch(`${vars.MAILTWIN_BASE_URL}/mailboxes`, {
        headers: { Authorization: 'Bearer sk-AcmeDemoApp1_00000000000000000000000000000000' },
      });
      expect(response.status).toBe(401);
    },
    START_TIMEOUT_MS + 10_000,
  );

  it(
    'keeps a --db file across restarts and loads the demo only into the empty store',
    async () => {
      const db = join(scratch, 'mail.db');
      const first = await startServe(['--port', '0', '--db', db]);
      const key = first.vars.MAILTWIN_API_KEY;
      expect(key).toBeDefined();
      await stop(first.child);

      const second = await startServe(['--port', '0', '--db', db]);
      expect(second.vars.MAILTWIN_API_KEY).toBeUndefined();
      expect(second.stdout).toMatch(/nothing: the database already holds 2 owners/);
      const response = await fetch(`${second.vars.MAILTWIN_BASE_URL}/mailboxes`, {
        headers: { Authorization: `Bearer ${key}` },
      });
      expect(response.status).toBe(200);
      expect(((await response.json()) as unknown[]).length).toBeGreaterThan(0);
    },
    2 * START_TIMEOUT_MS + 10_000,
  );

  it.each([
    [['--port', 'abc'], /^mailtwin serve: --port must be an integer from 0 to 65535, got "abc"\n$/],
    [['--prot', '1'], /^mailtwin serve: unknown option --prot/],
    [['--db', '/nonexistent-dir/mail.db'], /--db .*: the directory .* does not exist/],
    [['--fixtures', 'no/such/fixture.json'], /cannot read fixture .* \(no such file\)/],
  ])(
    'exits with status 2 and a one-line reason for %j',
    async (args, reason) => {
      // Should any of them start by mistake, it takes a free port, not 4025.
      const { code, stdout, stderr } = await runToExit(
        args.includes('--port') ? args : [...args, '--port', '0'],
      );
      expect(code).toBe(2);
      expect(stdout).toBe('');
      expect(stderr).toMatch(reason);
      expect(stderr.trimEnd().split('\n')).toHaveLength(1);
    },
    START_TIMEOUT_MS,
  );

  it(
    'exits with status 2 naming the JSON path of an invalid fixture',
    async () => {
      const fixture = join(scratch, 'bad.json');
      writeFileSync(
        fixture,
        JSON.stringify({
          keys: [{ id: 'k', owner: 'o', name: 'n', scope: 'follow-owner', secret: 'sk-x' }],
        }),
      );
      const { code, stderr } = await runToExit(['--port', '0', '--fixtures', fixture]);
      expect(code).toBe(2);
      expect(stderr).toMatch(/bad\.json: \$\.keys\[0\]\.secret: must match/);
    },
    START_TIMEOUT_MS,
  );
});

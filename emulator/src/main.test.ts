import nodemailer from 'nodemailer';
import { spawn, type ChildProcess } from 'node:child_process';
import { connect } from 'node:net';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, describe, expect, it } from 'vitest';

// `mailtwin serve` as people run it: a child process on a real loopback port.
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const START_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 20_000;
const DAY_MS = 86_400_000;
const running = new Set<ChildProcess>();
const serverPids = new Set<number>();
const scratch = mkdtempSync(join(tmpdir(), 'mailtwin-main-'));

interface Started {
  child: ChildProcess;
  stdout: string;
  vars: Record<string, string>;
  /** Resolves once every writer of the child's stdout (launcher and server) has gone. */
  stdoutClosed: Promise<void>;
  stderr: () => string;
}

/** Spawns `mailtwin serve`; resolves once the banner's last line (MAILTWIN_PID) is out. */
function startServe(args: string[]): Promise<Started> {
  return launch(process.execPath, ['bin/mailtwin.js', 'serve', ...args]);
}

/** Spawns `npm start -- <args>`, the launcher the README gives. */
function startWithNpm(args: string[]): Promise<Started> {
  return launch('npm', ['start', '--', ...args], { npm_config_update_notifier: 'false' });
}

function launch(command: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<Started> {
  const child = spawn(command, args, {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  });
  running.add(child);
  const stdoutClosed = new Promise<void>((resolve) => child.stdout?.once('close', resolve));
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
      // The banner is one write ending with its KEY=value lines, MAILTWIN_PID last.
      if (/\nMAILTWIN_PID=\d+\n$/.test(stdout)) {
        clearTimeout(timer);
        const vars = keyValues(stdout);
        serverPids.add(Number(vars.MAILTWIN_PID));
        resolve({ child, stdout, vars, stdoutClosed, stderr: () => stderr });
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

/** Rejects unless `event` settles within `ms`; for events expected long before that. */
function within<T>(ms: number, event: Promise<T>, what: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms);
    event.then(
      (value) => (clearTimeout(timer), resolve(value)),
      (error: unknown) => (clearTimeout(timer), reject(error)),
    );
  });
}

async function control(
  vars: Record<string, string>,
  method: 'GET' | 'POST',
  path: string,
  body?: unknown,
): Promise<{ now: string; offsetMs: number }> {
  const response = await fetch(`${vars.MAILTWIN_CONTROL_URL}${path}`, {
    method,
    headers: {
      Authorization: `Bearer ${vars.MAILTWIN_CONTROL_TOKEN}`,
      'Content-Type': 'application/json',
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  expect(response.status).toBe(200);
  return (await response.json()) as { now: string; offsetMs: number };
}

/** The banner's lines that print an API key (`  API keys   Demo app  sk-...  scope (owner)`). */
function keyLines(stdout: string): string[] {
  return stdout.split('\n').filter((line) => /\ssk-\S+\s/.test(line));
}

afterEach(async () => {
  await Promise.all([...running].map(stop));
  running.clear();
  // A server its launcher failed to stop must not outlive the test.
  for (const pid of serverPids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  serverPids.clear();
});

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('mailtwin serve', () => {
  it(
    'prints the KEY=value lines last and serves the demo data to the printed key',
    async () => {
      const { child, stdout, vars } = await startServe(['--port', '0']);
      const lines = stdout.trimEnd().split('\n');
      expect(lines.slice(-7).map((l) => l.split('=')[0])).toEqual([
        'MAILTWIN_BASE_URL',
        'MAILTWIN_API_KEY',
        'MAILTWIN_CONTROL_URL',
        'MAILTWIN_CONTROL_TOKEN',
        'MAILTWIN_WEBHOOK_SECRET',
        'MAILTWIN_SMTP_URL',
        'MAILTWIN_PID',
      ]);
      expect(vars.MAILTWIN_PID).toBe(String(child.pid));
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

      // --port 0 picks a free SMTP port too; mail handed over there is listed by the API.
      const smtp = new URL(vars.MAILTWIN_SMTP_URL ?? '');
      expect(smtp.protocol).toBe('smtp:');
      expect(smtp.port).not.toBe('2525');
      const transport = nodemailer.createTransport({
        host: smtp.hostname,
        port: Number(smtp.port),
        ignoreTLS: true,
      });
      await transport.sendMail({
        from: 'carol@partner.test',
        to: mailboxes[0]!.address,
        subject: 'Handed over by SMTP',
        text: 'Hello.',
      });
      const query = new URLSearchParams({ mailbox: mailboxes[0]!.address, subject: 'SMTP' });
      const listed = await fetch(`${base}/emails?${query}`, {
        headers: { Authorization: `Bearer ${vars.MAILTWIN_API_KEY}` },
      });
      const { emails } = (await listed.json()) as { emails: { subject: string }[] };
      expect(emails.map((e) => e.subject)).toEqual(['Handed over by SMTP']);
    },
    START_TIMEOUT_MS + 10_000,
  );

  it(
    'gives the SMTP ingress its limits: beyond --smtp-max-clients a connection gets 421, and a session gets 421 4.4.2 at --smtp-session-timeout-ms',
    async () => {
      const { vars } = await startServe([
        '--port',
        '0',
        '--no-demo',
        '--quiet',
        '--smtp-max-clients',
        '1',
        '--smtp-session-timeout-ms',
        '1500',
      ]);
      const { hostname, port } = new URL(vars.MAILTWIN_SMTP_URL ?? '');
      /** Connects and resolves with each reply line as it comes, until the server closes. */
      const client = () => {
        const socket = connect(Number(port), hostname);
        const lines: string[] = [];
        const closed = new Promise<string[]>((resolve) => socket.on('close', () => resolve(lines)));
        socket.on('data', (chunk: Buffer) => lines.push(...chunk.toString().split('\r\n')));
        socket.on('error', () => {});
        return { socket, lines, closed };
      };
      const first = client();
      await new Promise((resolve) => first.socket.once('data', resolve));
      expect(first.lines[0]).toMatch(/^220 /);
      const second = client();
      expect((await second.closed).join('\n')).toMatch(/^421 .*Too many connected clients/);
      expect((await first.closed).join('\n')).toMatch(
        /^421 4\.4\.2 The session took longer than 1500 ms/m,
      );
    },
    START_TIMEOUT_MS + 10_000,
  );

  it(
    'answers what the server adapter refuses (a backslash in the path, bad HTTP) as JSON errors',
    async () => {
      const { vars } = await startServe(['--port', '0', '--no-demo']);
      const { hostname, port } = new URL(vars.MAILTWIN_BASE_URL ?? '');
      const rawRequest = (text: string) =>
        new Promise<string>((resolve, reject) => {
          const socket = connect(Number(port), hostname);
          let answer = '';
          socket.on('data', (chunk: Buffer) => (answer += chunk.toString()));
          socket.on('end', () => resolve(answer));
          socket.on('error', reject);
          socket.write(text);
        });
      const backslash = await rawRequest(
        `GET /openapi/v1/emails/a\\b HTTP/1.1\r\nHost: ${hostname}\r\nConnection: close\r\n\r\n`,
      );
      expect(backslash).toMatch(/^HTTP\/1\.1 400 /);
      expect(JSON.parse(backslash.split('\r\n\r\n')[1] ?? '')).toMatchObject({
        code: 'bad_request',
      });
      const garbage = await rawRequest('NOT HTTP\r\n\r\n');
      expect(garbage).toMatch(/^HTTP\/1\.1 400 /);
      expect(JSON.parse(garbage.split('\r\n\r\n')[1] ?? '')).toMatchObject({
        code: 'bad_request',
      });
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
        'MAILTWIN_SMTP_URL',
        'MAILTWIN_PID',
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
    'with --delivery-delay-ms, says so and delivers mail to a demo mailbox only once the clock passes the delay',
    async () => {
      // An hour: the test never lasts that long, so only the clock move can deliver.
      const { stdout, vars } = await startServe(['--port', '0', '--delivery-delay-ms', '3600000']);
      expect(stdout).toContain('arrives 3600000 ms after the send answers (--delivery-delay-ms)');
      const base = vars.MAILTWIN_BASE_URL ?? '';
      const api = { Authorization: `Bearer ${vars.MAILTWIN_API_KEY}` };
      const sent = await fetch(`${base}/emails/send`, {
        method: 'POST',
        headers: { ...api, 'Content-Type': 'application/json' },
        body: JSON.stringify({
          from: 'hello@acme.test',
          to: 'support@acme.test',
          subject: 'Delayed on purpose',
          text: 'x',
        }),
      });
      expect(sent.status).toBe(201);
      const subjects = async () => {
        const listed = await fetch(`${base}/emails?mailbox=support%40acme.test&folder=inbox`, {
          headers: api,
        });
        return ((await listed.json()) as { emails: { subject: string }[] }).emails.map(
          (e) => e.subject,
        );
      };
      expect(await subjects()).not.toContain('Delayed on purpose');
      const moved = await fetch(`${vars.MAILTWIN_CONTROL_URL}/clock`, {
        method: 'POST',
        headers: {
          Authorization: `Bearer ${vars.MAILTWIN_CONTROL_TOKEN}`,
          'Content-Type': 'application/json',
        },
        body: JSON.stringify({ advanceMs: 3_600_000 }),
      });
      expect(moved.status).toBe(200);
      expect(await subjects()).toContain('Delayed on purpose');
    },
    START_TIMEOUT_MS + 10_000,
  );

  it(
    'keeps a --db file across a SIGTERM and restart: the data, the clock offset and the banner',
    async () => {
      const db = join(scratch, 'mail.db');
      const args = ['--port', '0', '--db', db, '--control-token', 'mt_restart_token_123'];
      const first = await startServe(args);
      const key = first.vars.MAILTWIN_API_KEY;
      expect(key).toBeDefined();
      await control(first.vars, 'POST', '/clock', { advanceMs: 3 * DAY_MS });
      const before = await control(first.vars, 'GET', '/clock');
      await stop(first.child);

      const second = await startServe(args);
      expect(second.stdout).toMatch(/nothing: the database already holds 2 owners/);
      // The clock is where it was (plus the real time the restart took), never back.
      const after = await control(second.vars, 'GET', '/clock');
      expect(after.offsetMs).toBeGreaterThanOrEqual(3 * DAY_MS);
      expect(Date.parse(after.now)).toBeGreaterThanOrEqual(Date.parse(before.now));
      // The same KEY=value lines (the demo's secrets, checked against the stored hashes).
      const stable = (vars: Record<string, string>) => {
        // Each start picks its own free ports (--port 0): the API's and SMTP's.
        const {
          MAILTWIN_BASE_URL,
          MAILTWIN_CONTROL_URL,
          MAILTWIN_SMTP_URL,
          MAILTWIN_PID,
          ...rest
        } = vars;
        return { names: Object.keys(vars), ...rest };
      };
      expect(stable(second.vars)).toEqual(stable(first.vars));
      expect(keyLines(second.stdout)).toEqual(keyLines(first.stdout));
      expect(keyLines(second.stdout)).toHaveLength(4);
      const response = await fetch(`${second.vars.MAILTWIN_BASE_URL}/mailboxes`, {
        headers: { Authorization: `Bearer ${key}` },
      });
      expect(response.status).toBe(200);
      expect(((await response.json()) as unknown[]).length).toBeGreaterThan(0);
    },
    2 * START_TIMEOUT_MS + 10_000,
  );

  it(
    'refuses a second emulator on a --db file another one holds, and the first keeps serving',
    async () => {
      const db = join(scratch, 'held.db');
      const first = await startServe(['--port', '0', '--db', db]);
      const second = await runToExit(['--port', '0', '--db', db]);
      expect(second.code).toBe(2);
      expect(second.stdout).toBe('');
      // A notice that it waits (for an emulator that may be stopping), then the one-line reason.
      expect(second.stderr.trimEnd().split('\n')).toEqual([
        expect.stringMatching(/--db .*held\.db is held by another process; waiting up to 7 s/),
        expect.stringMatching(/--db .*held\.db: the file is in use by another process/),
      ]);
      const response = await fetch(`${first.vars.MAILTWIN_BASE_URL}/mailboxes`, {
        headers: { Authorization: `Bearer ${first.vars.MAILTWIN_API_KEY}` },
      });
      expect(response.status).toBe(200);
      await stop(first.child);
    },
    2 * START_TIMEOUT_MS + 10_000,
  );

  it(
    'prints no key secret of a fixture that the stored hash does not match',
    async () => {
      const db = join(scratch, 'tampered.db');
      const first = await startServe(['--port', '0', '--db', db]);
      await stop(first.child);
      // The same key id and lookup, another secret: the database cannot vouch for it.
      const demo = JSON.parse(readFileSync(join(ROOT, 'fixtures/demo.json'), 'utf8')) as {
        keys: { secret: string }[];
      };
      const original = demo.keys[0]!.secret;
      const forged = `${original.slice(0, -32)}${'Z'.repeat(32)}`;
      demo.keys[0]!.secret = forged;
      const fixture = join(scratch, 'forged.json');
      writeFileSync(fixture, JSON.stringify(demo));

      const second = await startServe(['--port', '0', '--db', db, '--fixtures', fixture]);
      expect(second.vars.MAILTWIN_API_KEY).toBeUndefined();
      expect(second.stdout).not.toContain(forged);
      expect(second.stdout).not.toContain(original);
      expect(keyLines(second.stdout)).toHaveLength(3);
      expect(second.vars.MAILTWIN_WEBHOOK_SECRET).toBe(first.vars.MAILTWIN_WEBHOOK_SECRET);
    },
    2 * START_TIMEOUT_MS + 10_000,
  );

  it.each(['SIGTERM', 'SIGINT', 'SIGKILL'] as const)(
    'stops the server when npm start gets %s',
    async (signal) => {
      const started = await startWithNpm(['--port', '0', '--no-demo']);
      const pid = Number(started.vars.MAILTWIN_PID);
      expect(pid).not.toBe(started.child.pid); // npm is the launcher, not the server
      process.kill(started.child.pid as number, signal);
      // The server's end closes the output it shares with npm; then nothing listens.
      await within(STOP_TIMEOUT_MS, started.stdoutClosed, `the server (pid ${pid}) stopping`);
      await expect(fetch(`${started.vars.MAILTWIN_BASE_URL}/mailboxes`)).rejects.toThrow();
      expect(started.stderr()).toMatch(
        signal === 'SIGKILL'
          ? /mailtwin: its launcher \(pid \d+\) went away, stopping/
          : new RegExp(`mailtwin: ${signal} received, stopping`),
      );
    },
    START_TIMEOUT_MS + STOP_TIMEOUT_MS + 10_000,
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

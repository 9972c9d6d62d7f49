import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

// The request log as people see it: `mailtwin serve` as a child process, its stdout read.
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TOKEN = 'mt_request-log-cli';
const running = new Set<ChildProcess>();

interface Served {
  child: ChildProcess;
  controlUrl: string;
  /** Everything printed after the banner so far. */
  after: () => string;
  /** Resolves once stdout has a line matching `pattern` after the banner. */
  line: (pattern: RegExp) => Promise<string>;
  closed: Promise<void>;
}

function serve(args: string[]): Promise<Served> {
  const child = spawn(
    process.execPath,
    ['bin/mailtwin.js', 'serve', '--port', '0', '--no-demo', '--control-token', TOKEN, ...args],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  running.add(child);
  const closed = new Promise<void>((resolve) => child.stdout.once('close', resolve));
  let stdout = '';
  let bannerEnd = -1;
  const waiters: (() => void)[] = [];
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    waiters.splice(0).forEach((wake) => wake());
  });
  const after = () => (bannerEnd < 0 ? '' : stdout.slice(bannerEnd));
  const line = async (pattern: RegExp): Promise<string> => {
    for (;;) {
      const found = after()
        .split('\n')
        .find((l) => pattern.test(l));
      if (found !== undefined) return found;
      await new Promise<void>((resolve) => waiters.push(resolve));
    }
  };
  return new Promise((resolve, reject) => {
    const check = () => {
      const match = /\nMAILTWIN_PID=\d+\n/.exec(stdout);
      if (match === null) return void waiters.push(check);
      bannerEnd = match.index + match[0].length;
      const controlUrl = /^MAILTWIN_CONTROL_URL=(.*)$/m.exec(stdout)?.[1] ?? '';
      resolve({ child, controlUrl, after, line, closed });
    };
    waiters.push(check);
    child.once('exit', (code) => reject(new Error(`mailtwin serve exited with ${code}`)));
  });
}

afterAll(() => {
  for (const child of running) child.kill('SIGKILL');
});

const clock = (controlUrl: string) =>
  fetch(`${controlUrl}/clock`, { headers: { authorization: `Bearer ${TOKEN}` } });

describe('mailtwin serve prints its request log after the banner', () => {
  it('as JSON lines with --log json', async () => {
    const served = await serve(['--log', 'json']);
    expect((await clock(served.controlUrl)).status).toBe(200);
    const entry = JSON.parse(await served.line(/"type":"request"/)) as Record<string, unknown>;
    expect(entry).toMatchObject({
      type: 'request',
      method: 'GET',
      path: '/_mailtwin/v1/clock',
      status: 200,
      key: 'control',
    });
    served.child.kill('SIGTERM');
    await served.closed;
  });

  it('not at all with --quiet', async () => {
    const served = await serve(['--quiet']);
    expect((await clock(served.controlUrl)).status).toBe(200);
    served.child.kill('SIGTERM');
    await served.closed;
    expect(served.after()).toBe('');
  });
});

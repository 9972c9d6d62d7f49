/**
 * A separately started emulator for `npm run variants`: `mailtwin serve --port 0` in a copy of
 * the repository, its banner's MAILTWIN_* lines read, and the suite's flags for a live run.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

export interface LiveTarget {
  /** The suite's flags for this target: --base-url, --api-key, --mailbox, --destructive, control plane. */
  flags: string[];
  stop(): Promise<void>;
}

/** A started `mailtwin serve`: its banner's MAILTWIN_* values, and how to stop it. */
export interface StartedServer {
  vars: ReadonlyMap<string, string>;
  stop(): Promise<void>;
}

/**
 * Starts `node bin/mailtwin.js serve --port 0` in `workspace` with `extraArgs`, and waits for
 * its banner (at most 60 s).
 */
export function startServer(
  workspace: string,
  extraArgs: readonly string[] = [],
): Promise<StartedServer> {
  return startBanneredServer(
    process.execPath,
    [
      join(workspace, 'bin/mailtwin.js'),
      'serve',
      '--port',
      '0',
      '--host',
      '127.0.0.1',
      ...extraArgs,
    ],
    workspace,
  );
}

/**
 * Starts any command that runs `mailtwin serve` (`npx mailtwin serve ...` from an installed
 * package, say) in `cwd`, and waits for its banner (at most 60 s). Stopping it also signals
 * the banner's MAILTWIN_PID, in case the command is a launcher that does not pass SIGTERM on.
 */
export async function startBanneredServer(
  command: string,
  args: readonly string[],
  cwd: string,
): Promise<StartedServer> {
  const child = spawn(command, args, {
    cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NO_COLOR: '1' },
  });
  const vars = await readBanner(child);
  const pid = Number(vars.get('MAILTWIN_PID'));
  return {
    vars,
    stop: async () => {
      await stopChild(child);
      if (pid !== child.pid && isRunning(pid)) process.kill(pid, 'SIGKILL');
    },
  };
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The mailbox the suite may use: the demo's, when the key lists it, else the first listed. */
const PREFERRED_MAILBOX = 'hello@acme.test';

/** Starts `node bin/mailtwin.js serve` in `workspace` and waits for its banner (at most 60 s). */
export async function startLiveTarget(workspace: string): Promise<LiveTarget> {
  // As deployed: local webhook addresses refused (§2.5), which the suite checks through the
  // control plane; this target gives the suite no webhook receiver to need them for.
  const { vars, stop } = await startServer(workspace);
  try {
    const base = required(vars, 'MAILTWIN_BASE_URL');
    const key = required(vars, 'MAILTWIN_API_KEY');
    const response = await fetch(`${base}/mailboxes`, {
      headers: { Authorization: `Bearer ${key}` },
    });
    const listed = ((await response.json()) as { address: string }[]).map((m) => m.address);
    const mailbox = listed.includes(PREFERRED_MAILBOX) ? PREFERRED_MAILBOX : listed[0];
    if (mailbox === undefined) throw new Error(`the key lists no mailbox at ${base}/mailboxes`);
    return {
      flags: [
        '--base-url',
        base,
        '--api-key',
        key,
        '--mailbox',
        mailbox,
        '--destructive',
        '--control-url',
        required(vars, 'MAILTWIN_CONTROL_URL'),
        '--control-token',
        required(vars, 'MAILTWIN_CONTROL_TOKEN'),
        '--max-rps',
        '0',
      ],
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

export function required(vars: ReadonlyMap<string, string>, name: string): string {
  const value = vars.get(name);
  if (value === undefined) throw new Error(`the banner has no ${name}= line`);
  return value;
}

/** The banner's KEY=value lines, once MAILTWIN_PID (the last) is out. */
function readBanner(child: ChildProcess): Promise<Map<string, string>> {
  return new Promise((resolve, reject) => {
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`mailtwin serve printed no banner within 60 s: ${stderr.slice(-400)}`));
    }, 60_000);
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.stdout!.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
      if (!/^MAILTWIN_PID=\d+$/m.test(stdout)) return;
      clearTimeout(timer);
      const vars = new Map<string, string>();
      for (const line of stdout.split('\n')) {
        const match = /^(MAILTWIN_[A-Z_]+)=(.*)$/.exec(line.trim());
        if (match !== null) vars.set(match[1]!, match[2]!);
      }
      resolve(vars);
    });
    child.once('exit', (status) => {
      clearTimeout(timer);
      reject(new Error(`mailtwin serve exited ${status} before its banner: ${stderr.slice(-400)}`));
    });
  });
}

/** SIGTERM to the server this runner started; SIGKILL if it is still there after 10 s. */
function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/** A port free right now, so a child can be told where to listen and polled before it says. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** A server in its own process, so the load tool never shares its event loop. */
export interface ChildServer {
  origin: string;
  pid: number;
  stop: () => Promise<void>;
  /** What the child wrote to stderr so far (after `stop`, all of it). */
  stderr: () => string;
}

/**
 * Spawns `command args` (`{port}` in args replaced by a free port) and waits until
 * `readyPath` answers 200 with `headers`; throws with the child's stderr if it exits first.
 */
export async function startChild(
  command: string,
  args: string[],
  readyPath: string,
  headers: Record<string, string> = {},
  env: Record<string, string> = {},
): Promise<ChildServer> {
  const port = await freePort();
  const child = spawn(
    command,
    args.map((a) => a.replaceAll('{port}', String(port))),
    { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, ...env } },
  );
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const origin = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 120_000;
  while (child.exitCode === null && Date.now() < deadline) {
    const ok = await fetch(`${origin}${readyPath}`, { headers }).then(
      async (r) => (await r.arrayBuffer(), r.status === 200),
      () => false,
    );
    if (ok) {
      return {
        origin,
        pid: child.pid as number,
        stop: () => stopChild(child),
        stderr: () => stderr,
      };
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  await stopChild(child);
  throw new Error(`${command} ${args.join(' ')} did not become ready: ${stderr.slice(-2000)}`);
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('close', () => resolve());
    child.kill('SIGTERM');
  });
}

/** Resident set size of a process in MB (Linux /proc), or NaN where that is unavailable. */
export function rssMbOf(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = /^VmRSS:\s+(\d+)\s+kB/m.exec(status)?.[1];
    return kb === undefined ? Number.NaN : Number(kb) / 1024;
  } catch {
    return Number.NaN;
  }
}

/** Linux counts process CPU time in clock ticks of 10 ms (USER_HZ 100). */
const TICK_MS = 10;

/** CPU time (user + system, all threads) a process used so far, from /proc, or NaN elsewhere. */
export function cpuMsOf(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
  } catch {
    return Number.NaN;
  }
}

/**
 * Page faults a process took so far (minor faults, /proc), or NaN elsewhere. Each is the kernel
 * mapping a page the process touched for the first time (the store growing, V8 moving objects
 * to fresh pages); on these paravirtualised machines one costs about 14 us of system time (a C
 * loop touching fresh pages), as much as a few SQL statements. The count moves with when V8
 * collects, less with the machine's load than CPU time does.
 */
export function minorFaultsOf(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    return Number(fields[7]);
  } catch {
    return Number.NaN;
  }
}

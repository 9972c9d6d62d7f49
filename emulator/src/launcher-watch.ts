import { readFileSync } from 'node:fs';

/** How often the process looks whether its launcher is still there. */
const WATCH_INTERVAL_MS = 500;

/** What the watch reads of other processes; Linux's /proc, absent elsewhere. */
export interface ProcessTable {
  /** The command name of a process, or undefined when it cannot be read. */
  name(pid: number): string | undefined;
  /** The parent of a process, or undefined when it is gone or cannot be read. */
  parentOf(pid: number): number | undefined;
}

export const procTable: ProcessTable = {
  name(pid) {
    try {
      return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
    } catch {
      return undefined;
    }
  },
  parentOf(pid) {
    try {
      // `pid (comm) state ppid ...`; comm may hold spaces and parentheses, so read after the last.
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      return Number.isInteger(ppid) ? ppid : undefined;
    } catch {
      return undefined;
    }
  },
};

/** The shells npm runs a command under (`sh -c`): Debian's dash, or bash. */
const SHELLS = new Set(['sh', 'dash', 'bash']);

/**
 * Calls `onGone` once the process that launched this one has gone away, when a package manager
 * launched it: `npm start` and `npx mailtwin serve` (or `listen`) run it under `sh -c`, and npm
 * forwards SIGINT/SIGTERM to that shell only. Debian's dash dies of a SIGTERM without passing
 * it on, and a launcher killed with SIGKILL passes nothing on, so without this the server (or
 * `listen`, with its webhook) would go on with nobody to stop it. Under npx's shell the launcher
 * is the shell's parent: a SIGKILLed npx leaves the shell waiting, so the shell being
 * re-parented (or gone) counts too, where /proc tells. A process started directly (`node
 * bin/mailtwin.js serve &`, under nohup or a service manager) is left alone: outliving its
 * shell may be the point there. Returns a function that stops watching.
 */
export function watchLauncher(
  onGone: (launcherPid: number) => void,
  env: NodeJS.ProcessEnv = process.env,
  table: ProcessTable = procTable,
): () => void {
  const parent = process.ppid;
  // npm, npx, yarn and pnpm all set npm_lifecycle_event for what they run.
  if (env['npm_lifecycle_event'] === undefined || parent <= 1) return () => {};
  const shellName = table.name(parent);
  const shell = shellName !== undefined && SHELLS.has(shellName) ? parent : undefined;
  const shellParent = shell === undefined ? undefined : table.parentOf(shell);
  const launcher = shellParent !== undefined && shellParent > 1 ? shellParent : parent;
  const timer = setInterval(() => {
    const gone =
      process.ppid !== parent || (launcher !== parent && table.parentOf(parent) !== launcher);
    if (!gone) return;
    clearInterval(timer);
    onGone(launcher);
  }, WATCH_INTERVAL_MS);
  timer.unref();
  return () => clearInterval(timer);
}

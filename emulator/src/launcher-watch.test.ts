import { afterEach, describe, expect, it, vi } from 'vitest';
import { watchLauncher, type ProcessTable } from './launcher-watch.ts';

afterEach(() => vi.useRealTimers());

const UNDER_NPX = { npm_lifecycle_event: 'npx' };

/** A process table where this process's parent is `name`, whose parent `parents()` says. */
function table(name: string, parents: () => number | undefined): ProcessTable {
  return {
    name: (pid) => (pid === process.ppid ? name : undefined),
    parentOf: (pid) => (pid === process.ppid ? parents() : undefined),
  };
}

describe('watchLauncher (issue 27 item 6)', () => {
  it("under npx's shell, calls back once the shell is left without npx (npx killed with SIGKILL)", () => {
    vi.useFakeTimers();
    let shellParent: number | undefined = 4242;
    const gone: number[] = [];
    const stop = watchLauncher(
      (pid) => gone.push(pid),
      UNDER_NPX,
      table('sh', () => shellParent),
    );
    vi.advanceTimersByTime(2_000);
    expect(gone).toEqual([]);
    shellParent = 1; // npx died; init (or a subreaper) adopted the shell
    vi.advanceTimersByTime(500);
    expect(gone).toEqual([4242]);
    vi.advanceTimersByTime(2_000);
    expect(gone).toEqual([4242]);
    stop();
  });

  it('calls back when the shell itself is gone', () => {
    vi.useFakeTimers();
    let shellParent: number | undefined = 4242;
    const gone: number[] = [];
    const stop = watchLauncher(
      (pid) => gone.push(pid),
      UNDER_NPX,
      table('dash', () => shellParent),
    );
    shellParent = undefined;
    vi.advanceTimersByTime(500);
    expect(gone).toEqual([4242]);
    stop();
  });

  it('does not look past a parent that is not a shell (npm start execs node), nor watch without a package manager', () => {
    vi.useFakeTimers();
    const gone: number[] = [];
    const asked: number[] = [];
    const npm: ProcessTable = {
      name: () => 'npm',
      parentOf: (pid) => (asked.push(pid), 1),
    };
    const stopNpm = watchLauncher((pid) => gone.push(pid), UNDER_NPX, npm);
    const stopDirect = watchLauncher(
      (pid) => gone.push(pid),
      {},
      table('sh', () => 1),
    );
    vi.advanceTimersByTime(5_000);
    expect(gone).toEqual([]);
    expect(asked).toEqual([]);
    stopNpm();
    stopDirect();
  });
});

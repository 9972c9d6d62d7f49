import { readFileSync } from 'node:fs';

/**
 * The CPU time this thread (the event loop's) has used, in ms, from Linux's per-thread counters
 * (the scheduler's nanoseconds, else clock ticks of 10 ms); undefined where there are none. CPU
 * time, not wall time: a loaded machine stretches a turn's wall time many times over, but not
 * the work it does (issue 27 item 1: http/concurrent-get.test.ts, services/send-raw.test.ts).
 */
export function loopThreadCpuMs(): number | undefined {
  try {
    const schedstat = readFileSync(`/proc/self/task/${process.pid}/schedstat`, 'utf8');
    return Number(schedstat.split(' ')[0]) / 1e6;
  } catch {
    // no scheduler statistics: clock ticks below
  }
  try {
    const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10; // utime + stime, at 100 ticks/s
  } catch {
    return undefined;
  }
}

/**
 * Watches the longest turn of the event loop in CPU time: a 1 ms timer reads the thread's CPU
 * time each turn, and the largest difference between two readings is the most one turn (every
 * callback it ran) kept the loop from answering anything else. `stop` gives it, or undefined
 * where the thread's CPU time cannot be read.
 */
export function watchLongestTurn(): { stop: () => number | undefined } {
  let last = loopThreadCpuMs();
  let longest = 0;
  let timer: NodeJS.Timeout | undefined;
  const tick = () => {
    const now = loopThreadCpuMs();
    if (now !== undefined && last !== undefined) longest = Math.max(longest, now - last);
    last = now;
    timer = setTimeout(tick, 1);
  };
  timer = setTimeout(tick, 1);
  return {
    stop: () => {
      clearTimeout(timer);
      return last === undefined ? undefined : longest;
    },
  };
}

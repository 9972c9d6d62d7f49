/**
 * A check's time budget is wall time less its waits, so a loaded machine spends it: with
 * MAILTWIN_CONFORMANCE_BUDGET=off a check runs to its end (the API-world unit test's run).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { BUDGET_ENV, NotFinished, startWatchdog } from './watchdog.ts';

/** A body busy (awaiting, not waiting on the target) for 600 ms, far past a 10 ms budget. */
const slowBody = async () => {
  await sleep(600);
  return 'finished';
};

describe('a check’s time budget', () => {
  it('ends a check that used its active time as not finished', async () => {
    const watchdog = startWatchdog(10, {});
    try {
      // The watchdog looks every 250 ms, before the body's 600 ms are up.
      await expect(watchdog.race(slowBody)).rejects.toBeInstanceOf(NotFinished);
    } finally {
      watchdog.stop();
    }
  });

  it(`lets the check run to its end with ${BUDGET_ENV}=off`, async () => {
    const watchdog = startWatchdog(10, { [BUDGET_ENV]: 'off' });
    try {
      await expect(watchdog.race(slowBody)).resolves.toBe('finished');
    } finally {
      watchdog.stop();
    }
  });
});

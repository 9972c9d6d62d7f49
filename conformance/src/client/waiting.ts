/**
 * Time a check spends waiting on the target's pace, which its time budget does not count
 * (issue 28 item 4): mail on its way (`--delivery-timeout` bounds each wait), a webhook
 * delivery, search catching up, the run's own `--max-rps`. A deployment that delivers in
 * seconds is slow, not broken; the budget is for the check's own work and the target's answers.
 *
 * Checks of a file may run side by side (check-runner/check.ts, `concurrent`), so each check
 * counts its own waits: check.ts runs its body with a clock of its own ({@link countingWaits}),
 * which follows the body's async calls. Waits that overlap within one check (several mailboxes
 * awaited at once) count their wall time once; another check's waits never reach it.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

/** One check's time spent waiting on the target. */
export class WaitClock {
  private waitedMs = 0;
  private open = 0;
  private openedAt = 0;

  /** Runs `block`, counting its wall time as waiting. */
  async during<T>(block: () => Promise<T>): Promise<T> {
    if (this.open++ === 0) this.openedAt = performance.now();
    try {
      return await block();
    } finally {
      if (--this.open === 0) this.waitedMs += performance.now() - this.openedAt;
    }
  }

  /** Milliseconds waited so far, an open wait included. */
  soFar(): number {
    return this.waitedMs + (this.open > 0 ? performance.now() - this.openedAt : 0);
  }
}

const running = new AsyncLocalStorage<WaitClock>();
/** Waits made outside any check (a unit test calling a helper directly). */
const outside = new WaitClock();

/** Runs `block` with `clock` counting every wait made in it and in what it calls. */
export function countingWaits<T>(clock: WaitClock, block: () => T): T {
  return running.run(clock, block);
}

/** Runs `block`, counting its wall time as waiting on the target's pace for the running check. */
export function waitingOnTarget<T>(block: () => Promise<T>): Promise<T> {
  return (running.getStore() ?? outside).during(block);
}

/** Milliseconds the running check has waited on the target's pace. */
export function waitedSoFar(): number {
  return (running.getStore() ?? outside).soFar();
}

import { describe, expect, it } from 'vitest';
import { WaitClock, countingWaits, waitedSoFar, waitingOnTarget } from '../client/waiting.ts';
import { collectingReached, expectAt } from '../contract/charge.ts';

/** A promise and the function that settles it, so two checks can interleave on demand. */
function gate() {
  let open = () => {};
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

describe('checks run side by side keep their own counters', () => {
  it("counts each check's waits on its own clock, never another's", async () => {
    // Check A waits on the target while check B does not; both run interleaved in one worker.
    const [a, b] = [new WaitClock(), new WaitClock()];
    const release = gate();
    const bRan = gate();
    const checkA = countingWaits(a, () => waitingOnTarget(() => release.opened));
    const checkB = countingWaits(b, async () => {
      await Promise.resolve();
      bRan.open();
      return waitedSoFar();
    });
    await bRan.opened;
    // A's wait is open while B runs: B has waited nothing, A is waiting.
    expect(await checkB).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 20));
    release.open();
    await checkA;
    expect(a.soFar()).toBeGreaterThan(0);
    expect(b.soFar()).toBe(0);
  });

  it("records the rules each check's assertions reached in that check's set only", async () => {
    const [a, b] = [new Set<string>(), new Set<string>()];
    const both = gate();
    await Promise.all([
      collectingReached(a, async () => {
        await both.opened;
        expectAt('4.3-R6', 1).toBe(1);
      }),
      collectingReached(b, async () => {
        expectAt('4.4-R1', true).toBe(true);
        both.open();
        await Promise.resolve();
        expectAt('D-21', 'x').toBe('x');
      }),
    ]);
    expect([...a]).toEqual(['4.3-R6']);
    expect([...b].sort()).toEqual(['4.4-R1', 'D-21']);
  });
});

import { describe, expect, it } from 'vitest';
import { RateLimiter, workerRateLimiter } from './rate-limit.ts';

/** A clock that moves only when the limiter sleeps, so spacing is exact and instant. */
function fakeTime() {
  let now = 1000;
  const limiter = (perSecond: number) =>
    new RateLimiter(
      perSecond,
      () => now,
      async (ms) => {
        now += ms;
      },
    );
  return {
    limiter,
    get now() {
      return now;
    },
    advance(ms: number) {
      now += ms;
    },
  };
}

describe('RateLimiter', () => {
  it('lets the first request go at once', async () => {
    const time = fakeTime();
    expect(await time.limiter(20).acquire()).toBe(0);
  });

  it('spaces requests 1000/n ms apart', async () => {
    const time = fakeTime();
    const limiter = time.limiter(20);
    const starts: number[] = [];
    for (let i = 0; i < 5; i += 1) {
      await limiter.acquire();
      starts.push(time.now);
    }
    expect(starts).toEqual([1000, 1050, 1100, 1150, 1200]);
  });

  it('gives concurrent callers consecutive slots', async () => {
    const limiter = new RateLimiter(
      4,
      () => 1000,
      async () => {},
    );
    const waits = await Promise.all([limiter.acquire(), limiter.acquire(), limiter.acquire()]);
    expect(waits).toEqual([0, 250, 500]);
  });

  it('does not wait after a pause longer than the interval', async () => {
    const time = fakeTime();
    const limiter = time.limiter(10);
    await limiter.acquire();
    time.advance(500);
    expect(await limiter.acquire()).toBe(0);
  });

  it('starts no more than n requests in any second over a long run', async () => {
    const time = fakeTime();
    const limiter = time.limiter(7);
    const starts: number[] = [];
    for (let i = 0; i < 50; i += 1) {
      await limiter.acquire();
      starts.push(time.now);
    }
    for (const start of starts)
      // Half-open seconds, with a nanosecond of slack for floating-point slot times.
      expect(
        starts.filter((s) => s >= start && s < start + 1000 - 1e-6).length,
      ).toBeLessThanOrEqual(7);
  });

  it.each([0, -1, Number.NaN, Number.POSITIVE_INFINITY])('refuses a rate of %d', (rate) => {
    expect(() => new RateLimiter(rate)).toThrow(RangeError);
  });
});

describe('workerRateLimiter', () => {
  it('has no limiter without a limit', () => {
    expect(workerRateLimiter(null)).toBeUndefined();
  });

  it('shares one limiter per process for one rate, and replaces it for another', () => {
    const a = workerRateLimiter(5);
    expect(workerRateLimiter(5)).toBe(a);
    const b = workerRateLimiter(6);
    expect(b).not.toBe(a);
    expect(b?.perSecond).toBe(6);
  });
});

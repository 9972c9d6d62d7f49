import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SlidingWindowLimiter, describeRateLimit } from './rate-limit.ts';

const T0 = Date.UTC(2025, 0, 1, 12, 0, 0, 0);

describe('SlidingWindowLimiter (D-38)', () => {
  it('lets everything through when no limit is configured', () => {
    const limiter = new SlidingWindowLimiter(null);
    for (let i = 0; i < 1000; i += 1) expect(limiter.take('key_a', T0)).toEqual({ allowed: true });
  });

  it('accepts n requests in the window and refuses the (n+1)th, with the seconds to wait', () => {
    const limiter = new SlidingWindowLimiter({ requests: 3, windowMs: 60_000 });
    expect(limiter.take('key_a', T0).allowed).toBe(true);
    expect(limiter.take('key_a', T0 + 1_000).allowed).toBe(true);
    expect(limiter.take('key_a', T0 + 2_000).allowed).toBe(true);
    expect(limiter.take('key_a', T0 + 10_000)).toEqual({
      allowed: false,
      limit: { requests: 3, windowMs: 60_000 },
      retryAfterSeconds: 50,
    });
  });

  it('counts each key on its own', () => {
    const limiter = new SlidingWindowLimiter({ requests: 1, windowMs: 1_000 });
    expect(limiter.take('key_a', T0).allowed).toBe(true);
    expect(limiter.take('key_a', T0).allowed).toBe(false);
    expect(limiter.take('key_b', T0).allowed).toBe(true);
  });

  it('frees a slot exactly when the oldest counted request leaves the window', () => {
    const limiter = new SlidingWindowLimiter({ requests: 2, windowMs: 10_000 });
    limiter.take('k', T0);
    limiter.take('k', T0 + 4_000);
    expect(limiter.take('k', T0 + 9_999)).toMatchObject({ allowed: false, retryAfterSeconds: 1 });
    expect(limiter.take('k', T0 + 10_000).allowed).toBe(true);
    // The second request (T0 + 4 s) now is the oldest: free at T0 + 14 s.
    expect(limiter.take('k', T0 + 10_000)).toMatchObject({ allowed: false, retryAfterSeconds: 4 });
    expect(limiter.take('k', T0 + 13_999).allowed).toBe(false);
    expect(limiter.take('k', T0 + 14_000).allowed).toBe(true);
  });

  it('rounds a wait of part of a second up, never down to 0', () => {
    const limiter = new SlidingWindowLimiter({ requests: 1, windowMs: 1_000 });
    limiter.take('k', T0);
    expect(limiter.take('k', T0 + 999)).toMatchObject({ allowed: false, retryAfterSeconds: 1 });
    const slow = new SlidingWindowLimiter({ requests: 1, windowMs: 5_000 });
    slow.take('k', T0);
    expect(slow.take('k', T0 + 1)).toMatchObject({ retryAfterSeconds: 5 });
    expect(slow.take('k', T0 + 1_001)).toMatchObject({ retryAfterSeconds: 4 });
  });

  it('does not count refused requests, so retrying early does not push the wait further out', () => {
    const limiter = new SlidingWindowLimiter({ requests: 1, windowMs: 60_000 });
    limiter.take('k', T0);
    for (let s = 1; s < 60; s += 1) {
      expect(limiter.take('k', T0 + s * 1_000)).toMatchObject({ retryAfterSeconds: 60 - s });
    }
    expect(limiter.take('k', T0 + 60_000).allowed).toBe(true);
  });

  it('never accepts more than n requests in any window, and its Retry-After is exact', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 5 }),
        fc.integer({ min: 1, max: 10 }).map((s) => s * 1_000),
        fc.array(fc.integer({ min: 0, max: 3_000 }), { minLength: 1, maxLength: 60 }),
        (requests, windowMs, gaps) => {
          const limiter = new SlidingWindowLimiter({ requests, windowMs });
          const accepted: number[] = [];
          let now = T0;
          for (const gap of gaps) {
            now += gap;
            const decision = limiter.take('k', now);
            const inWindow = accepted.filter((t) => t > now - windowMs);
            if (decision.allowed) {
              expect(inWindow.length).toBeLessThan(requests);
              accepted.push(now);
            } else {
              expect(inWindow.length).toBe(requests);
              // Accepted after exactly Retry-After seconds, refused one second sooner.
              const freeAt = (inWindow[0] as number) + windowMs;
              expect(now + decision.retryAfterSeconds * 1_000).toBeGreaterThanOrEqual(freeAt);
              expect(now + (decision.retryAfterSeconds - 1) * 1_000).toBeLessThan(freeAt);
              expect(decision.retryAfterSeconds).toBeGreaterThanOrEqual(1);
            }
          }
        },
      ),
      { seed: 38, numRuns: 300 },
    );
  });

  it('starts every key afresh when the limit is changed or cleared, and can be turned off', () => {
    const limiter = new SlidingWindowLimiter({ requests: 1, windowMs: 60_000 });
    limiter.take('k', T0);
    expect(limiter.take('k', T0).allowed).toBe(false);
    limiter.clear();
    expect(limiter.limit).toEqual({ requests: 1, windowMs: 60_000 });
    expect(limiter.take('k', T0).allowed).toBe(true);
    limiter.configure({ requests: 2, windowMs: 1_000 });
    expect(limiter.take('k', T0).allowed).toBe(true);
    expect(limiter.take('k', T0).allowed).toBe(true);
    expect(limiter.take('k', T0).allowed).toBe(false);
    limiter.configure(null);
    expect(limiter.limit).toBeNull();
    expect(limiter.take('k', T0).allowed).toBe(true);
  });

  it('stays exact over long runs, as it drops requests that left the window', () => {
    const limiter = new SlidingWindowLimiter({ requests: 2_000, windowMs: 1_000 });
    // One request per ms for 5 s: 1,000 in any second, all accepted.
    for (let ms = 0; ms < 5_000; ms += 1) expect(limiter.take('k', T0 + ms).allowed).toBe(true);
    // The window (T0 + 4 s, T0 + 5 s] holds 999 of them: 1,001 more fit at T0 + 5 s.
    for (let i = 0; i < 1_001; i += 1) expect(limiter.take('k', T0 + 5_000).allowed).toBe(true);
    expect(limiter.take('k', T0 + 5_000)).toMatchObject({ allowed: false, retryAfterSeconds: 1 });
    expect(limiter.take('k', T0 + 5_001).allowed).toBe(true);
  });
});

describe('describeRateLimit', () => {
  it.each([
    [{ requests: 100, windowMs: 60_000 }, '100 requests per 1 minute'],
    [{ requests: 1, windowMs: 1_000 }, '1 request per 1 second'],
    [{ requests: 5000, windowMs: 3_600_000 }, '5000 requests per 1 hour'],
    [{ requests: 10, windowMs: 90_000 }, '10 requests per 90 seconds'],
    [{ requests: 10, windowMs: 7_200_000 }, '10 requests per 2 hours'],
    [{ requests: 2, windowMs: 1_500 }, '2 requests per 1.5 seconds'],
  ])('describes %j as %j', (limit, text) => {
    expect(describeRateLimit(limit)).toBe(text);
  });
});

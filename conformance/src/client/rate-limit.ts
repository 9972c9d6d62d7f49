/**
 * Spaces requests so that no more than `perSecond` start in any second: each request takes the
 * next free slot, `1000 / perSecond` ms after the previous one, and waits for it. No bursts,
 * so a live deployment sees an even trickle however many checks run at once.
 */
export class RateLimiter {
  private nextSlot = Number.NEGATIVE_INFINITY;
  private readonly intervalMs: number;

  constructor(
    readonly perSecond: number,
    private readonly now: () => number = () => performance.now(),
    private readonly sleep: (ms: number) => Promise<void> = (ms) =>
      new Promise((resolve) => setTimeout(resolve, ms)),
  ) {
    if (!(perSecond > 0) || !Number.isFinite(perSecond))
      throw new RangeError(`a rate limit must be a positive number, got ${perSecond}`);
    this.intervalMs = 1000 / perSecond;
  }

  /** Resolves when the caller may send; returns how long it waited, in ms. */
  async acquire(): Promise<number> {
    const now = this.now();
    const slot = Math.max(now, this.nextSlot);
    this.nextSlot = slot + this.intervalMs;
    const wait = slot - now;
    if (wait > 0) await this.sleep(wait);
    return wait;
  }
}

const WORKER_LIMITER = Symbol.for('mailtwin.conformance.rateLimiter');

/**
 * The limiter of this worker process. Vitest re-imports modules for every check file, so the
 * limiter lives on globalThis: files that run one after another in a worker share one budget.
 */
export function workerRateLimiter(perSecond: number | null): RateLimiter | undefined {
  if (perSecond === null) return undefined;
  const store = globalThis as { [WORKER_LIMITER]?: RateLimiter };
  const existing = store[WORKER_LIMITER];
  if (existing !== undefined && existing.perSecond === perSecond) return existing;
  const limiter = new RateLimiter(perSecond);
  store[WORKER_LIMITER] = limiter;
  return limiter;
}

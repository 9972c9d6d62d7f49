/**
 * Request rate limits per API key (D-38). The service document does not show one (§8), so the
 * spec lets every operation answer 429 `rate_limited` with `Retry-After`; the emulator answers
 * it only when a limit is configured, so clients can rehearse it.
 *
 * Semantics: a sliding log. A key may have at most `requests` accepted requests in any span of
 * `windowMs`; a request is counted from the instant it is accepted until `windowMs` later. A
 * refused request is not counted, so a client that keeps trying does not push its own wait
 * further out, and the wait it is told is exact: the instant the oldest counted request leaves
 * the window. Time is passed in (the injected clock), so moving the clock frees the limit.
 */

/** A configured limit: at most `requests` per key in any `windowMs` span. */
export interface RateLimit {
  requests: number;
  windowMs: number;
}

/**
 * Bounds shared by `--rate-limit` and the control plane's `PUT /rate-limit` (its schema in
 * spec/control.yaml repeats them). Windows are whole seconds, as `Retry-After` is.
 */
export const RATE_LIMIT_BOUNDS = {
  maxRequests: 1_000_000,
  minWindowMs: 1_000,
  maxWindowMs: 24 * 60 * 60 * 1000,
} as const;

/** What the limiter decided for one request. */
export type RateDecision =
  | { allowed: true }
  | {
      allowed: false;
      /** The limit the request went over, for the message. */
      limit: RateLimit;
      /** Whole seconds, at least 1: a request this much later is accepted, one second sooner is not. */
      retryAfterSeconds: number;
    };

/** The accepted instants of one key still inside the window, oldest first, from `start`. */
interface KeyLog {
  times: number[];
  start: number;
}

/**
 * Counts accepted requests per key. Memory is bounded by the keys that exist (only
 * authenticated requests are counted, by key id) times the requests each made in one window.
 */
export class SlidingWindowLimiter {
  private current: RateLimit | null;
  private readonly logs = new Map<string, KeyLog>();

  constructor(limit: RateLimit | null) {
    this.current = limit;
  }

  /** The limit in force, or null for none. */
  get limit(): RateLimit | null {
    return this.current === null ? null : { ...this.current };
  }

  /** Replaces the limit (null turns it off); every key starts afresh under the new one. */
  configure(limit: RateLimit | null): void {
    this.current = limit === null ? null : { ...limit };
    this.logs.clear();
  }

  /** Forgets every count and keeps the limit (the control plane's reset). */
  clear(): void {
    this.logs.clear();
  }

  /** Decides one request of `key` at `nowMs`, and counts it when it is accepted. */
  take(key: string, nowMs: number): RateDecision {
    const limit = this.current;
    if (limit === null) return { allowed: true };
    let log = this.logs.get(key);
    if (log === undefined) {
      log = { times: [], start: 0 };
      this.logs.set(key, log);
    }
    // A request accepted at t is counted while now < t + windowMs.
    const { times } = log;
    while (log.start < times.length && (times[log.start] as number) <= nowMs - limit.windowMs) {
      log.start += 1;
    }
    if (log.start >= 1024 && log.start * 2 >= times.length) {
      log.times = times.slice(log.start);
      log.start = 0;
    }
    if (log.times.length - log.start >= limit.requests) {
      const waitMs = (log.times[log.start] as number) + limit.windowMs - nowMs;
      return {
        allowed: false,
        limit: { ...limit },
        retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)),
      };
    }
    log.times.push(nowMs);
    return { allowed: true };
  }
}

/** `100 requests per 1 minute`, for messages; the window in the largest whole unit. */
export function describeRateLimit({ requests, windowMs }: RateLimit): string {
  return `${requests} ${requests === 1 ? 'request' : 'requests'} per ${describeWindow(windowMs)}`;
}

function describeWindow(ms: number): string {
  const units: [number, string][] = [
    [3_600_000, 'hour'],
    [60_000, 'minute'],
  ];
  for (const [size, name] of units) {
    if (ms % size === 0) return `${ms / size} ${name}${ms === size ? '' : 's'}`;
  }
  return `${ms / 1000} ${ms === 1000 ? 'second' : 'seconds'}`;
}

import type { MiddlewareHandler } from 'hono';
import type { Clock } from '../clock.ts';
import { ApiError } from '../errors.ts';
import { describeRateLimit, type SlidingWindowLimiter } from '../domain/rate-limit.ts';
import type { ApiEnv } from './auth.ts';
import { passesOn } from './one-handler.ts';

/**
 * D-38: 429 `rate_limited` with `Retry-After` once a key has used its requests in the window.
 * Mounted after `requireApiKey`, so only requests that authenticated are counted, keyed by the
 * key's id (never its secret); a request without a valid key is answered 401 and not counted.
 * Time is the injected clock's, so moving it through the control plane frees the limit.
 */
export function rateLimit(limiter: SlidingWindowLimiter, clock: Clock): MiddlewareHandler<ApiEnv> {
  // Not async: a request passes with the next handler's own promise, one fewer a request.
  return passesOn((c, next) => {
    // No limit (the default, until the control plane sets one): nothing to count, no time read.
    if (limiter.limit === null) return next();
    const decision = limiter.take(c.get('access').key.id, clock.now().getTime());
    if (!decision.allowed) {
      const seconds = decision.retryAfterSeconds;
      // Headers set on the context are kept by the response app.onError renders, so the one
      // renderer still writes the Error body.
      c.header('Retry-After', String(seconds));
      throw new ApiError(
        'rate_limited',
        `Too many requests: this API key may make ${describeRateLimit(decision.limit)}; retry after ${seconds} ${seconds === 1 ? 'second' : 'seconds'}.`,
      );
    }
    return next();
  });
}

import type { Context, Env, MiddlewareHandler, Next } from 'hono';
import type { Result } from 'hono/router';

const PASSES_ON = Symbol('passes on');

type Handler = (c: Context, next: Next) => unknown;

/**
 * Marks a middleware that only looks before the rest: it answers or throws without calling
 * `next`, or returns exactly what `next()` returned (after awaiting something first at most),
 * and does nothing once the rest has answered. The host check and every check of the API's
 * edge are such; a middleware that changes the rest's answer or renders its errors (the
 * binding's dialect) is not, and is never marked.
 */
export function passesOn<E extends Env>(handler: MiddlewareHandler<E>): MiddlewareHandler<E> {
  (handler as MiddlewareHandler<E> & { [PASSES_ON]?: true })[PASSES_ON] = true;
  return handler;
}

/** Whether `handler` was marked with `passesOn`. */
export function isPassingOn(handler: unknown): boolean {
  return typeof handler === 'function' && (handler as { [PASSES_ON]?: true })[PASSES_ON] === true;
}

/**
 * A router's match, its handlers run as one when all but the last pass on (`passesOn`): each
 * is called with a `next` that calls the one after it, and the last with Hono's own `next`.
 * Hono runs a match of several handlers through `compose`, an async dispatch, a closure and a
 * promise a handler (the host check, the API's edge and the route: ~1.8 KB of allocations and
 * the dearest of Hono's own functions a request, issue 31 item 1); a match of one it calls
 * directly. The answer is the same: a member's own answer is passed up unchanged, and an error
 * thrown anywhere reaches the app's `onError` with the same context, as it reached it from the
 * handler's own layer (no member passes on changes or looks at what comes back). The one
 * handler has the last handler's route and parameters, the route's, which Hono reads for
 * `c.req.param()`: no member reads parameters. Any other match is returned as it is.
 */
export function asOneHandler<T>(result: Result<T>): Result<T> {
  const matched = result[0] as [T, unknown][];
  if (matched.length < 2) return result;
  const handlers: Handler[] = [];
  for (const [entry] of matched) {
    const handler = Array.isArray(entry) ? (entry[0] as unknown) : undefined;
    if (typeof handler !== 'function') return result;
    handlers.push(handler as Handler);
  }
  if (!handlers.slice(0, -1).every(isPassingOn)) return result;
  let chain = handlers[handlers.length - 1] as Handler;
  for (let i = handlers.length - 2; i >= 0; i -= 1) {
    const outer = handlers[i] as Handler;
    const inner = chain;
    chain = (c, next) => outer(c, (() => inner(c, next)) as Next);
  }
  const [lastEntry, lastParams] = matched[matched.length - 1] as [[Handler, unknown], unknown];
  const one = [[chain, lastEntry[1]], lastParams];
  return [[one], ...result.slice(1)] as unknown as Result<T>;
}

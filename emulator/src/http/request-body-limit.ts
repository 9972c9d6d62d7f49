import type { MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { passesOn } from './one-handler.ts';

/** D-27's default: 25 MiB (`--max-request-bytes`, AppDeps.maxRequestBytes). */
export const DEFAULT_MAX_REQUEST_BYTES = 25 * 1024 * 1024;

/** As Hono's `bodyLimit` takes them; `onError` throws the refusal. */
export interface BodyLimitOptions {
  maxSize: number;
  onError: () => never;
}

/**
 * Hono's body limit with its rule unchanged: a declared Content-Length (without
 * Transfer-Encoding) is judged by its value, any other body by counting it as it is read; a
 * GET or HEAD has none. The first cases are decided here without asking for the body: asking
 * makes the Node adapter build a whole Request and a stream for it, where the routes otherwise
 * read the body straight from the socket.
 */
export function requestBodyLimit(options: BodyLimitOptions): MiddlewareHandler {
  const countingLimit = bodyLimit(options);
  // Hono's, for a body of no declared length, reads it, then passes on or refuses: no more.
  return passesOn((c, next) => {
    if (c.req.method === 'GET' || c.req.method === 'HEAD') return next();
    const length = c.req.header('content-length');
    if (length !== undefined && c.req.header('transfer-encoding') === undefined)
      return Number.parseInt(length || '0', 10) > options.maxSize ? options.onError() : next();
    return countingLimit(c, next);
  });
}

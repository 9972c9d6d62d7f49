import type { MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { ApiError } from '../errors.ts';

/**
 * 413 `request_too_large` for a body over `maxBytes` (§7), by Hono's body-limit rule: a
 * declared Content-Length (without Transfer-Encoding) is judged by its value, any other body
 * by counting it as it is read. The first two cases are decided here without asking for the
 * body: asking makes the Node adapter build a whole Request and a stream for it, where the
 * routes otherwise read the body straight from the socket.
 */
export function requestBodyLimit(maxBytes: number): MiddlewareHandler {
  const tooLarge = (): never => {
    throw new ApiError(
      'request_too_large',
      `The request body exceeds the platform limit of ${maxBytes} bytes.`,
    );
  };
  const countingLimit = bodyLimit({ maxSize: maxBytes, onError: tooLarge });
  return (c, next) => {
    // A GET or HEAD has no body to limit.
    if (c.req.method === 'GET' || c.req.method === 'HEAD') return next();
    const length = c.req.header('content-length');
    if (length !== undefined && c.req.header('transfer-encoding') === undefined)
      return Number.parseInt(length || '0', 10) > maxBytes ? tooLarge() : next();
    return countingLimit(c, next);
  };
}

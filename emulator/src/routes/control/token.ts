import { createHash, timingSafeEqual } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import { ApiError } from '../../errors.ts';

const sha256 = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();

/**
 * The control plane's one credential: `Authorization: Bearer <control token>`. Both sides are
 * hashed first, so the constant-time comparison also hides the token's length. Anything else
 * is answered here, 401 `invalid_control_token` with its own realm, never reaching a route (the
 * app's error renderer names the API's realm, which would mislead a control-plane client).
 */
export function requireControlToken(token: string): MiddlewareHandler {
  const expected = sha256(token);
  return async (c, next) => {
    const presented = /^Bearer[ ]+(\S+)\s*$/i.exec(c.req.header('authorization') ?? '')?.[1];
    const matches = timingSafeEqual(sha256(presented ?? ''), expected);
    if (presented === undefined || !matches) {
      const error = new ApiError(
        'invalid_control_token',
        presented === undefined
          ? 'Send the control token as Authorization: Bearer <control token>.'
          : 'The control token is not valid.',
      );
      return c.json(error.toBody(), 401, {
        'WWW-Authenticate': 'Bearer realm="mailtwin-control"',
      });
    }
    await next();
  };
}

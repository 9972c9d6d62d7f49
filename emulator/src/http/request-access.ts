import type { MiddlewareHandler } from 'hono';
import type { Access } from '../domain/access.ts';
import type { ApiEnv } from './auth.ts';

/**
 * The access the API decided for each request, by the `Request` the server handed the app, so
 * the request log names the key without looking it up again. It is kept on the request itself,
 * under a symbol of this instance, so it goes with its request: a WeakMap entry a request cost
 * more to add and to collect (issue 31 item 1).
 */
export class AccessByRequest {
  private readonly slot = Symbol('access');

  of(request: Request): Access | undefined {
    return (request as Request & Partial<Record<symbol, Access>>)[this.slot];
  }

  /**
   * Mounted first on the API: it holds the request as the server gave it (the body limit may
   * replace `c.req.raw`) and records the access the auth middleware decided, whatever the
   * answer was, rendered inside `next` or thrown through it.
   */
  recorder(): MiddlewareHandler<ApiEnv> {
    return async (c, next) => {
      const request = c.req.raw;
      try {
        await next();
      } finally {
        // A refusal thrown after the key was accepted (run in sequence, it reaches this layer
        // unrendered) still names the key.
        const access = c.get('access') as Access | undefined;
        if (access !== undefined)
          (request as Request & Partial<Record<symbol, Access>>)[this.slot] = access;
      }
    };
  }
}

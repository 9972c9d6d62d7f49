import type { MiddlewareHandler } from 'hono';
import type { Access } from '../domain/access.ts';
import type { ApiEnv } from './auth.ts';

/**
 * The access the API decided for each request, by the `Request` the server handed the app, so
 * the request log names the key without looking it up again. Entries go with their requests.
 */
export class AccessByRequest {
  private readonly decided = new WeakMap<Request, Access>();

  of(request: Request): Access | undefined {
    return this.decided.get(request);
  }

  /**
   * Mounted first on the API: it holds the request as the server gave it (the body limit may
   * replace `c.req.raw`) and records the access the auth middleware decided, whatever the
   * answer was (Hono renders errors inside `next`).
   */
  recorder(): MiddlewareHandler<ApiEnv> {
    return async (c, next) => {
      const request = c.req.raw;
      await next();
      const access = c.get('access') as Access | undefined;
      if (access !== undefined) this.decided.set(request, access);
    };
  }
}

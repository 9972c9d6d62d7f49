import type { Context, MiddlewareHandler } from 'hono';
import type { Access } from '../domain/access.ts';
import type { ApiEnv } from './auth.ts';
import { passesOn } from './one-handler.ts';

type WithContext = Request & Partial<Record<symbol, Context<ApiEnv>>>;

/**
 * The access the API decided for each request, by the `Request` the server handed the app, so
 * the request log names the key without looking it up again. The request keeps, under a symbol
 * of this instance, the API's context for it, and the access is read from that context when
 * asked: a WeakMap entry a request cost more to add and to collect, and recording the access
 * once the answer was made cost an async layer of its own a request (issue 31 item 1).
 */
export class AccessByRequest {
  private readonly slot = Symbol('access');

  of(request: Request): Access | undefined {
    return (request as WithContext)[this.slot]?.get('access') as Access | undefined;
  }

  /**
   * Mounted first on the API: it holds the request as the server gave it (the body limit may
   * replace `c.req.raw`), and `of` gives whatever access the auth middleware decided in that
   * request's context, whatever the answer was, rendered inside `next` or thrown through it (a
   * refusal thrown after the key was accepted still names the key).
   */
  recorder(): MiddlewareHandler<ApiEnv> {
    return passesOn((c, next) => {
      (c.req.raw as WithContext)[this.slot] = c;
      return next();
    });
  }
}

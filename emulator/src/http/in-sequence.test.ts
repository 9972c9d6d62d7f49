import { Hono, type MiddlewareHandler } from 'hono';
import { describe, expect, it } from 'vitest';
import { createApp, defaultDeps } from '../app.ts';
import { ApiError } from '../errors.ts';
import { inSequence } from './in-sequence.ts';
import { passesOn } from './one-handler.ts';

/** A middleware that records its name before and after the rest. */
const named =
  (seen: string[], name: string): MiddlewareHandler =>
  async (_c, next) => {
    seen.push(name);
    await next();
    seen.push(`/${name}`);
  };

function appWith(...members: MiddlewareHandler[]) {
  const app = new Hono();
  app.onError((error, c) =>
    error instanceof ApiError ? c.json(error.toBody(), error.status) : c.text('boom', 500),
  );
  app.use('*', inSequence(...members));
  app.get('/x', (c) => c.text('route'));
  return app;
}

describe('middleware in sequence', () => {
  it('runs each member once, in order, around the route', async () => {
    const seen: string[] = [];
    const r = await appWith(named(seen, 'a'), named(seen, 'b')).request('/x');
    expect(await r.text()).toBe('route');
    expect(seen).toEqual(['a', 'b', '/b', '/a']);
  });

  it('stops at a member that answers, and renders what a member throws as Hono would', async () => {
    const seen: string[] = [];
    const answers: MiddlewareHandler = (c) => Promise.resolve(c.text('early', 202));
    const early = await appWith(named(seen, 'a'), answers, named(seen, 'c')).request('/x');
    expect([early.status, await early.text()]).toEqual([202, 'early']);
    expect(seen).toEqual(['a', '/a']);
    const throws: MiddlewareHandler = () => {
      throw new ApiError('rate_limited', 'Too many requests.');
    };
    const refused = await appWith(throws).request('/x');
    expect(refused.status).toBe(429);
    expect(await refused.json()).toEqual({ code: 'rate_limited', message: 'Too many requests.' });
  });

  it('adds no promise of its own: members that pass on hand back the route’s promise', async () => {
    const pass: MiddlewareHandler = (_c, next) => next();
    const routePromise = Promise.resolve();
    const returned = inSequence(pass, pass, pass)({} as never, () => routePromise);
    expect(returned).toBe(routePromise);
    await returned;
  });

  it('gives members that all pass on one next between them, and returns what they return', async () => {
    const nexts: unknown[] = [];
    const pass: MiddlewareHandler = (_c, next) => {
      nexts.push(next);
      return next();
    };
    const routePromise = Promise.resolve();
    const sequence = inSequence(passesOn(pass), passesOn(pass), passesOn(pass));
    expect(sequence({} as never, () => routePromise)).toBe(routePromise);
    expect(nexts).toHaveLength(3);
    expect(new Set(nexts).size).toBe(1);
    const answer = Promise.resolve(new Response('early'));
    const answers = passesOn(() => answer);
    expect(
      inSequence(passesOn(pass), answers, passesOn(pass))({} as never, () => routePromise),
    ).toBe(answer);
    expect(nexts).toHaveLength(4);
  });

  it("runs the API's edge as one layer, and with the host check and the route as one handler", () => {
    const app = createApp(defaultDeps({ logError: () => {} }));
    const router = app.router as unknown as { match: (m: string, p: string) => [unknown[]] };
    // The host check, the API's edge and the route, which all but the last pass on, are one
    // handler (one-handler.ts): three before, nine before 43bf7f2.
    expect(router.match('GET', '/openapi/v1/emails')[0]).toHaveLength(1);
    expect(router.match('PATCH', '/openapi/v1/emails/em_1')[0]).toHaveLength(1);
    expect(router.match('GET', '/openapi/v1/emails/em_1')[0]).toHaveLength(1);
  });
});

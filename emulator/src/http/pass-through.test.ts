/**
 * The edge's checks that act only before the route (host, key, rate limit, parameter bounds),
 * the chaos layer when no rule is armed, the access recorder and the response cache on a GET it
 * cannot answer pass an accepted request on with the next handler's own promise, not one of their own: each
 * async layer cost every request a promise and a turn of the microtask queue (issue 31 item 1).
 */
import type { Context, MiddlewareHandler } from 'hono';
import { describe, expect, it } from 'vitest';
import { createServices, defaultDeps } from '../app.ts';
import { chaosMiddleware } from '../chaos/http.ts';
import { SlidingWindowLimiter } from '../domain/rate-limit.ts';
import { requireApiKey } from './auth.ts';
import { hostCheck } from './host-check.ts';
import { parameterLimits } from './parameter-limits.ts';
import { rateLimit } from './rate-limit.ts';

/** A context with what these checks read, for a GET of `path` with `headers`. */
function contextOf(path: string, headers: Record<string, string>): Context {
  const values = new Map<string, unknown>();
  const url = `http://127.0.0.1${path}`;
  return {
    req: {
      url,
      method: 'GET',
      path,
      header: (name: string) => headers[name.toLowerCase()],
      queries: () => Object.fromEntries([...new URL(url).searchParams].map(([k, v]) => [k, [v]])),
      raw: new Request(url),
    },
    set: (key: string, value: unknown) => values.set(key, value),
    get: (key: string) => values.get(key),
  } as unknown as Context;
}

async function passesOn(middleware: MiddlewareHandler, c: Context): Promise<boolean> {
  const routePromise = Promise.resolve();
  const returned = middleware(c, () => routePromise);
  await returned;
  return returned === routePromise;
}

describe('checks that pass a request on', () => {
  const deps = defaultDeps({ logError: () => {} });
  const services = createServices(deps);
  const owner = services.directory.createOwner({ name: 'Acme' });
  services.directory.createMailbox({ address: 'a@acme.test' });
  services.directory.grant(owner.id, 'a@acme.test');
  const { secret } = services.directory.createKey({
    ownerId: owner.id,
    name: 'k',
    scope: 'follow-owner',
  });
  const headers = { host: '127.0.0.1', authorization: `Bearer ${secret}` };

  it('hand back the next handler’s own promise', async () => {
    const path = '/openapi/v1/emails?mailbox=a@acme.test';
    expect(await passesOn(hostCheck({ allowed: [] }), contextOf(path, headers))).toBe(true);
    expect(await passesOn(hostCheck({ allowed: 'all' }), contextOf(path, headers))).toBe(true);
    const auth = requireApiKey(deps.store);
    // The key decided afresh, then as kept.
    expect(await passesOn(auth, contextOf(path, headers))).toBe(true);
    expect(await passesOn(auth, contextOf(path, headers))).toBe(true);
    const c = contextOf(path, headers);
    await auth(c, () => Promise.resolve());
    expect(await passesOn(rateLimit(new SlidingWindowLimiter(null), deps.clock), c)).toBe(true);
    expect(await passesOn(parameterLimits(deps.spec, '/openapi/v1'), c)).toBe(true);
  });

  it('so do the chaos layer with no rule, the access recorder and a response cache miss', async () => {
    const path = '/openapi/v1/emails?mailbox=a@acme.test';
    const chaos = chaosMiddleware(services.chaos, '/openapi/v1');
    expect(await passesOn(chaos, contextOf(path, headers))).toBe(true);
    const recorder = services.accessByRequest.recorder();
    expect(await passesOn(recorder as MiddlewareHandler, contextOf(path, headers))).toBe(true);
    const c = contextOf(path, headers);
    await requireApiKey(deps.store)(c, () => Promise.resolve());
    const cache = services.responseCache.middleware(deps.store.version);
    expect(await passesOn(cache as MiddlewareHandler, c)).toBe(true);
    expect(services.responseCache.counts.misses).toBe(1);
  });
});

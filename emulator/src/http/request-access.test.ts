import { Hono } from 'hono';
import { describe, expect, it, vi } from 'vitest';
import type { Access } from '../domain/access.ts';
import type { ApiEnv } from './auth.ts';
import { inSequence } from './in-sequence.ts';
import { AccessByRequest } from './request-access.ts';

const access = { key: { name: 'app' } } as unknown as Access;

function appWith(accessByRequest: AccessByRequest) {
  const app = new Hono<ApiEnv>();
  app.use('*', accessByRequest.recorder());
  app.get('/ok', (c) => {
    c.set('access', access);
    return c.text('ok');
  });
  app.get('/refused', (c) => c.text('no', 401));
  return app;
}

describe('the access decided for each request', () => {
  it('is kept with its request, for this instance only, without a WeakMap entry a request', async () => {
    const mine = new AccessByRequest();
    const other = new AccessByRequest();
    const weakSets = vi.spyOn(WeakMap.prototype, 'set');
    const accepted = new Request('http://127.0.0.1/ok');
    const refused = new Request('http://127.0.0.1/refused');
    await appWith(mine).fetch(accepted);
    await appWith(mine).fetch(refused);
    const sets = weakSets.mock.calls.length;
    weakSets.mockRestore();
    expect(mine.of(accepted)).toBe(access);
    expect(mine.of(refused)).toBeUndefined();
    expect(other.of(accepted)).toBeUndefined();
    expect(sets).toBe(0);
  });

  it('is kept for a refusal thrown after the key was accepted, through a sequence', async () => {
    const mine = new AccessByRequest();
    const app = new Hono<ApiEnv>();
    app.onError((_error, c) => c.text('too many', 429));
    app.use(
      '*',
      inSequence<ApiEnv>(
        mine.recorder(),
        (c, next) => {
          c.set('access', access);
          return next();
        },
        () => {
          throw new Error('rate limited');
        },
      ),
    );
    app.get('/ok', (c) => c.text('ok'));
    const request = new Request('http://127.0.0.1/ok');
    expect((await app.fetch(request)).status).toBe(429);
    expect(mine.of(request)).toBe(access);
  });
});

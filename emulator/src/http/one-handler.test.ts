import { Hono, type MiddlewareHandler } from 'hono';
import { TrieRouter } from 'hono/router/trie-router';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../errors.ts';
import { inSequence } from './in-sequence.ts';
import { MemoRouter } from './memo-router.ts';
import { asOneHandler, isPassingOn, passesOn } from './one-handler.ts';

/**
 * The same routes on Hono's own router (every match composed) and on the memo router (a match
 * of handlers that pass on, run as one), with the same error renderer.
 */
function apps(withSeen = false) {
  const make = (router: TrieRouter<never> | MemoRouter<never>) => {
    const app = new Hono({ router });
    app.onError((error, c) =>
      error instanceof ApiError
        ? c.json(error.toBody(), error.status, { 'x-rendered': 'onError' })
        : c.text('boom', 500),
    );
    const seen: string[] = [];
    app.use(
      '*',
      passesOn((c, next) => {
        if (c.req.header('x-refuse') !== undefined) throw new ApiError('host_not_allowed', 'No.');
        return next();
      }),
    );
    const later: MiddlewareHandler = async (c, next) => {
      c.header('x-early', '1');
      if (c.req.query('answer') === 'edge') return c.text('edge', 202);
      if (c.req.query('answer') === 'throw-edge') throw new ApiError('rate_limited', 'Slow.');
      return next();
    };
    app.use(
      '/x/*',
      inSequence(
        passesOn(later),
        passesOn((_c, next) => next()),
      ),
    );
    if (withSeen)
      app.use('/x/*', async (c, next) => {
        await next();
        seen.push(c.res.status.toString());
        c.header('x-seen', '1');
      });
    app.get('/x/:id', (c) => {
      if (c.req.param('id') === 'gone') throw new ApiError('email_not_found', 'Gone.');
      return c.json({ id: c.req.param('id') });
    });
    app.patch('/x/:id', async (c) => {
      const body = await c.req.text();
      if (body === 'bad') throw new ApiError('invalid_json', 'Bad.');
      return c.json({ id: c.req.param('id'), body });
    });
    return { app, seen };
  };
  return { plain: make(new TrieRouter<never>()), one: make(new MemoRouter<never>()) };
}

async function exchange(app: Hono, path: string, init: RequestInit = {}) {
  const r = await app.request(path, init);
  return { status: r.status, headers: [...r.headers], body: await r.text() };
}

describe('a match run as one handler', () => {
  it('answers every request as the composed handlers do: answers, refusals, errors, params', async () => {
    const { plain, one } = apps();
    const cases: [string, RequestInit?][] = [
      ['/x/a%20b'],
      ['/x/gone'],
      ['/x/a?answer=edge'],
      ['/x/a?answer=throw-edge'],
      ['/x/a', { headers: { 'x-refuse': '1' } }],
      ['/x/a', { method: 'PATCH', body: 'fine' }],
      ['/x/a', { method: 'PATCH', body: 'bad' }],
      ['/x/a', { method: 'HEAD' }],
      ['/nothing'],
      ['/x/a', { method: 'DELETE' }],
    ];
    for (const [path, init] of cases)
      expect(await exchange(one.app, path, init)).toEqual(await exchange(plain.app, path, init));
    const router = one.app.router as unknown as MemoRouter<never>;
    expect(router.match('GET', '/x/a')[0]).toHaveLength(1);
  });

  it('leaves a match with a middleware that looks at the answer composed, as Hono runs it', async () => {
    const { plain, one } = apps(true);
    for (const path of ['/x/a', '/x/gone', '/x/a?answer=edge'])
      expect(await exchange(one.app, path)).toEqual(await exchange(plain.app, path));
    expect(one.seen).toEqual(['200', '404']);
    const router = one.app.router as unknown as MemoRouter<never>;
    expect(router.match('GET', '/x/a')[0]).toHaveLength(4);
  });

  it('is a sequence that passes on only when every member does', () => {
    const pass = passesOn((_c, next) => next());
    const looks: MiddlewareHandler = async (_c, next) => {
      await next();
    };
    expect(isPassingOn(inSequence(pass, pass))).toBe(true);
    expect(isPassingOn(inSequence(pass, looks))).toBe(false);
    expect(isPassingOn(looks)).toBe(false);
  });

  it('leaves other matches as they are', () => {
    const notHandlers: [[string, Record<string, string>][]] = [
      [
        ['a', {}],
        ['b', {}],
      ],
    ];
    expect(asOneHandler(notHandlers)).toBe(notHandlers);
    const single: [[[() => void, unknown], Record<string, string>][]] = [[[[() => {}, {}], {}]]];
    expect(asOneHandler(single)).toBe(single);
  });
});

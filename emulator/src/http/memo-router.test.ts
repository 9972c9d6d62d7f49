import { Hono } from 'hono';
import { TrieRouter } from 'hono/router/trie-router';
import { describe, expect, it, vi } from 'vitest';
import { MemoRouter } from './memo-router.ts';
import { createApp, createServices, defaultDeps } from '../app.ts';

describe('the memo router', () => {
  it('matches a method and path once, and answers as the router it wraps', async () => {
    const trie = new TrieRouter<never>();
    const matches = vi.spyOn(trie, 'match');
    const app = new Hono({ router: new MemoRouter(trie) });
    app.use('*', async (c, next) => {
      await next();
      c.header('x-seen', '1');
    });
    app.get('/emails', (c) => c.text('list'));
    app.get('/emails/:id', (c) => c.text(`one ${c.req.param('id')}`));
    app.post('/emails/send', (c) => c.text('send'));
    const answer = async (path: string, method = 'GET') => {
      const r = await app.request(path, { method });
      return `${r.status} ${r.headers.get('x-seen')} ${await r.text()}`;
    };
    expect(await answer('/emails')).toBe('200 1 list');
    expect(await answer('/emails')).toBe('200 1 list');
    expect(await answer('/emails/a%20b')).toBe('200 1 one a b');
    expect(await answer('/emails/c')).toBe('200 1 one c');
    expect(await answer('/emails/c')).toBe('200 1 one c');
    expect(await answer('/emails/send', 'POST')).toBe('200 1 send');
    expect(await answer('/emails/send')).toBe('200 1 one send');
    expect(await answer('/nothing')).toBe('404 1 404 Not Found');
    expect(matches).toHaveBeenCalledTimes(6);
  });

  it('forgets what it kept when a route is added', () => {
    const router = new MemoRouter<string>(new TrieRouter<string>());
    router.add('GET', '/a', 'first');
    expect(router.match('GET', '/a')[0].map(([h]) => h)).toEqual(['first']);
    router.add('GET', '/a', 'second');
    expect(router.match('GET', '/a')[0].map(([h]) => h)).toEqual(['first', 'second']);
  });

  it("is the emulator's router: a repeated API request is matched once", async () => {
    const matches = vi.spyOn(TrieRouter.prototype, 'match');
    const deps = defaultDeps({ logError: () => {} });
    const app = createApp(deps, createServices(deps));
    for (let i = 0; i < 3; i += 1)
      expect((await app.request('/openapi/v1/emails?mailbox=x@y.test')).status).toBe(401);
    expect(matches).toHaveBeenCalledTimes(1);
    matches.mockRestore();
  });
});

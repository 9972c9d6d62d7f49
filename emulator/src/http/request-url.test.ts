import fc from 'fast-check';
import { Hono } from 'hono';
import { describe, expect, it, vi } from 'vitest';
import { pathAndSearchOf, pathnameOf, queriesOf } from './request-url.ts';

const parsedBy = (url: string) => {
  try {
    const { pathname, search } = new URL(url);
    return { pathname, search };
  } catch {
    return 'invalid';
  }
};
const ours = (url: string) => {
  try {
    return pathAndSearchOf(url);
  } catch {
    return 'invalid';
  }
};

/** Characters URL parsing treats specially somewhere, beside plain ones. */
const CHARS = [...'aZ09-_~.!$&\'()*+,;=:@/?#%[]\\^`{}|"<> \t\né€', '%2F', '%41', '/..', '/./'];

describe("a request URL's path and query", () => {
  it('reads the path and query of plain URLs as URL parsing does', () => {
    for (const url of [
      'http://127.0.0.1:3000/openapi/v1/emails?mailbox=hello@acme.test&q=invoice&limit=25',
      'http://localhost/openapi/v1/emails/em_1',
      'http://localhost/openapi/v1/emails?',
      'http://localhost/openapi/v1/emails?mailbox=hello%40acme.test&q=a%20b',
      'https://example.test/a/b/?x=1?y=2',
    ])
      expect(pathAndSearchOf(url)).toEqual(parsedBy(url));
  });

  it('gives what URL parsing gives for any URL', () => {
    const piece = fc.array(fc.constantFrom(...CHARS), { maxLength: 12 }).map((a) => a.join(''));
    const url = fc
      .tuple(
        fc.constantFrom('http://', 'https://', 'HTTP://', 'ws://', ' http://', 'x:'),
        fc.constantFrom('127.0.0.1:3000', 'localhost', 'a.test', '[::1]:80', 'h?o', 'u@h', 'h#x'),
        piece,
        fc.option(piece),
      )
      .map(([s, h, p, q]) => `${s}${h}/${p}${q === null ? '' : `?${q}`}`);
    fc.assert(
      fc.property(url, (u) => {
        const expected = parsedBy(u);
        expect(ours(u)).toEqual(expected);
        if (expected !== 'invalid') expect(pathnameOf(u)).toBe(expected.pathname);
      }),
      { numRuns: 5000 },
    );
  });
});

describe('the query parameters of a request', () => {
  it('are parsed once however often they are read', async () => {
    const app = new Hono();
    let parses = 0;
    let sets = -1;
    app.get('/', (c) => {
      const queries = vi.spyOn(c.req, 'queries');
      const weakSets = vi.spyOn(WeakMap.prototype, 'set');
      const first = queriesOf(c);
      const again = queriesOf(c);
      sets = weakSets.mock.calls.length;
      weakSets.mockRestore();
      parses = queries.mock.calls.length;
      return c.json({ same: first === again, first });
    });
    const answer = await app.request('/?a=1&b=x%20y&a=2');
    expect(await answer.json()).toEqual({ same: true, first: { a: ['1', '2'], b: ['x y'] } });
    expect(parses).toBe(1);
    // Kept with the request, not in a WeakMap entry a request.
    expect(sets).toBe(0);
  });

  it('are kept for their own request only', async () => {
    const app = new Hono();
    app.get('/', (c) => c.json(queriesOf(c)));
    expect(await (await app.request('/?a=1')).json()).toEqual({ a: ['1'] });
    expect(await (await app.request('/?b=2')).json()).toEqual({ b: ['2'] });
  });
});

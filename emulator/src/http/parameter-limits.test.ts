import { Hono } from 'hono';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from '../errors.ts';
import type { OpenApiDocument } from '../spec.ts';
import { parameterLimits } from './parameter-limits.ts';

const id = { name: 'id', in: 'path', required: true, schema: { type: 'string', maxLength: 4 } };
const SPEC = {
  openapi: '3.1.0',
  paths: {
    '/things': {
      get: { parameters: [{ name: 'q', in: 'query', schema: { type: 'string', maxLength: 3 } }] },
    },
    '/things/send': { post: {} },
    '/things/{id}': { parameters: [id], get: {}, patch: {} },
    '/things/{id}/parts/{part}': {
      get: {
        parameters: [
          id,
          { name: 'part', in: 'path', required: true, schema: { type: 'string', maxLength: 2 } },
        ],
      },
    },
  },
} as unknown as OpenApiDocument;

function app() {
  const a = new Hono();
  a.onError((error, c) =>
    error instanceof ApiError ? c.json(error.toBody(), error.status) : c.text('boom', 500),
  );
  a.use('*', parameterLimits(SPEC, '/v1'));
  a.all('*', (c) => c.text('passed'));
  return a;
}

async function status(method: string, path: string): Promise<string> {
  const r = await app().request(path, { method });
  return r.status === 200 ? 'passed' : String(((await r.json()) as { field: string }).field);
}

describe('parameterLimits', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('refuses an over-long path or query parameter of the operation the path names', async () => {
    expect(await status('GET', '/v1/things/abcd')).toBe('passed');
    expect(await status('GET', '/v1/things/abcde')).toBe('id');
    expect(await status('PATCH', '/v1/things/abcde/')).toBe('id');
    expect(await status('GET', '/v1/things/ab/parts/xy')).toBe('passed');
    expect(await status('GET', '/v1/things/ab/parts/xyz')).toBe('part');
    expect(await status('GET', '/v1/things/abcde/parts/xy')).toBe('id');
    expect(await status('GET', '/v1/things?q=abc')).toBe('passed');
    expect(await status('GET', '/v1/things?q=abcd')).toBe('q');
    expect(await status('GET', '/v1/things/?q=abcd')).toBe('q');
    // Decoded as the routes see it: four code points.
    expect(await status('GET', '/v1/things/%C3%A9%C3%A9%C3%A9%C3%A9')).toBe('passed');
    expect(await status('GET', '/v1/things/%C3%A9%C3%A9%C3%A9%C3%A9%C3%A9')).toBe('id');
    // A dot segment is resolved as URL parsing does.
    expect(await status('GET', '/v1/other/%2e%2e/things/abcde')).toBe('id');
  });

  it('checks nothing where no operation matches, and a literal path beats a template', async () => {
    expect(await status('DELETE', '/v1/things/abcde')).toBe('passed');
    expect(await status('GET', '/v1/things//')).toBe('passed');
    expect(await status('GET', '/v1/thingsabcde')).toBe('passed');
    expect(await status('GET', '/v2/things/abcde')).toBe('passed');
    expect(await status('GET', '/v1/things/send')).toBe('passed');
  });

  it('finds the operation without parsing a plain URL again', async () => {
    const parsed = vi.fn();
    class CountingUrl extends URL {
      constructor(...args: ConstructorParameters<typeof URL>) {
        super(...args);
        parsed();
      }
    }
    const a = app();
    const request = new Request('http://localhost/v1/things/abcde?q=x');
    vi.stubGlobal('URL', CountingUrl);
    const r = await a.request(request);
    vi.unstubAllGlobals();
    expect(((await r.json()) as { field: string }).field).toBe('id');
    expect(parsed).not.toHaveBeenCalled();
  });

  it('matches a method and path to its operation once, and keeps checking every request', async () => {
    const a = app();
    const answer = async (path: string, method = 'GET') => {
      const r = await a.request(path, { method });
      return r.status === 200 ? 'passed' : ((await r.json()) as { field: string }).field;
    };
    expect(await answer('/v1/things/abcd')).toBe('passed');
    expect(await answer('/v1/things?q=abc')).toBe('passed');
    const filters = vi.spyOn(Array.prototype, 'filter');
    expect(await answer('/v1/things/abcd')).toBe('passed');
    expect(await answer('/v1/things?q=abcd')).toBe('q');
    const matched = filters.mock.calls.length;
    filters.mockRestore();
    expect(matched).toBe(0);
    // Kept by method and path: another method of the path is matched for itself.
    expect(await answer('/v1/things/abcd', 'DELETE')).toBe('passed');
    expect(await answer('/v1/things/abcde', 'PATCH')).toBe('id');
  });
});

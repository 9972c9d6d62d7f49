import { describe, expect, it } from 'vitest';
import { createApp, defaultDeps } from './app.ts';
import { loadSpec } from './spec.ts';

const spec = loadSpec();

describe('the emulator app', () => {
  it('serves openapi.json with this instance as the only server, full /openapi/v1 base URL', async () => {
    const app = createApp(defaultDeps({ spec }));
    const response = await app.request('http://127.0.0.1:4321/openapi/openapi.json');
    expect(response.status).toBe(200);
    const served = (await response.json()) as {
      openapi: string;
      servers: { url: string }[];
      paths: object;
    };
    expect(served.openapi).toBe('3.1.0');
    expect(served.servers.map((s) => s.url)).toEqual(['http://127.0.0.1:4321/openapi/v1']);
    expect(Object.keys(served.paths)).toEqual(Object.keys(spec.paths as object));
  });

  it('serves the docs page and its Swagger UI assets from the npm package, not a CDN', async () => {
    const app = createApp(defaultDeps({ spec }));
    const page = await (await app.request('/openapi/docs')).text();
    const sources = [...page.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1] ?? '');
    expect(sources.filter((s) => /^https?:/.test(s))).toEqual([]);
    for (const asset of [
      'swagger-ui.css',
      'swagger-ui-bundle.js',
      'swagger-ui-standalone-preset.js',
    ]) {
      const response = await app.request(`/openapi/docs/assets/${asset}`);
      expect(response.status, asset).toBe(200);
      expect((await response.text()).length, asset).toBeGreaterThan(1000);
    }
    expect((await app.request('/openapi/docs/assets/index.html')).status).toBe(404);
  });

  it('answers an unknown path with 404 not_found in the Error schema', async () => {
    const app = createApp(defaultDeps({ spec }));
    const response = await app.request('/nothing-here');
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await response.json()).toEqual({
      code: 'not_found',
      message:
        'No such path: GET /nothing-here. API paths are under /openapi/v1, the control plane under /_mailtwin/v1.',
    });
  });

  it('turns an unexpected error into 500 internal_error with no stack trace, and logs it', async () => {
    const logged: unknown[] = [];
    const deps = defaultDeps({ spec, logError: (e) => logged.push(e) });
    deps.store.directory.findKeyByLookup = () => {
      throw new Error('secret internal detail');
    };
    const app = createApp(deps);
    const response = await app.request('/openapi/v1/mailboxes', {
      headers: { Authorization: `Bearer sk-abcdefghijkl_${'x'.repeat(32)}` },
    });
    expect(response.status).toBe(500);
    const text = await response.text();
    expect(JSON.parse(text)).toEqual({
      code: 'internal_error',
      message: 'An unexpected error occurred.',
    });
    expect(text).not.toContain('secret internal detail');
    expect(logged).toHaveLength(1);
  });

  it('does not log the failure of a request whose client has gone away', async () => {
    const logged: unknown[] = [];
    const deps = defaultDeps({ spec, logError: (e) => logged.push(e) });
    deps.store.directory.findKeyByLookup = () => {
      throw new Error('aborted');
    };
    const gone = new AbortController();
    gone.abort();
    const response = await createApp(deps).request(
      new Request('http://127.0.0.1/openapi/v1/mailboxes', {
        headers: { Authorization: `Bearer sk-abcdefghijkl_${'x'.repeat(32)}` },
        signal: gone.signal,
      }),
    );
    expect(response.status).toBe(500);
    expect(logged).toEqual([]);
  });
});

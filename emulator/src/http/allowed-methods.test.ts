import { describe, expect, it } from 'vitest';
import { createApp, createServices, defaultDeps } from '../app.ts';
import { controlSpec } from '../routes/control/body.ts';
import { loadSpec } from '../spec.ts';
import { allowedMethods, pathMethodsOf, routeMethods } from './allowed-methods.ts';

const spec = loadSpec();
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

describe('allowedMethods', () => {
  const table = [
    ...pathMethodsOf('/v1', {
      paths: {
        '/emails/{emailId}': { get: {}, patch: {}, delete: {}, parameters: [] },
        '/emails/send': { post: {} },
      },
    }),
    ...routeMethods({ '/files/{token}/{name}': ['GET'] }),
  ];

  it('unites every template that matches, adds HEAD to GET, and ignores non-method keys', () => {
    expect(allowedMethods(table, '/v1/emails/abc')).toEqual(['GET', 'DELETE', 'HEAD', 'PATCH']);
    expect(allowedMethods(table, '/v1/emails/send')).toEqual([
      'GET',
      'POST',
      'DELETE',
      'HEAD',
      'PATCH',
    ]);
  });

  it('matches a parameter as exactly one non-empty segment, and a trailing slash', () => {
    expect(allowedMethods(table, '/v1/emails/')).toEqual([]);
    expect(allowedMethods(table, '/v1/emails/a/b')).toEqual([]);
    expect(allowedMethods(table, '/v1/emails/abc/')).toHaveLength(4);
    expect(allowedMethods(table, '/files/t/n.pdf')).toEqual(['GET', 'HEAD']);
    expect(allowedMethods(table, '/files/t')).toEqual([]);
  });

  it('treats the template text literally, not as a pattern', () => {
    const dotted = routeMethods({ '/openapi.json': ['GET'] });
    expect(allowedMethods(dotted, '/openapiXjson')).toEqual([]);
  });
});

/** A request to every path of both contracts with every method each does not declare. */
describe('wrong method on a known path (D-12)', () => {
  const deps = defaultDeps({ spec, controlToken: 'mt_test', logError: () => {} });
  const services = createServices(deps);
  const owner = services.directory.createOwner({ name: 'Acme' });
  const { secret } = services.directory.createKey({
    ownerId: owner.id,
    name: 'app',
    scope: 'follow-owner',
  });
  const app = createApp(deps, services);
  const cases = [
    { prefix: '/openapi/v1', document: spec, token: secret },
    { prefix: '/_mailtwin/v1', document: controlSpec(), token: 'mt_test' },
  ].flatMap(({ prefix, document, token }) => {
    const paths = Object.entries(document.paths as Record<string, Record<string, unknown>>);
    // A concrete path may match several templates (`/emails/send` is also `/emails/{emailId}`).
    const declaredFor = (path: string) =>
      paths
        .filter(([template]) => sameShape(template, path))
        .flatMap(([, item]) => Object.keys(item).map((m) => m.toUpperCase()))
        .filter((m) => METHODS.includes(m));
    return paths.map(([template]) => {
      const path = template.replace(/\{[^}]+\}/g, 'x1');
      return { path: prefix + path, declared: declaredFor(path), token };
    });
  });

  it.each(cases)(
    'answers 405 method_not_allowed with Allow on $path',
    async ({ path, declared, token }) => {
      for (const method of METHODS.filter((m) => !declared.includes(m))) {
        if (method === 'HEAD' && declared.includes('GET')) continue;
        const response = await app.request(path, {
          method,
          headers: { Authorization: `Bearer ${token}` },
        });
        const allow = (response.headers.get('allow') ?? '').split(', ');
        expect(response.status, `${method} ${path}`).toBe(405);
        if (method !== 'HEAD') {
          expect(await response.json(), `${method} ${path}`).toMatchObject({
            code: 'method_not_allowed',
          });
        }
        for (const m of declared) expect(allow, `${method} ${path}`).toContain(m);
        expect(allow, `${method} ${path}`).not.toContain(method);
      }
    },
  );

  it('answers the issue’s four examples with 405 and the methods the path has', async () => {
    const headers = { Authorization: `Bearer ${secret}` };
    const expected: [string, string, string][] = [
      ['PUT', '/openapi/v1/mailboxes', 'GET, HEAD'],
      ['POST', '/openapi/v1/emails', 'GET, HEAD'],
      ['DELETE', '/openapi/v1/attachments/x', 'GET, HEAD'],
      ['PUT', '/openapi/v1/emails/x', 'GET, DELETE, HEAD, PATCH'],
      ['PUT', '/_mailtwin/sink', 'POST'],
      ['POST', '/openapi/openapi.json', 'GET, HEAD'],
    ];
    for (const [method, path, allow] of expected) {
      const response = await app.request(path, { method, headers });
      expect(response.status, `${method} ${path}`).toBe(405);
      expect(response.headers.get('allow'), `${method} ${path}`).toBe(allow);
    }
  });

  it('answers 404, not 405, when the path has the method but not the thing asked for', async () => {
    const response = await app.request('/openapi/docs/assets/index.html');
    expect(response.status).toBe(404);
    expect(response.headers.get('allow')).toBeNull();
  });

  it('still answers 404 not_found on a path no route has, and 401 before 405 without a key', async () => {
    expect((await app.request('/openapi/v1/nothing', { method: 'PUT' })).status).toBe(401);
    const unknown = await app.request('/openapi/v1/nothing', {
      method: 'PUT',
      headers: { Authorization: `Bearer ${secret}` },
    });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ code: 'not_found' });
    expect((await app.request('/openapi/v1/mailboxes', { method: 'PUT' })).status).toBe(401);
  });
});

/** Segment by segment: a `{param}` segment of the template matches any one segment. */
function sameShape(template: string, path: string): boolean {
  const t = template.split('/');
  const p = path.split('/');
  return (
    t.length === p.length && t.every((segment, i) => segment.startsWith('{') || segment === p[i])
  );
}

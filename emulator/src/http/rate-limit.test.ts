// D-38 through the whole app: `rateLimit` in AppDeps, the middleware after authentication, the
// clock the control plane moves. The 429 is checked against what spec/openapi.yaml declares for
// it (the operation's 429 is RateLimited, its code is listed, its body is the Error schema, its
// Retry-After header is documented), with Ajv as the conformance suite checks a deployment.
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { describe, expect, it, vi } from 'vitest';
import { createApp, createServices, defaultDeps } from '../app.ts';
import type { AppDeps } from '../deps.ts';
import { ControllableClock } from '../clock.ts';
import type { RateLimit } from '../domain/rate-limit.ts';
import { loadSpec } from '../spec.ts';

const spec = loadSpec();
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
ajv.addSchema(spec, 'openapi');

interface ResponseObject {
  $ref?: string;
  'x-error-codes'?: string[];
  headers?: Record<string, { required?: boolean; schema: object }>;
  content?: Record<string, { schema: object }>;
}
const components = (spec as { components: { responses: Record<string, ResponseObject> } })
  .components;
const paths = spec.paths as Record<
  string,
  Record<string, { responses: Record<string, ResponseObject> }>
>;

const TOKEN = 'mt_rate_limit_test';
const T0 = Date.UTC(2026, 10, 20, 9, 30, 0, 0);

/** An app whose clock stands still at T0 unless the control plane moves it, with two keys. */
function setUp(rateLimit: RateLimit | null, overrides: Partial<AppDeps> = {}) {
  const deps = defaultDeps({
    spec,
    controlToken: TOKEN,
    clock: new ControllableClock(() => T0),
    rateLimit,
    logError: (error) => {
      throw error;
    },
    ...overrides,
  });
  const services = createServices(deps);
  const owner = services.directory.createOwner({ name: 'Acme' });
  const key = (name: string) =>
    services.directory.createKey({ ownerId: owner.id, name, scope: 'follow-owner' });
  const first = key('first');
  const second = key('second');
  const app = createApp(deps, services);
  const api = (secret: string, path = '/mailboxes') =>
    app.request(`/openapi/v1${path}`, { headers: { Authorization: `Bearer ${secret}` } });
  const control = (method: string, path: string, json?: unknown) =>
    app.request(`/_mailtwin/v1${path}`, {
      method,
      headers: {
        Authorization: `Bearer ${TOKEN}`,
        ...(json === undefined ? {} : { 'Content-Type': 'application/json' }),
      },
      body: json === undefined ? undefined : JSON.stringify(json),
    });
  const advance = async (advanceMs: number) => {
    expect((await control('POST', '/clock', { advanceMs })).status).toBe(200);
  };
  return { app, api, control, advance, first, second, services };
}

/** Asserts `response` is the 429 spec/openapi.yaml declares for `method path`; returns its wait. */
async function expectRateLimited(
  response: Response,
  method: string,
  template: string,
): Promise<number> {
  expect(response.status).toBe(429);
  const declared = paths[template]?.[method]?.responses['429'];
  expect(declared?.$ref, `${method} ${template} declares 429`).toBe(
    '#/components/responses/RateLimited',
  );
  const rateLimited = components.responses.RateLimited as ResponseObject;
  expect(rateLimited['x-error-codes']).toEqual(['rate_limited']);
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  const body: unknown = await response.json();
  const validateBody = ajv.compile({
    $ref: 'openapi#/components/responses/RateLimited/content/application~1json/schema',
  });
  expect(validateBody(body), ajv.errorsText(validateBody.errors)).toBe(true);
  expect(body).toMatchObject({ code: 'rate_limited' });
  const header = rateLimited.headers?.['Retry-After'];
  expect(header?.required).toBe(true);
  const raw = response.headers.get('retry-after');
  expect(raw).toMatch(/^[1-9][0-9]*$/);
  const validateHeader = ajv.compile(header?.schema as object);
  expect(validateHeader(Number(raw)), ajv.errorsText(validateHeader.errors)).toBe(true);
  return Number(raw);
}

describe('the request rate limit (D-38)', () => {
  it('answers the (n+1)th request of a key in the window 429 rate_limited with Retry-After', async () => {
    const { api, first } = setUp({ requests: 3, windowMs: 60_000 });
    // Every operation draws on the same budget.
    expect((await api(first.secret)).status).toBe(200);
    expect((await api(first.secret, '/emails?mailbox=nobody@acme.test')).status).toBe(404);
    expect((await api(first.secret)).status).toBe(200);
    const refused = await api(first.secret);
    expect(await expectRateLimited(refused.clone(), 'get', '/mailboxes')).toBe(60);
    expect(await refused.json()).toEqual({
      code: 'rate_limited',
      message:
        'Too many requests: this API key may make 3 requests per 1 minute; retry after 60 seconds.',
    });
    const other = await api(first.secret, '/emails/eml_missing');
    expect(await expectRateLimited(other, 'get', '/emails/{emailId}')).toBe(60);
  });

  it('counts each key on its own: another key of the same owner is not affected', async () => {
    const { api, first, second } = setUp({ requests: 1, windowMs: 60_000 });
    expect((await api(first.secret)).status).toBe(200);
    expect((await api(first.secret)).status).toBe(429);
    expect((await api(second.secret)).status).toBe(200);
    expect((await api(second.secret)).status).toBe(429);
  });

  it('frees the key exactly after Retry-After seconds on the clock the control plane moves', async () => {
    const { api, advance, first } = setUp({ requests: 2, windowMs: 60_000 });
    expect((await api(first.secret)).status).toBe(200);
    await advance(20_000);
    expect((await api(first.secret)).status).toBe(200);
    expect(await expectRateLimited(await api(first.secret), 'get', '/mailboxes')).toBe(40);
    await advance(39_999);
    expect(await expectRateLimited(await api(first.secret), 'get', '/mailboxes')).toBe(1);
    await advance(1);
    expect((await api(first.secret)).status).toBe(200);
    // The second request (at 20 s) is now the oldest: free 20 s after it leaves... at 80 s.
    expect(await expectRateLimited(await api(first.secret), 'get', '/mailboxes')).toBe(20);
    await advance(20_000);
    expect((await api(first.secret)).status).toBe(200);
  });

  it('answers a request without a valid key 401, never 429, and does not count it', async () => {
    const { api, first } = setUp({ requests: 1, windowMs: 60_000 });
    for (let i = 0; i < 5; i += 1) {
      expect((await api(`sk-abcdefghijkl_${'x'.repeat(32)}`)).status).toBe(401);
    }
    expect((await api(first.secret)).status).toBe(200);
    expect((await api(first.secret)).status).toBe(429);
    expect((await api(`sk-abcdefghijkl_${'x'.repeat(32)}`)).status).toBe(401);
  });

  it('never limits the control plane, the spec, the docs or public attachment URLs', async () => {
    const { app, api, control, first } = setUp({ requests: 1, windowMs: 60_000 });
    expect((await api(first.secret)).status).toBe(200);
    expect((await api(first.secret)).status).toBe(429);
    for (let i = 0; i < 5; i += 1) {
      expect((await control('GET', '/clock')).status).toBe(200);
      expect((await control('GET', '/keys')).status).toBe(200);
      expect((await control('GET', '/rate-limit')).status).toBe(200);
      expect((await app.request('/openapi/openapi.json')).status).toBe(200);
      expect((await app.request('/content/none/file.txt')).status).not.toBe(429);
    }
  });

  it('limits nothing when no limit is configured (the default), and reads no time for it', async () => {
    const { api, first, services } = setUp(null);
    const now = vi.spyOn(services.deps.clock, 'now');
    const take = vi.spyOn(services.rateLimiter, 'take');
    for (let i = 0; i < 50; i += 1) expect((await api(first.secret)).status).toBe(200);
    expect(take).not.toHaveBeenCalled();
    expect(now).not.toHaveBeenCalled();
  });

  it('is turned on, changed and off through PUT /rate-limit without a restart', async () => {
    const { api, control, first } = setUp(null);
    expect(await (await control('GET', '/rate-limit')).json()).toEqual({ rateLimit: null });
    const on = await control('PUT', '/rate-limit', {
      rateLimit: { requests: 1, windowMs: 10_000 },
    });
    expect(await on.json()).toEqual({ rateLimit: { requests: 1, windowMs: 10_000 } });
    expect((await api(first.secret)).status).toBe(200);
    expect(await expectRateLimited(await api(first.secret), 'get', '/mailboxes')).toBe(10);
    // A new setting starts every count afresh.
    await control('PUT', '/rate-limit', { rateLimit: { requests: 2, windowMs: 10_000 } });
    expect((await api(first.secret)).status).toBe(200);
    expect((await api(first.secret)).status).toBe(200);
    expect((await api(first.secret)).status).toBe(429);
    await control('PUT', '/rate-limit', { rateLimit: null });
    expect((await api(first.secret)).status).toBe(200);
  });

  it('forgets the counts on reset and keeps the limit, so reloaded fixed keys start afresh', async () => {
    const { api, control, services } = setUp({ requests: 1, windowMs: 60_000 });
    const secret = `sk-FixedKey0001_${'a1B2c3D4'.repeat(4)}`;
    const fixedKey = () => {
      const owner = services.directory.createOwner({ name: 'Fixed', id: 'own_fixed' });
      services.directory.createKey({
        ownerId: owner.id,
        id: 'key_fixed',
        name: 'fixed',
        scope: 'follow-owner',
        secret,
      });
    };
    fixedKey();
    expect((await api(secret)).status).toBe(200);
    expect((await api(secret)).status).toBe(429);
    expect((await control('POST', '/reset')).status).toBe(204);
    expect(await (await control('GET', '/rate-limit')).json()).toEqual({
      rateLimit: { requests: 1, windowMs: 60_000 },
    });
    fixedKey();
    expect((await api(secret)).status).toBe(200);
    expect((await api(secret)).status).toBe(429);
  });
});

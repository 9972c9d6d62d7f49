// The control plane (/_mailtwin/v1) against its contract, spec/control.yaml. Every exchange goes
// through `control()`, which checks that the spec declares the answer's status for that operation
// and validates the body against the declared schema (Ajv, JSON Schema 2020-12), so no test can
// pass on an answer the contract does not allow. The last test checks every operation was used.
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import fc from 'fast-check';
import { simpleParser } from 'mailparser';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { createApp, defaultDeps } from '../app.ts';
import type { AppDeps } from '../deps.ts';
import { ControllableClock } from '../clock.ts';
import { CONTROL_SPEC_PATH } from './control/body.ts';

const TOKEN = 'test-token';
const BASE = '/_mailtwin/v1';
const SECRET = `sk-FixtureKey01_${'a1B2c3D4'.repeat(4)}`;

type Method = 'get' | 'post' | 'put' | 'delete';
interface Operation {
  responses: Record<string, { $ref?: string; content?: Record<string, unknown> }>;
}
interface ControlSpec {
  paths: Record<string, Partial<Record<Method, Operation>>>;
  components: { responses: Record<string, { content?: Record<string, unknown> }> };
}

const spec = parse(readFileSync(CONTROL_SPEC_PATH, 'utf8')) as ControlSpec;
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
ajv.addSchema(spec, 'control');

const validators = new Map<string, ValidateFunction>();
const templates = Object.keys(spec.paths).map((template) => ({
  template,
  pattern: new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`),
}));
/** `GET /owners/{ownerId} 200`, for every exchange that succeeded (the coverage check). */
const succeeded = new Set<string>();

const escapePointer = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');

/**
 * What spec/control.yaml declares for this answer: its media type (null for no content, as a
 * 204) and, for JSON, the Ajv pointer to its schema. Fails the test when the status is not
 * declared.
 */
function declaredResponse(
  method: Method,
  path: string,
  status: number,
): { mediaType: string | null; pointer: string | null } {
  const found = templates.find((t) => t.pattern.test(path));
  expect(found, `spec/control.yaml has a path for ${path}`).toBeDefined();
  const template = (found as { template: string }).template;
  const operation = spec.paths[template]?.[method];
  expect(operation, `spec/control.yaml has ${method.toUpperCase()} ${template}`).toBeDefined();
  let response = (operation as Operation).responses[String(status)];
  const label = `${method.toUpperCase()} ${template} ${status}`;
  expect(response, `spec/control.yaml declares ${label}`).toBeDefined();
  let pointer = `control#/paths/${escapePointer(template)}/${method}/responses/${status}`;
  if (response?.$ref !== undefined) {
    const name = response.$ref.replace('#/components/responses/', '');
    pointer = `control${response.$ref}`;
    response = spec.components.responses[name];
  }
  if (status < 300) succeeded.add(label);
  const mediaTypes = Object.keys(response?.content ?? {});
  expect(mediaTypes.length, `${label} declares at most one media type`).toBeLessThan(2);
  const mediaType = mediaTypes[0] ?? null;
  return {
    mediaType,
    pointer:
      mediaType === 'application/json' ? `${pointer}/content/application~1json/schema` : null,
  };
}

function validatorFor(pointer: string): ValidateFunction {
  let validate = validators.get(pointer);
  if (validate === undefined) {
    validate = ajv.compile({ $ref: pointer });
    validators.set(pointer, validate);
  }
  return validate;
}

interface Answer {
  status: number;
  headers: Headers;
  body: any;
}

interface CallOptions {
  json?: unknown;
  body?: string | Uint8Array;
  contentType?: string;
  /** The Authorization header; default the control token, null for none. */
  authorization?: string | null;
}

/** One control-plane exchange, its answer checked against spec/control.yaml. */
async function control(
  app: ReturnType<typeof createApp>,
  method: Method,
  path: string,
  options: CallOptions = {},
): Promise<Answer> {
  const headers: Record<string, string> = {};
  const authorization =
    options.authorization === undefined ? `Bearer ${TOKEN}` : options.authorization;
  if (authorization !== null) headers.Authorization = authorization;
  let body = options.body;
  if (options.json !== undefined) {
    body = JSON.stringify(options.json);
    headers['Content-Type'] = 'application/json';
  }
  if (options.contentType !== undefined) headers['Content-Type'] = options.contentType;
  const response = await app.request(`${BASE}${path}`, {
    method: method.toUpperCase(),
    headers,
    body: body as RequestInit['body'],
  });
  const bytes = new Uint8Array(await response.arrayBuffer());
  const text = new TextDecoder().decode(bytes);
  const { mediaType, pointer } = declaredResponse(
    method,
    path.split('?')[0] as string,
    response.status,
  );
  if (mediaType === null) {
    expect(text, `${method} ${path} answers ${response.status} with no body`).toBe('');
    return { status: response.status, headers: response.headers, body: undefined };
  }
  if (pointer === null) {
    // Not JSON (an .eml): the declared media type, and the bytes as they came.
    expect(response.headers.get('content-type')?.split(';')[0]).toBe(mediaType);
    return { status: response.status, headers: response.headers, body: bytes };
  }
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  const parsed: unknown = JSON.parse(text);
  const validate = validatorFor(pointer);
  expect(
    validate(parsed),
    `${method} ${path} ${response.status}: ${ajv.errorsText(validate.errors)}`,
  ).toBe(true);
  return { status: response.status, headers: response.headers, body: parsed };
}

/** A request to the public API with an API key (the control plane's effects, seen by clients). */
async function api(app: ReturnType<typeof createApp>, secret: string, path: string) {
  const response = await app.request(`/openapi/v1${path}`, {
    headers: { Authorization: `Bearer ${secret}` },
  });
  return { status: response.status, body: (await response.json()) as any };
}

/** A JSON POST to the public API (send, reply, forward), as a client makes it. */
async function apiPost(
  app: ReturnType<typeof createApp>,
  secret: string,
  path: string,
  json: unknown,
) {
  const response = await app.request(`/openapi/v1${path}`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${secret}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(json),
  });
  return { status: response.status, body: (await response.json()) as any };
}

/** The subjects of a mailbox's `sent` folder, newest first, as the API lists them. */
async function sentSubjects(app: ReturnType<typeof createApp>, mailbox = 'alice@acme.test') {
  const listed = await api(app, SECRET, `/emails?mailbox=${mailbox}&folder=sent`);
  expect(listed.status).toBe(200);
  return listed.body.emails.map((e: { subject: string }) => e.subject) as string[];
}

function setup(overrides: Partial<AppDeps> = {}) {
  const deps = defaultDeps({ controlToken: TOKEN, ...overrides });
  return { deps, app: createApp(deps) };
}

/** An owner `own_alice` granted alice@acme.test, with a follow-owner key of secret SECRET. */
async function world(app: ReturnType<typeof createApp>) {
  await control(app, 'post', '/owners', { json: { name: 'Alice Martin', id: 'own_alice' } });
  await control(app, 'post', '/mailboxes', {
    json: { address: 'alice@acme.test', displayName: 'Alice' },
  });
  await control(app, 'put', '/owners/own_alice/grants/alice@acme.test');
  const key = await control(app, 'post', '/keys', {
    json: { ownerId: 'own_alice', name: 'Billing app', scope: 'follow-owner', secret: SECRET },
  });
  return { keyId: key.body.id as string };
}

const FIXED_NOW = Date.parse('2026-11-20T09:00:00.000Z');
const fixedClock = () => new ControllableClock(() => FIXED_NOW);

describe('control plane authentication', () => {
  it('refuses a request without a control token with 401 invalid_control_token in its own realm', async () => {
    const { app } = setup();
    const answer = await control(app, 'get', '/owners', { authorization: null });
    expect(answer.status).toBe(401);
    expect(answer.body.code).toBe('invalid_control_token');
    expect(answer.headers.get('www-authenticate')).toBe('Bearer realm="mailtwin-control"');
  });

  it('refuses a wrong token, a token of another length and an API key alike', async () => {
    const { app } = setup();
    await world(app);
    for (const authorization of [
      'Bearer test-tokem',
      'Bearer test-token-longer',
      `Bearer ${SECRET}`,
      'Basic dGVzdC10b2tlbg==',
    ]) {
      const answer = await control(app, 'get', '/owners', { authorization });
      expect(answer.status, authorization).toBe(401);
      expect(answer.body.code, authorization).toBe('invalid_control_token');
    }
  });

  it('never reads the token from the query string', async () => {
    const { app } = setup();
    const answer = await control(app, 'get', `/owners?token=${TOKEN}`, { authorization: null });
    expect(answer.status).toBe(401);
  });

  it('refuses an unauthenticated write before touching anything', async () => {
    const { app } = setup();
    const refused = await control(app, 'post', '/reset', { authorization: 'Bearer nope' });
    expect(refused.status).toBe(401);
    await control(app, 'post', '/owners', { json: { name: 'Alice' }, authorization: null });
    expect((await control(app, 'get', '/owners')).body).toEqual([]);
  });

  it('answers an oversized body 413 request_too_large before checking the token', async () => {
    const { app } = setup({ maxRequestBytes: 64 });
    const answer = await control(app, 'post', '/owners', {
      json: { name: 'x'.repeat(100) },
      authorization: null,
    });
    expect(answer.status).toBe(413);
    expect(answer.body.code).toBe('request_too_large');
  });
});

describe('owners', () => {
  it('creates an owner with a fixed id, on the emulator clock, and lists it', async () => {
    const { app } = setup({ clock: fixedClock() });
    const created = await control(app, 'post', '/owners', {
      json: { name: 'Alice Martin', id: 'own_alice' },
    });
    expect(created.status).toBe(201);
    const owner = {
      id: 'own_alice',
      name: 'Alice Martin',
      disabled: false,
      createdAt: '2026-11-20T09:00:00.000Z',
    };
    expect(created.body).toEqual(owner);
    expect((await control(app, 'get', '/owners')).body).toEqual([owner]);
  });

  it('gives an owner without an id a random own_ id', async () => {
    const { app } = setup();
    const created = await control(app, 'post', '/owners', { json: { name: 'Bob' } });
    expect(created.body.id).toMatch(/^own_[A-Za-z0-9]{16}$/);
  });

  it('refuses an id already in use with 409 already_exists', async () => {
    const { app } = setup();
    await control(app, 'post', '/owners', { json: { name: 'Alice', id: 'own_alice' } });
    const again = await control(app, 'post', '/owners', {
      json: { name: 'Other', id: 'own_alice' },
    });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ code: 'already_exists', field: 'id' });
  });

  it('shows an owner with the addresses it is granted, and 404 owner_not_found for no such owner', async () => {
    const { app } = setup();
    await world(app);
    await control(app, 'post', '/mailboxes', { json: { address: 'billing@acme.test' } });
    await control(app, 'put', '/owners/own_alice/grants/billing@acme.test');
    const shown = await control(app, 'get', '/owners/own_alice');
    expect(shown.body.mailboxes).toEqual(['alice@acme.test', 'billing@acme.test']);
    const missing = await control(app, 'get', '/owners/own_nobody');
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ code: 'owner_not_found', field: 'ownerId' });
  });

  it('disables an owner so its keys fail at once, and enables it again', async () => {
    const { app } = setup();
    await world(app);
    const disabled = await control(app, 'post', '/owners/own_alice/disable');
    expect(disabled.body.disabled).toBe(true);
    expect((await api(app, SECRET, '/mailboxes')).body.code).toBe('invalid_api_key');
    const enabled = await control(app, 'post', '/owners/own_alice/enable');
    expect(enabled.body.disabled).toBe(false);
    expect((await api(app, SECRET, '/mailboxes')).status).toBe(200);
    expect((await control(app, 'post', '/owners/own_nobody/disable')).status).toBe(404);
    expect((await control(app, 'post', '/owners/own_nobody/enable')).status).toBe(404);
  });

  it('refuses bodies that are not a valid owner, field by field', async () => {
    const { app } = setup();
    const cases: [CallOptions, string, string | undefined][] = [
      [{ json: { name: 'A', nmae: 'B' } }, 'unknown_field', 'nmae'],
      [{ json: {} }, 'missing_field', 'name'],
      [{ json: { name: 7 } }, 'invalid_field', 'name'],
      [{ json: { name: '' } }, 'invalid_field', 'name'],
      [{ json: { name: 'A', id: 'has/slash' } }, 'invalid_field', 'id'],
      [{ json: { name: 'x'.repeat(201) } }, 'invalid_field', 'name'],
      [{ body: '{"name":', contentType: 'application/json' }, 'invalid_json', undefined],
      [{ json: ['name'] }, 'invalid_json', undefined],
    ];
    for (const [options, code, field] of cases) {
      const answer = await control(app, 'post', '/owners', options);
      expect(answer.status, JSON.stringify(options)).toBe(400);
      expect(answer.body.code, JSON.stringify(options)).toBe(code);
      expect(answer.body.field, JSON.stringify(options)).toBe(field);
    }
    const form = await control(app, 'post', '/owners', {
      body: 'name=A',
      contentType: 'application/x-www-form-urlencoded',
    });
    expect(form.status).toBe(415);
    expect(form.body.code).toBe('unsupported_media_type');
    expect((await control(app, 'get', '/owners')).body).toEqual([]);
  });
});

describe('domains and mailboxes', () => {
  it('creates a domain lower case and lists domains by name', async () => {
    const { app } = setup();
    const created = await control(app, 'post', '/domains', { json: { name: 'Partner.TEST' } });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ name: 'partner.test' });
    await control(app, 'post', '/domains', { json: { name: 'acme.test' } });
    expect((await control(app, 'get', '/domains')).body).toEqual([
      { name: 'acme.test' },
      { name: 'partner.test' },
    ]);
  });

  it('refuses a name that is not a domain with invalid_field, and an existing one with already_exists', async () => {
    const { app } = setup();
    for (const name of [
      'localhost',
      'acme..test',
      '-acme.test',
      'acme.test.',
      'ac me.test',
      'bücher.test',
      'a@b.test',
    ]) {
      const answer = await control(app, 'post', '/domains', { json: { name } });
      expect(answer.status, name).toBe(400);
      expect(answer.body, name).toMatchObject({ code: 'invalid_field', field: 'name' });
    }
    await control(app, 'post', '/domains', { json: { name: 'acme.test' } });
    const again = await control(app, 'post', '/domains', { json: { name: 'ACME.test' } });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('already_exists');
    expect((await control(app, 'get', '/domains')).body).toEqual([{ name: 'acme.test' }]);
  });

  it('creates a mailbox lower case with its domain, and lists every mailbox by address', async () => {
    const { app } = setup();
    const created = await control(app, 'post', '/mailboxes', {
      json: { address: 'Support@Acme.test', displayName: 'Acme Support' },
    });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      address: 'support@acme.test',
      domain: 'acme.test',
      displayName: 'Acme Support',
    });
    await control(app, 'post', '/mailboxes', {
      json: { address: 'alice@acme.test', displayName: null },
    });
    expect(
      (await control(app, 'get', '/mailboxes')).body.map((m: { address: string }) => m.address),
    ).toEqual(['alice@acme.test', 'support@acme.test']);
    expect((await control(app, 'get', '/domains')).body).toEqual([{ name: 'acme.test' }]);
  });

  it('refuses a mailbox that is not an address, or exists already', async () => {
    const { app } = setup();
    const bad = await control(app, 'post', '/mailboxes', { json: { address: 'alice@' } });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ code: 'invalid_address', field: 'address' });
    const wrongType = await control(app, 'post', '/mailboxes', {
      json: { address: 'a@acme.test', displayName: 3 },
    });
    expect(wrongType.body).toMatchObject({ code: 'invalid_field', field: 'displayName' });
    await control(app, 'post', '/mailboxes', { json: { address: 'alice@acme.test' } });
    const again = await control(app, 'post', '/mailboxes', {
      json: { address: 'ALICE@acme.test' },
    });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ code: 'already_exists', field: 'address' });
  });
});

describe('grants', () => {
  it('grants a mailbox idempotently, so the key sees it, and lists the grants', async () => {
    const { app } = setup();
    await world(app);
    await control(app, 'post', '/mailboxes', { json: { address: 'billing@acme.test' } });
    expect(
      (await api(app, SECRET, '/mailboxes')).body.map((m: { address: string }) => m.address),
    ).toEqual(['alice@acme.test']);
    for (let i = 0; i < 2; i += 1) {
      expect((await control(app, 'put', '/owners/own_alice/grants/Billing@acme.test')).status).toBe(
        204,
      );
    }
    const grants = await control(app, 'get', '/owners/own_alice/grants');
    expect(grants.body).toEqual([
      { address: 'alice@acme.test', domain: 'acme.test', displayName: 'Alice' },
      { address: 'billing@acme.test', domain: 'acme.test', displayName: null },
    ]);
    expect((await api(app, SECRET, '/mailboxes')).body).toEqual(grants.body);
  });

  it('revokes a grant, so the key no longer sees the mailbox, and 404s a grant that does not exist', async () => {
    const { app } = setup();
    await world(app);
    expect((await control(app, 'delete', '/owners/own_alice/grants/alice@acme.test')).status).toBe(
      204,
    );
    expect((await api(app, SECRET, '/mailboxes')).body).toEqual([]);
    const again = await control(app, 'delete', '/owners/own_alice/grants/alice@acme.test');
    expect(again.status).toBe(404);
    expect(again.body.code).toBe('mailbox_not_found');
  });

  it('answers 404 for an unknown owner or mailbox, granting nothing', async () => {
    const { app } = setup();
    await world(app);
    const noMailbox = await control(app, 'put', '/owners/own_alice/grants/nobody@acme.test');
    expect(noMailbox.status).toBe(404);
    expect(noMailbox.body.code).toBe('mailbox_not_found');
    const noOwner = await control(app, 'put', '/owners/own_nobody/grants/alice@acme.test');
    expect(noOwner.body.code).toBe('owner_not_found');
    expect((await control(app, 'get', '/owners/own_nobody/grants')).body.code).toBe(
      'owner_not_found',
    );
    expect(
      (await control(app, 'delete', '/owners/own_nobody/grants/alice@acme.test')).body.code,
    ).toBe('owner_not_found');
    expect((await control(app, 'get', '/owners/own_alice')).body.mailboxes).toEqual([
      'alice@acme.test',
    ]);
  });
});

describe('API keys', () => {
  it('shows a new key its sk- secret once, which then authenticates; lists never show a secret', async () => {
    const { app } = setup({ clock: fixedClock() });
    await world(app);
    await control(app, 'post', '/clock', { json: { advanceMs: 1 } }); // oldest first
    const created = await control(app, 'post', '/keys', {
      json: { ownerId: 'own_alice', name: 'Random', scope: 'follow-owner' },
    });
    expect(created.status).toBe(201);
    expect(created.body.secret).toMatch(/^sk-[A-Za-z0-9]{12}_[A-Za-z0-9]{32}$/);
    expect((await api(app, created.body.secret, '/mailboxes')).status).toBe(200);
    const listed = await control(app, 'get', '/keys');
    expect(listed.body.map((k: { name: string }) => k.name)).toEqual(['Billing app', 'Random']);
    const { secret, ...withoutSecret } = created.body;
    expect(listed.body[1]).toEqual(withoutSecret);
    expect(JSON.stringify(listed.body)).not.toContain('sk-');
    expect(JSON.stringify(listed.body)).not.toContain(secret);
  });

  it('narrows one-domain and selected-mailbox keys as their scope says', async () => {
    const { app } = setup();
    await world(app);
    await control(app, 'post', '/mailboxes', { json: { address: 'bob@partner.test' } });
    await control(app, 'put', '/owners/own_alice/grants/bob@partner.test');
    const domainKey = await control(app, 'post', '/keys', {
      json: { ownerId: 'own_alice', name: 'Partner', scope: 'one-domain', domain: 'Partner.test' },
    });
    expect(domainKey.body).toMatchObject({
      scope: 'one-domain',
      domain: 'partner.test',
      mailboxes: [],
    });
    const selected = await control(app, 'post', '/keys', {
      json: {
        ownerId: 'own_alice',
        name: 'Alice only',
        scope: 'selected-mailbox',
        mailboxes: ['ALICE@acme.test'],
      },
    });
    expect(selected.body).toMatchObject({ domain: null, mailboxes: ['alice@acme.test'] });
    const seen = async (secret: string) =>
      (await api(app, secret, '/mailboxes')).body.map((m: { address: string }) => m.address);
    expect(await seen(domainKey.body.secret)).toEqual(['bob@partner.test']);
    expect(await seen(selected.body.secret)).toEqual(['alice@acme.test']);
    expect(await seen(SECRET)).toEqual(['alice@acme.test', 'bob@partner.test']);
  });

  it('refuses keys whose scope fields do not fit, naming the field', async () => {
    const { app } = setup();
    await world(app);
    const base = { ownerId: 'own_alice', name: 'K' };
    const cases: [object, string, string][] = [
      [{ ...base, scope: 'everything' }, 'invalid_field', 'scope'],
      [{ ...base, scope: 'one-domain' }, 'missing_field', 'domain'],
      [{ ...base, scope: 'selected-mailbox' }, 'missing_field', 'mailboxes'],
      [{ ...base, scope: 'selected-mailbox', mailboxes: [] }, 'missing_field', 'mailboxes'],
      [{ ...base, scope: 'follow-owner', domain: 'acme.test' }, 'invalid_field', 'domain'],
      [
        { ...base, scope: 'one-domain', domain: 'acme.test', mailboxes: ['alice@acme.test'] },
        'invalid_field',
        'mailboxes',
      ],
      [{ ...base, scope: 'follow-owner', secret: 'sk-short' }, 'invalid_field', 'secret'],
      [{ ...base, scope: 'follow-owner', id: 'key_mine' }, 'unknown_field', 'id'],
      [{ name: 'K', scope: 'follow-owner' }, 'missing_field', 'ownerId'],
    ];
    for (const [json, code, field] of cases) {
      const answer = await control(app, 'post', '/keys', { json });
      expect(answer.status, JSON.stringify(json)).toBe(400);
      expect(answer.body, JSON.stringify(json)).toMatchObject({ code, field });
    }
    expect((await control(app, 'get', '/keys')).body).toHaveLength(1);
  });

  it('refuses an unknown owner or mailbox with 404 and a secret in use with 409, creating nothing', async () => {
    const { app } = setup();
    await world(app);
    const noOwner = await control(app, 'post', '/keys', {
      json: { ownerId: 'own_nobody', name: 'K', scope: 'follow-owner' },
    });
    expect(noOwner.status).toBe(404);
    expect(noOwner.body.code).toBe('owner_not_found');
    const noMailbox = await control(app, 'post', '/keys', {
      json: {
        ownerId: 'own_alice',
        name: 'K',
        scope: 'selected-mailbox',
        mailboxes: ['alice@acme.test', 'nobody@acme.test'],
      },
    });
    expect(noMailbox.status).toBe(404);
    expect(noMailbox.body).toMatchObject({ code: 'mailbox_not_found', field: 'mailboxes[1]' });
    const reused = await control(app, 'post', '/keys', {
      json: { ownerId: 'own_alice', name: 'K', scope: 'follow-owner', secret: SECRET },
    });
    expect(reused.status).toBe(409);
    expect(reused.body).toMatchObject({ code: 'already_exists', field: 'secret' });
    expect((await control(app, 'get', '/keys')).body).toHaveLength(1);
  });

  it('disables a key so it fails at once, and enables it again; 404 key_not_found for no such key', async () => {
    const { app } = setup();
    const { keyId } = await world(app);
    const disabled = await control(app, 'post', `/keys/${keyId}/disable`);
    expect(disabled.body).toMatchObject({ id: keyId, disabled: true });
    expect(disabled.body.secret).toBeUndefined();
    expect((await api(app, SECRET, '/mailboxes')).body.code).toBe('invalid_api_key');
    const enabled = await control(app, 'post', `/keys/${keyId}/enable`);
    expect(enabled.body.disabled).toBe(false);
    expect((await api(app, SECRET, '/mailboxes')).status).toBe(200);
    for (const action of ['disable', 'enable']) {
      const missing = await control(app, 'post', `/keys/key_nobody/${action}`);
      expect(missing.status).toBe(404);
      expect(missing.body).toMatchObject({ code: 'key_not_found', field: 'keyId' });
    }
  });
});

describe('suppressions', () => {
  it('suppresses an address lower case with a default reason, lists it, and lifts it', async () => {
    const { app } = setup({ clock: fixedClock() });
    const created = await control(app, 'post', '/suppressions', {
      json: { address: 'Bounced@Partner.test' },
    });
    expect(created.status).toBe(201);
    const suppression = {
      address: 'bounced@partner.test',
      reason: 'added by hand',
      createdAt: '2026-11-20T09:00:00.000Z',
    };
    expect(created.body).toEqual(suppression);
    expect((await control(app, 'get', '/suppressions')).body).toEqual([suppression]);
    expect((await control(app, 'delete', '/suppressions/BOUNCED@partner.test')).status).toBe(204);
    expect((await control(app, 'get', '/suppressions')).body).toEqual([]);
  });

  it('replaces the reason when an address is suppressed again', async () => {
    const { app } = setup();
    await control(app, 'post', '/suppressions', {
      json: { address: 'x@partner.test', reason: 'complaint' },
    });
    await control(app, 'post', '/suppressions', {
      json: { address: 'x@partner.test', reason: 'hard bounce' },
    });
    expect(
      (await control(app, 'get', '/suppressions')).body.map((s: { reason: string }) => s.reason),
    ).toEqual(['hard bounce']);
  });

  it('refuses what is not an address, and 404 not_found when lifting an address not suppressed', async () => {
    const { app } = setup();
    const bad = await control(app, 'post', '/suppressions', {
      json: { address: 'not an address' },
    });
    expect(bad.body).toMatchObject({ code: 'invalid_address', field: 'address' });
    const badReason = await control(app, 'post', '/suppressions', {
      json: { address: 'a@b.test', reason: '' },
    });
    expect(badReason.body).toMatchObject({ code: 'invalid_field', field: 'reason' });
    const missing = await control(app, 'delete', '/suppressions/nobody@partner.test');
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ code: 'not_found', field: 'address' });
  });
});

const RAW_MESSAGE = [
  'From: "Bob Stone" <Bob@Partner.test>',
  'To: Alice Martin <alice@acme.test>',
  'Cc: carol@partner.test',
  'Subject: =?UTF-8?Q?Caf=C3=A9?= menu',
  'Date: Fri, 20 Nov 2026 09:14:58 +0000',
  'Message-ID: <raw-1@partner.test>',
  'In-Reply-To: <prev@acme.test>',
  'References: <root@acme.test> <prev@acme.test>',
  'MIME-Version: 1.0',
  'Content-Type: multipart/mixed; boundary="b1"',
  '',
  '--b1',
  'Content-Type: text/plain; charset=utf-8',
  '',
  'Hello Alice, the menu is attached.',
  '--b1',
  'Content-Type: text/plain; name="menu.txt"',
  'Content-Disposition: attachment; filename="menu.txt"',
  'Content-Transfer-Encoding: base64',
  '',
  'bWVudQ==',
  '--b1--',
  '',
].join('\r\n');

describe('inbound email', () => {
  it('delivers a JSON email and answers exactly what the API then reads', async () => {
    const { app } = setup({ clock: fixedClock() });
    await world(app);
    const injected = await control(app, 'post', '/inbound', {
      json: {
        mailbox: 'Alice@acme.test',
        from: 'Bob Stone <bob@partner.test>',
        to: ['alice@acme.test'],
        cc: ['Carol <carol@partner.test>'],
        replyTo: ['billing@partner.test'],
        subject: 'Invoice for March',
        text: 'Hi Alice,\n\nthe invoice.',
        html: '<p>Hi Alice</p>',
        sentAt: '2026-11-20T08:59:00Z',
        messageId: '<inv-1@partner.test>',
        inReplyTo: '<req-1@acme.test>',
        references: ['<req-1@acme.test>'],
        starred: true,
        attachments: [
          { name: 'invoice.txt', contentType: 'text/plain', contentBase64: 'SW52b2ljZQ==' },
        ],
      },
    });
    expect(injected.status).toBe(201);
    expect(injected.body).toMatchObject({
      mailbox: 'alice@acme.test',
      folder: 'inbox',
      read: false,
      starred: true,
      from: { address: 'bob@partner.test', name: 'Bob Stone' },
      cc: [{ address: 'carol@partner.test', name: 'Carol' }],
      snippet: 'Hi Alice, the invoice.',
      receivedAt: '2026-11-20T09:00:00.000Z',
      sentAt: '2026-11-20T08:59:00.000Z',
      attachmentCount: 1,
      attachments: [{ name: 'invoice.txt', contentType: 'text/plain', size: 7 }],
    });
    const read = await api(app, SECRET, `/emails/${injected.body.id}`);
    expect(read.body).toEqual(injected.body);
  });

  it('parses a raw message/rfc822 email with mailparser, placed as the query says', async () => {
    const { app } = setup();
    await world(app);
    const injected = await control(
      app,
      'post',
      '/inbound?mailbox=alice@acme.test&folder=archive&read=true&starred=true&receivedAt=2026-11-01',
      {
        body: new TextEncoder().encode(RAW_MESSAGE),
        contentType: 'message/rfc822',
      },
    );
    expect(injected.status).toBe(201);
    expect(injected.body).toMatchObject({
      mailbox: 'alice@acme.test',
      folder: 'archive',
      read: true,
      starred: true,
      from: { address: 'bob@partner.test', name: 'Bob Stone' },
      to: [{ address: 'alice@acme.test', name: 'Alice Martin' }],
      cc: [{ address: 'carol@partner.test', name: null }],
      subject: 'Café menu',
      receivedAt: '2026-11-01T00:00:00.000Z',
      sentAt: '2026-11-20T09:14:58.000Z',
      messageId: '<raw-1@partner.test>',
      inReplyTo: '<prev@acme.test>',
      references: ['<root@acme.test>', '<prev@acme.test>'],
      attachments: [{ name: 'menu.txt', contentType: 'text/plain', size: 4 }],
    });
    expect(injected.body.text).toContain('Hello Alice');
    expect((await api(app, SECRET, `/emails/${injected.body.id}`)).body).toEqual(injected.body);
  });

  it('refuses a raw message without a mailbox, with a bad flag, or with an unknown query parameter', async () => {
    const { app } = setup();
    await world(app);
    const raw = { body: RAW_MESSAGE, contentType: 'message/rfc822' };
    const cases: [string, string, string][] = [
      ['', 'missing_field', 'mailbox'],
      ['?mailbox=alice@acme.test&read=yes', 'invalid_field', 'read'],
      ['?mailbox=alice@acme.test&folder=Inbox', 'invalid_folder', 'folder'],
      ['?mailbox=alice@acme.test&receivedAt=yesterday', 'invalid_field', 'receivedAt'],
      ['?mailbox=alice@acme.test&flder=inbox', 'unknown_field', 'flder'],
    ];
    for (const [query, code, field] of cases) {
      const answer = await control(app, 'post', `/inbound${query}`, raw);
      expect(answer.status, query).toBe(400);
      expect(answer.body, query).toMatchObject({ code, field });
    }
    const noFrom = await control(app, 'post', '/inbound?mailbox=alice@acme.test', {
      body: 'Subject: hi\r\n\r\nbody',
      contentType: 'message/rfc822',
    });
    expect(noFrom.body).toMatchObject({ code: 'invalid_field', field: 'body' });
    const empty = await control(app, 'post', '/inbound?mailbox=alice@acme.test', {
      body: '',
      contentType: 'message/rfc822',
    });
    expect(empty.body.code).toBe('invalid_field');
    const elsewhere = await control(app, 'post', '/inbound?mailbox=nobody@acme.test', raw);
    expect(elsewhere.status).toBe(404);
    expect((await api(app, SECRET, '/emails?mailbox=alice@acme.test')).body.emails).toEqual([]);
  });

  it('refuses a raw message whose header block is over 1 MiB with 400 invalid_message, storing nothing', async () => {
    const { app } = setup();
    await world(app);
    const answer = await control(app, 'post', '/inbound?mailbox=alice@acme.test', {
      body: `From: bob@partner.test\r\nX-Padding: ${'a'.repeat(1024 * 1024 + 1)}\r\n\r\nHello.`,
      contentType: 'message/rfc822',
    });
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ code: 'invalid_message', field: 'body' });
    const documented = (spec.paths['/inbound']?.post?.responses['400'] as Record<string, unknown>)[
      'x-error-codes'
    ];
    expect(documented).toContain('invalid_message');
    expect((await api(app, SECRET, '/emails?mailbox=alice@acme.test')).body.emails).toEqual([]);
  });

  it('refuses bad JSON emails naming the field, storing nothing', async () => {
    const { app } = setup();
    await world(app);
    const ok = { mailbox: 'alice@acme.test', from: 'bob@partner.test' };
    const cases: [object, number, string, string][] = [
      [{ from: 'bob@partner.test' }, 400, 'missing_field', 'mailbox'],
      [{ ...ok, from: 'bob' }, 400, 'invalid_address', 'from'],
      [{ ...ok, to: ['alice@acme.test', 'nope'] }, 400, 'invalid_address', 'to[1]'],
      [{ ...ok, folder: 'drafts' }, 400, 'invalid_folder', 'folder'],
      [{ ...ok, read: 'true' }, 400, 'invalid_field', 'read'],
      [{ ...ok, subject: 'x'.repeat(999) }, 400, 'subject_too_long', 'subject'],
      [{ ...ok, receivedAt: '20/11/2026' }, 400, 'invalid_field', 'receivedAt'],
      [
        {
          ...ok,
          attachments: [
            { name: 'a.txt', contentBase64: 'YQ==' },
            { name: 'b.txt', contentBase64: 'not base64!' },
          ],
        },
        400,
        'invalid_field',
        'attachments[1].contentBase64',
      ],
      [{ ...ok, bcc: ['x@partner.test'] }, 400, 'unknown_field', 'bcc'],
      [{ ...ok, mailbox: 'nobody@acme.test' }, 404, 'mailbox_not_found', 'mailbox'],
    ];
    for (const [json, status, code, field] of cases) {
      const answer = await control(app, 'post', '/inbound', { json });
      expect(answer.status, JSON.stringify(json)).toBe(status);
      expect(answer.body, JSON.stringify(json)).toMatchObject({ code, field });
    }
    const withQuery = await control(app, 'post', '/inbound?mailbox=alice@acme.test', { json: ok });
    expect(withQuery.body).toMatchObject({ code: 'unknown_field', field: 'mailbox' });
    const text = await control(app, 'post', '/inbound', {
      body: 'hello',
      contentType: 'text/plain',
    });
    expect(text.status).toBe(415);
    expect((await api(app, SECRET, '/emails?mailbox=alice@acme.test')).body.emails).toEqual([]);
  });
});

describe('fixtures', () => {
  const fixture = {
    owners: [{ id: 'own_demo', name: 'Demo Ltd' }],
    mailboxes: [{ address: 'hello@demo.test' }],
    grants: [{ owner: 'own_demo', mailbox: 'hello@demo.test' }],
    keys: [
      {
        id: 'key_demo',
        owner: 'own_demo',
        name: 'Demo key',
        scope: 'follow-owner',
        secret: SECRET,
      },
    ],
    emails: [
      {
        mailbox: 'hello@demo.test',
        from: 'Bob <bob@partner.test>',
        subject: 'Hi',
        text: 'Hello',
        receivedAt: '2026-11-01T09:00:00.000Z',
      },
      {
        mailbox: 'hello@demo.test',
        eml: 'eml/plain-text.eml',
        receivedAt: '2026-11-02T09:00:00.000Z',
      },
    ],
  };

  it('loads a fixture, .eml files of the fixtures folder included, and shows the created keys once', async () => {
    const { app } = setup();
    const loaded = await control(app, 'post', '/fixtures', { json: fixture });
    expect(loaded.status).toBe(201);
    expect(loaded.body).toEqual({
      owners: 1,
      mailboxes: 1,
      emails: 2,
      suppressions: 0,
      keys: [
        {
          id: 'key_demo',
          name: 'Demo key',
          ownerId: 'own_demo',
          scope: 'follow-owner',
          secret: SECRET,
        },
      ],
      webhooks: [],
    });
    const listed = await api(app, SECRET, '/emails?mailbox=hello@demo.test');
    expect(listed.body.emails.map((e: { subject: string }) => e.subject)[1]).toBe('Hi');
    expect(listed.body.emails).toHaveLength(2);
  });

  it('refuses a fixture naming a file outside the fixtures folder, or a broken one, loading nothing', async () => {
    const { app } = setup();
    const outside = await control(app, 'post', '/fixtures', {
      json: {
        ...fixture,
        emails: [
          {
            mailbox: 'hello@demo.test',
            eml: '../package.json',
            receivedAt: '2026-11-02T09:00:00.000Z',
          },
        ],
      },
    });
    expect(outside.status).toBe(400);
    expect(outside.body).toMatchObject({ code: 'invalid_field', field: 'emails[0].eml' });
    const broken = await control(app, 'post', '/fixtures', {
      json: { ...fixture, grants: [{ owner: 'own_nobody', mailbox: 'hello@demo.test' }] },
    });
    expect(broken.status).toBe(400);
    expect(broken.body).toMatchObject({ code: 'invalid_field', field: 'grants[0].owner' });
    expect((await control(app, 'get', '/owners')).body).toEqual([]);
  });
});

describe('outbox', () => {
  const invoice = {
    from: 'alice@acme.test',
    to: 'Carol <carol@ext.test>',
    subject: 'Invoice for March',
    text: 'Hi Carol, the March invoice.',
  };

  it('captures a send to an outside address, and serves its entry and its .eml', async () => {
    const { app } = setup({ clock: fixedClock() });
    await world(app);
    const sent = await apiPost(app, SECRET, '/emails/send', invoice);
    expect(sent.status).toBe(201);

    const listed = await control(app, 'get', '/outbox');
    expect(listed.status).toBe(200);
    expect(listed.body).toHaveLength(1);
    const entry = listed.body[0];
    expect(entry).toMatchObject({
      sentEmailId: sent.body.id,
      from: 'alice@acme.test',
      recipients: ['carol@ext.test'],
      subject: 'Invoice for March',
      messageId: sent.body.messageId,
      createdAt: '2026-11-20T09:00:00.000Z',
    });
    expect(entry.id).toMatch(/^out_/);
    expect((await control(app, 'get', `/outbox/${entry.id}`)).body).toEqual(entry);

    const eml = await control(app, 'get', `/outbox/${entry.id}/eml`);
    expect(eml.status).toBe(200);
    expect(eml.headers.get('content-disposition')).toBe(`attachment; filename="${entry.id}.eml"`);
    expect(eml.body.length).toBe(entry.size);
    const parsed = await simpleParser(Buffer.from(eml.body));
    expect(parsed.subject).toBe('Invoice for March');
    expect(parsed.from?.value).toEqual([{ address: 'alice@acme.test', name: 'Alice' }]);
    const to = Array.isArray(parsed.to) ? parsed.to : [parsed.to];
    expect(to.flatMap((t) => t?.value ?? [])).toEqual([
      { address: 'carol@ext.test', name: 'Carol' },
    ]);
    expect(parsed.text?.trimEnd()).toBe('Hi Carol, the March invoice.');
    expect(parsed.messageId).toBe(sent.body.messageId);
  });

  it('captures only outside recipients, bcc included, while mailboxes here get their copy', async () => {
    const { app } = setup();
    await world(app);
    await control(app, 'post', '/mailboxes', { json: { address: 'bob@acme.test' } });
    const sent = await apiPost(app, SECRET, '/emails/send', {
      ...invoice,
      to: 'bob@acme.test',
      cc: ['Carol@Ext.test'],
      bcc: ['dave@ext.test'],
    });
    expect(sent.status).toBe(201);
    const [entry] = (await control(app, 'get', '/outbox')).body;
    expect(entry.recipients).toEqual(['carol@ext.test', 'dave@ext.test']);
    const parsed = await simpleParser(
      Buffer.from((await control(app, 'get', `/outbox/${entry.id}/eml`)).body),
    );
    expect(parsed.headers.has('bcc')).toBe(false);
    const internalOnly = await apiPost(app, SECRET, '/emails/send', {
      ...invoice,
      to: 'bob@acme.test',
    });
    expect(internalOnly.status).toBe(201);
    expect((await control(app, 'get', '/outbox')).body).toHaveLength(1);
  });

  it('lists the newest capture first', async () => {
    const { app } = setup();
    await world(app);
    for (const subject of ['First', 'Second', 'Third']) {
      expect((await apiPost(app, SECRET, '/emails/send', { ...invoice, subject })).status).toBe(
        201,
      );
    }
    const listed = await control(app, 'get', '/outbox');
    expect(listed.body.map((e: { subject: string }) => e.subject)).toEqual([
      'Third',
      'Second',
      'First',
    ]);
  });

  it('answers 404 not_found for an unknown capture, on the entry and on its .eml', async () => {
    const { app } = setup();
    for (const path of ['/outbox/out_nothing', '/outbox/out_nothing/eml']) {
      const answer = await control(app, 'get', path);
      expect(answer.status, path).toBe(404);
      expect(answer.body, path).toMatchObject({ code: 'not_found', field: 'outboxId' });
    }
  });

  it("empties the outbox on DELETE, keeping the sender's sent copy; reset empties it too", async () => {
    const { app } = setup();
    await world(app);
    await apiPost(app, SECRET, '/emails/send', invoice);
    const [entry] = (await control(app, 'get', '/outbox')).body;
    expect((await control(app, 'delete', '/outbox')).status).toBe(204);
    expect((await control(app, 'get', '/outbox')).body).toEqual([]);
    expect((await control(app, 'get', `/outbox/${entry.id}/eml`)).status).toBe(404);
    expect(await sentSubjects(app)).toEqual(['Invoice for March']);
    expect((await control(app, 'delete', '/outbox')).status).toBe(204);

    await apiPost(app, SECRET, '/emails/send', invoice);
    await control(app, 'post', '/reset');
    expect((await control(app, 'get', '/outbox')).body).toEqual([]);
  });
});

describe('faults', () => {
  const message = (subject: string) => ({
    from: 'alice@acme.test',
    to: 'carol@ext.test',
    subject,
    text: 'Hello Carol.',
  });

  /** Alice's world plus one email from Bob in her inbox, to reply to or forward. */
  async function withInboxEmail(app: ReturnType<typeof createApp>) {
    await world(app);
    const injected = await control(app, 'post', '/inbound', {
      json: { mailbox: 'alice@acme.test', from: 'bob@ext.test', subject: 'Question', text: 'Hi?' },
    });
    return injected.body.id as string;
  }

  it('arms a fault with the defaults: every operation, once, error 503; and lists it', async () => {
    const { app } = setup();
    const armed = await control(app, 'post', '/faults', { json: { mode: 'error' } });
    expect(armed.status).toBe(201);
    expect(armed.body).toMatchObject({
      operations: ['send', 'reply', 'forward'],
      mode: 'error',
      status: 503,
      remaining: 1,
    });
    expect(armed.body.id).toMatch(/^flt_[A-Za-z0-9]{16}$/);
    expect((await control(app, 'get', '/faults')).body).toEqual([armed.body]);
  });

  it('answers the next send with the status and code of an error fault, storing nothing; the one after succeeds', async () => {
    const codes = {
      500: 'internal_error',
      502: 'bad_gateway',
      503: 'service_unavailable',
      504: 'gateway_timeout',
    };
    for (const [status, code] of Object.entries(codes)) {
      const { app } = setup();
      await world(app);
      const armed = await control(app, 'post', '/faults', {
        json: { operations: ['send'], mode: 'error', status: Number(status) },
      });
      expect(armed.body.status).toBe(Number(status));
      const failed = await apiPost(app, SECRET, '/emails/send', message('Lost'));
      expect(failed.status, status).toBe(Number(status));
      expect(failed.body.code, status).toBe(code);
      expect(await sentSubjects(app), status).toEqual([]);
      expect((await control(app, 'get', '/outbox')).body, status).toEqual([]);
      expect((await control(app, 'get', '/faults')).body, status).toEqual([]);
      const retried = await apiPost(app, SECRET, '/emails/send', message('Delivered'));
      expect(retried.status, status).toBe(201);
      expect(await sentSubjects(app), status).toEqual(['Delivered']);
    }
  });

  it('fails as many sends as count says, counting down remaining, then disarms', async () => {
    const { app } = setup();
    await world(app);
    await control(app, 'post', '/faults', { json: { mode: 'error', count: 2 } });
    expect((await apiPost(app, SECRET, '/emails/send', message('One'))).status).toBe(503);
    expect((await control(app, 'get', '/faults')).body[0].remaining).toBe(1);
    expect((await apiPost(app, SECRET, '/emails/send', message('Two'))).status).toBe(503);
    expect((await control(app, 'get', '/faults')).body).toEqual([]);
    expect((await apiPost(app, SECRET, '/emails/send', message('Three'))).status).toBe(201);
    expect(await sentSubjects(app)).toEqual(['Three']);
  });

  it('leaves sends alone when armed for replies only, and fails the next reply', async () => {
    const { app } = setup();
    const original = await withInboxEmail(app);
    await control(app, 'post', '/faults', { json: { operations: ['reply'], mode: 'error' } });
    expect((await apiPost(app, SECRET, '/emails/send', message('Unaffected'))).status).toBe(201);
    const forwarded = await apiPost(app, SECRET, `/emails/${original}/forward`, {
      to: 'dave@ext.test',
    });
    expect(forwarded.status).toBe(201);
    const reply = await apiPost(app, SECRET, `/emails/${original}/reply`, { text: 'Yes.' });
    expect(reply.status).toBe(503);
    expect(reply.body.code).toBe('service_unavailable');
    expect(await sentSubjects(app)).toEqual(['Fwd: Question', 'Unaffected']);
    const again = await apiPost(app, SECRET, `/emails/${original}/reply`, { text: 'Yes.' });
    expect(again.status).toBe(201);
    expect(await sentSubjects(app)).toEqual(['Re: Question', 'Fwd: Question', 'Unaffected']);
  });

  it('keeps a fault armed when a send is refused for its own reasons', async () => {
    const { app } = setup();
    await world(app);
    await control(app, 'post', '/faults', { json: { mode: 'error' } });
    const refused = await apiPost(app, SECRET, '/emails/send', { ...message('Bad'), to: 'nope' });
    expect(refused.status).toBe(400);
    expect((await control(app, 'get', '/faults')).body).toHaveLength(1);
    expect((await apiPost(app, SECRET, '/emails/send', message('Then'))).status).toBe(503);
  });

  it('carries out a timeout-after-commit send but answers 504 gateway_timeout, so a retry duplicates it', async () => {
    const { app } = setup();
    await world(app);
    const armed = await control(app, 'post', '/faults', {
      json: { operations: ['send'], mode: 'timeout-after-commit' },
    });
    expect(armed.body).toMatchObject({ mode: 'timeout-after-commit', status: 504, remaining: 1 });
    const timedOut = await apiPost(app, SECRET, '/emails/send', message('Invoice'));
    expect(timedOut.status).toBe(504);
    expect(timedOut.body.code).toBe('gateway_timeout');
    expect(await sentSubjects(app)).toEqual(['Invoice']);
    expect((await control(app, 'get', '/outbox')).body).toHaveLength(1);
    // The client cannot tell the email went out and retries (§4.3 rule 5): now there are two.
    const retried = await apiPost(app, SECRET, '/emails/send', message('Invoice'));
    expect(retried.status).toBe(201);
    expect(await sentSubjects(app)).toEqual(['Invoice', 'Invoice']);
    const outbox = (await control(app, 'get', '/outbox')).body;
    expect(outbox.map((e: { recipients: string[] }) => e.recipients)).toEqual([
      ['carol@ext.test'],
      ['carol@ext.test'],
    ]);
    expect(outbox[0].messageId).not.toBe(outbox[1].messageId);
  });

  it('refuses bad fault bodies naming the field, arming nothing', async () => {
    const { app } = setup();
    const cases: [CallOptions, string, string | undefined][] = [
      [{ json: {} }, 'missing_field', 'mode'],
      [{ json: { mode: 'crash' } }, 'invalid_field', 'mode'],
      [{ json: { mode: 'error', operations: [] } }, 'invalid_field', 'operations'],
      [{ json: { mode: 'error', operations: ['send', 'send'] } }, 'invalid_field', 'operations'],
      [
        { json: { mode: 'error', operations: ['send', 'delete'] } },
        'invalid_field',
        'operations[1]',
      ],
      [{ json: { mode: 'error', operations: 'send' } }, 'invalid_field', 'operations'],
      [{ json: { mode: 'error', count: 0 } }, 'invalid_field', 'count'],
      [{ json: { mode: 'error', count: 1001 } }, 'invalid_field', 'count'],
      [{ json: { mode: 'error', count: 1.5 } }, 'invalid_field', 'count'],
      [{ json: { mode: 'error', status: 501 } }, 'invalid_field', 'status'],
      [{ json: { mode: 'error', status: '503' } }, 'invalid_field', 'status'],
      [{ json: { mode: 'timeout-after-commit', status: 504 } }, 'invalid_field', 'status'],
      [{ json: { mode: 'error', delayMs: 10 } }, 'unknown_field', 'delayMs'],
      [{ body: '{"mode":', contentType: 'application/json' }, 'invalid_json', undefined],
    ];
    for (const [options, code, field] of cases) {
      const answer = await control(app, 'post', '/faults', options);
      expect(answer.status, JSON.stringify(options)).toBe(400);
      expect(answer.body.code, JSON.stringify(options)).toBe(code);
      expect(answer.body.field, JSON.stringify(options)).toBe(field);
    }
    const form = await control(app, 'post', '/faults', {
      body: 'mode=error',
      contentType: 'application/x-www-form-urlencoded',
    });
    expect(form.status).toBe(415);
    expect((await control(app, 'get', '/faults')).body).toEqual([]);
  });

  it('disarms every fault on DELETE /faults and on reset', async () => {
    const { app } = setup();
    await control(app, 'post', '/faults', { json: { mode: 'error' } });
    await control(app, 'post', '/faults', { json: { mode: 'timeout-after-commit' } });
    expect((await control(app, 'get', '/faults')).body).toHaveLength(2);
    expect((await control(app, 'delete', '/faults')).status).toBe(204);
    expect((await control(app, 'get', '/faults')).body).toEqual([]);

    await control(app, 'post', '/faults', { json: { mode: 'error', count: 5 } });
    expect((await control(app, 'post', '/reset')).status).toBe(204);
    expect((await control(app, 'get', '/faults')).body).toEqual([]);
    await world(app);
    expect((await apiPost(app, SECRET, '/emails/send', message('After reset'))).status).toBe(201);
  });

  it('keeps faults armed when a reset is refused for its token', async () => {
    const { app } = setup();
    await control(app, 'post', '/faults', { json: { mode: 'error' } });
    expect((await control(app, 'post', '/reset', { authorization: 'Bearer nope' })).status).toBe(
      401,
    );
    expect((await control(app, 'get', '/faults')).body).toHaveLength(1);
  });

  it('refuses the outbox and faults without the control token', async () => {
    const { app } = setup();
    const calls: [Method, string][] = [
      ['get', '/outbox'],
      ['delete', '/outbox'],
      ['get', '/outbox/out_x'],
      ['get', '/outbox/out_x/eml'],
      ['get', '/faults'],
      ['post', '/faults'],
      ['delete', '/faults'],
    ];
    for (const [method, path] of calls) {
      const answer = await control(app, method, path, { authorization: null });
      expect(answer.status, path).toBe(401);
      expect(answer.body.code, path).toBe('invalid_control_token');
    }
  });
});

describe('chaos rules (docs/chaos.md; the surfaces are tested in emulator/src/chaos/)', () => {
  it('arms a seeded set on PUT /chaos, lists it on GET and clears it on DELETE', async () => {
    const { app } = setup();
    const rules = [{ surface: 'http', operation: 'sendEmail', error: { status: 503 } }];
    const armed = await control(app, 'put', '/chaos', { json: { seed: 12, rules } });
    expect(armed.status).toBe(200);
    expect(armed.body).toMatchObject({ seed: 12, rules: [{ ...rules[0], matched: 0, fired: 0 }] });
    expect(armed.body.rules[0].id).toMatch(/^chr_[A-Za-z0-9]{16}$/);
    expect((await control(app, 'get', '/chaos')).body).toEqual(armed.body);
    expect((await control(app, 'delete', '/chaos')).status).toBe(204);
    expect((await control(app, 'get', '/chaos')).body).toEqual({ seed: 12, rules: [] });
  });
});

describe('webhooks', () => {
  const WEBHOOK_SECRET = 'whsec_TestSecret0123456789abcdefABCD';

  /** A network that records every delivery and answers with `status`; names resolve public. */
  function network(status: () => number) {
    const received: {
      url: string;
      address: string;
      headers: Record<string, string>;
      body: string;
    }[] = [];
    const overrides: Partial<AppDeps> = {
      resolver: async () => [{ address: '93.184.216.34', family: 4 }],
      connector: async (delivery) => {
        received.push({
          url: delivery.url.href,
          address: delivery.address,
          headers: delivery.headers,
          body: delivery.body.toString('utf8'),
        });
        return { status: status() };
      },
    };
    return { received, overrides };
  }

  async function webhookWorld(status: () => number) {
    const net = network(status);
    const { app, deps } = setup({
      ...net.overrides,
      clock: new ControllableClock(() => FIXED_NOW),
    });
    await world(app);
    const created = await control(app, 'post', '/webhooks', {
      json: {
        ownerId: 'own_alice',
        url: 'https://hooks.example.com/mail?x=1',
        scope: 'follow-owner',
        secret: WEBHOOK_SECRET,
        id: 'wh_test',
      },
    });
    expect(created.status).toBe(201);
    const inbound = () =>
      control(app, 'post', '/inbound', {
        json: {
          mailbox: 'alice@acme.test',
          from: 'bob@partner.test',
          subject: 'Hello',
          text: 'Hi',
        },
      });
    const runDue = () => control(app, 'post', '/clock', { json: { advanceMs: 0 } });
    return { app, deps, received: net.received, created, inbound, runDue };
  }

  it('creates a webhook with a whsec_ secret shown once, lists and reads it without the secret', async () => {
    const { app, created } = await webhookWorld(() => 200);
    expect(created.body).toMatchObject({
      id: 'wh_test',
      status: 'active',
      consecutiveFailures: 0,
      secret: WEBHOOK_SECRET,
    });
    const listed = await control(app, 'get', '/webhooks');
    expect(JSON.stringify(listed.body)).not.toContain('whsec_');
    const read = await control(app, 'get', '/webhooks/wh_test');
    expect(read.body).toMatchObject({ id: 'wh_test', url: 'https://hooks.example.com/mail?x=1' });
    expect(read.body).not.toHaveProperty('secret');
  });

  it.each([
    ['http://127.0.0.1:8080/hook'],
    ['http://169.254.169.254/latest/meta-data'],
    ['https://user:pass@hooks.example.com/'],
    ['ftp://hooks.example.com/'],
    ['http://10.0.0.1/'],
  ])('refuses %s with 400 invalid_webhook_url, creating nothing', async (url) => {
    const { app } = setup();
    await world(app);
    const refused = await control(app, 'post', '/webhooks', {
      json: { ownerId: 'own_alice', url, scope: 'follow-owner' },
    });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ code: 'invalid_webhook_url', field: 'url' });
    expect((await control(app, 'get', '/webhooks')).body).toEqual([]);
  });

  it('delivers a new email signed, to the vetted address, with exactly the four X-Service headers', async () => {
    const { received, inbound, runDue, app } = await webhookWorld(() => 200);
    await inbound();
    await runDue();
    expect(received).toHaveLength(1);
    const delivery = received[0]!;
    expect(delivery.address).toBe('93.184.216.34');
    const serviceHeaders = Object.keys(delivery.headers)
      .filter((h) => /^x-service-/i.test(h))
      .sort();
    expect(serviceHeaders).toEqual([
      'X-Service-Event',
      'X-Service-Signature',
      'X-Service-Timestamp',
      'X-Service-Webhook-Id',
    ]);
    const timestamp = delivery.headers['X-Service-Timestamp']!;
    const expected = createHmac('sha256', WEBHOOK_SECRET)
      .update(`${timestamp}.${delivery.body}`)
      .digest('hex');
    expect(delivery.headers['X-Service-Signature']).toBe(`sha256=${expected}`);
    expect(JSON.parse(delivery.body)).toMatchObject({
      event: 'email.received',
      webhookId: 'wh_test',
      timestamp,
      data: { mailbox: 'alice@acme.test', subject: 'Hello' },
    });
    const log = await control(app, 'get', '/webhooks/wh_test/deliveries');
    expect(log.body).toMatchObject([
      { event: 'email.received', status: 'succeeded', attempts: [{ number: 1, statusCode: 200 }] },
    ]);
  });

  it('retries a failing delivery on the schedule, pauses after 15 failures in a row, and re-enables', async () => {
    const { app, deps, received, inbound, runDue } = await webhookWorld(() => 500);
    await inbound();
    await runDue();
    const first = (await control(app, 'get', '/webhooks/wh_test/deliveries')).body as {
      status: string;
      nextAttemptAt: string;
    }[];
    expect(first[0]).toMatchObject({
      status: 'pending',
      nextAttemptAt: new Date(FIXED_NOW + 60_000).toISOString(),
    });
    await control(app, 'post', '/clock', { json: { advanceMs: 60_000 } });
    expect(received).toHaveLength(2);
    for (let i = 0; i < 13; i += 1) await inbound();
    await runDue();
    expect(received).toHaveLength(15);
    expect((await control(app, 'get', '/webhooks/wh_test')).body).toMatchObject({
      status: 'paused',
      consecutiveFailures: 15,
    });
    await inbound(); // recorded, not sent
    await runDue();
    expect(received).toHaveLength(15);
    const test = await control(app, 'post', '/webhooks/wh_test/test');
    expect(test.body).toMatchObject({ ok: false, statusCode: 500 });
    expect(received).toHaveLength(16);
    expect(JSON.parse(received[15]!.body)).toMatchObject({
      event: 'webhook.test',
      data: { test: true },
    });
    expect((await control(app, 'post', '/webhooks/wh_test/enable')).body).toMatchObject({
      status: 'active',
      consecutiveFailures: 0,
    });
    void deps;
  });

  it('records a Send test answered 401 as one failed attempt with that status (issue 27 item 12)', async () => {
    const { app, received } = await webhookWorld(() => 401);
    const test = await control(app, 'post', '/webhooks/wh_test/test');
    expect(test.body).toMatchObject({ ok: false, statusCode: 401, error: 'answered 401' });
    expect(received).toHaveLength(1);
    const deliveries = (await control(app, 'get', '/webhooks/wh_test/deliveries')).body as {
      event: string;
      status: string;
      attempts: { number: number; at: string; statusCode: number | null; error: string | null }[];
    }[];
    expect(deliveries).toHaveLength(1);
    expect(deliveries[0]).toMatchObject({
      event: 'webhook.test',
      status: 'failed',
      attempts: [
        {
          number: 1,
          at: new Date(FIXED_NOW).toISOString(),
          statusCode: 401,
          error: 'answered 401',
        },
      ],
    });
  });

  it('keeps what the demo sink received and empties it; deletes a webhook', async () => {
    const { app } = await webhookWorld(() => 200);
    expect((await control(app, 'get', '/sink')).body).toEqual([]);
    expect((await control(app, 'delete', '/sink')).status).toBe(204);
    expect((await control(app, 'delete', '/webhooks/wh_test')).status).toBe(204);
    expect((await control(app, 'get', '/webhooks/wh_test')).status).toBe(404);
  });
});

describe('reset and clock', () => {
  it('empties everything on reset, so old keys fail', async () => {
    const { app } = setup();
    await world(app);
    await control(app, 'post', '/suppressions', { json: { address: 'x@partner.test' } });
    await control(app, 'post', '/inbound', {
      json: { mailbox: 'alice@acme.test', from: 'bob@partner.test' },
    });
    expect((await control(app, 'post', '/reset')).status).toBe(204);
    for (const path of ['/owners', '/domains', '/mailboxes', '/keys', '/suppressions']) {
      expect((await control(app, 'get', path)).body, path).toEqual([]);
    }
    expect((await api(app, SECRET, '/mailboxes')).body.code).toBe('invalid_api_key');
    await world(app); // the same fixed ids and secret can be used again
  });

  it('counts each stored file once, however many messages carry it (§2.4)', async () => {
    const { app } = setup();
    expect((await control(app, 'get', '/storage')).body).toEqual({ files: 0, bytes: 0 });
    await world(app);
    const before = (await control(app, 'get', '/storage')).body as { files: number; bytes: number };
    const file = { name: 'a.txt', contentBase64: Buffer.from('same bytes').toString('base64') };
    for (const subject of ['one', 'two']) {
      const injected = await control(app, 'post', '/inbound', {
        json: {
          mailbox: 'alice@acme.test',
          from: 'bob@partner.test',
          subject,
          text: 'x',
          attachments: [file],
        },
      });
      expect(injected.status).toBe(201);
    }
    expect((await control(app, 'get', '/storage')).body).toEqual({
      files: before.files + 1,
      bytes: before.bytes + 'same bytes'.length,
    });
  });

  it('reads the clock and moves it forward by advanceMs, which new records then carry', async () => {
    const { app } = setup({ clock: fixedClock() });
    expect((await control(app, 'get', '/clock')).body).toEqual({
      now: '2026-11-20T09:00:00.000Z',
      offsetMs: 0,
    });
    const moved = await control(app, 'post', '/clock', { json: { advanceMs: 3_600_000 } });
    expect(moved.body).toEqual({ now: '2026-11-20T10:00:00.000Z', offsetMs: 3_600_000 });
    const owner = await control(app, 'post', '/owners', { json: { name: 'Later' } });
    expect(owner.body.createdAt).toBe('2026-11-20T10:00:00.000Z');
  });

  it('sets the clock to a later instant, and refuses one in the past with invalid_field set', async () => {
    const { app } = setup({ clock: fixedClock() });
    const set = await control(app, 'post', '/clock', {
      json: { set: '2027-01-01T01:00:00+01:00' },
    });
    expect(set.body).toEqual({
      now: '2027-01-01T00:00:00.000Z',
      offsetMs: Date.parse('2027-01-01T00:00:00Z') - FIXED_NOW,
    });
    expect((await control(app, 'post', '/clock', { json: { set: '2027-01-01' } })).status).toBe(
      200,
    );
    const back = await control(app, 'post', '/clock', {
      json: { set: '2026-12-31T23:59:59.999Z' },
    });
    expect(back.status).toBe(400);
    expect(back.body).toMatchObject({ code: 'invalid_field', field: 'set' });
    expect((await control(app, 'get', '/clock')).body.now).toBe('2027-01-01T00:00:00.000Z');
  });

  it('takes exactly one of advanceMs and set, a non-negative integer that stays before the year 10000', async () => {
    const { app } = setup({ clock: fixedClock() });
    const cases: [object, string, string | undefined][] = [
      [{}, 'missing_field', undefined],
      [{ advanceMs: 1, set: '2030-01-01' }, 'invalid_field', 'set'],
      [{ advanceMs: -1 }, 'invalid_field', 'advanceMs'],
      [{ advanceMs: 1.5 }, 'invalid_field', 'advanceMs'],
      [{ advanceMs: '1000' }, 'invalid_field', 'advanceMs'],
      [{ advanceMs: 1e300 }, 'invalid_field', 'advanceMs'],
      [{ set: 'tomorrow' }, 'invalid_field', 'set'],
      [{ set: '+275760-09-13T00:00:00.000Z' }, 'invalid_field', 'set'],
      [{ offsetMs: 5 }, 'unknown_field', 'offsetMs'],
    ];
    for (const [json, code, field] of cases) {
      const answer = await control(app, 'post', '/clock', { json });
      expect(answer.status, JSON.stringify(json)).toBe(400);
      expect(answer.body.code, JSON.stringify(json)).toBe(code);
      expect(answer.body.field, JSON.stringify(json)).toBe(field);
    }
    await control(app, 'post', '/clock', { json: { set: '9999-12-31T00:00:00Z' } });
    const past = await control(app, 'post', '/clock', { json: { advanceMs: 86_400_000 } });
    expect(past.body).toMatchObject({ code: 'invalid_field', field: 'advanceMs' });
    expect((await control(app, 'get', '/clock')).body.now).toBe('9999-12-31T00:00:00.000Z');
  });
});

describe('rate limit (D-38)', () => {
  it('reads the start-up limit, replaces it so keys get 429, and removes it with null', async () => {
    const { app } = setup({ clock: fixedClock(), rateLimit: { requests: 5, windowMs: 60_000 } });
    await world(app);
    expect((await control(app, 'get', '/rate-limit')).body).toEqual({
      rateLimit: { requests: 5, windowMs: 60_000 },
    });
    const set = await control(app, 'put', '/rate-limit', {
      json: { rateLimit: { requests: 1, windowMs: 30_000 } },
    });
    expect(set.body).toEqual({ rateLimit: { requests: 1, windowMs: 30_000 } });
    expect((await api(app, SECRET, '/mailboxes')).status).toBe(200);
    const refused = await api(app, SECRET, '/mailboxes');
    expect(refused).toMatchObject({ status: 429, body: { code: 'rate_limited' } });
    const off = await control(app, 'put', '/rate-limit', { json: { rateLimit: null } });
    expect(off.body).toEqual({ rateLimit: null });
    expect((await control(app, 'get', '/rate-limit')).body).toEqual({ rateLimit: null });
    expect((await api(app, SECRET, '/mailboxes')).status).toBe(200);
  });

  it('refuses a limit outside its bounds, naming the field, and keeps the one in force', async () => {
    const { app } = setup();
    const cases: [object, string, string | undefined][] = [
      [{}, 'missing_field', 'rateLimit'],
      [{ rateLimit: {} }, 'missing_field', 'rateLimit.requests'],
      [{ rateLimit: { requests: 0, windowMs: 1000 } }, 'invalid_field', 'rateLimit.requests'],
      [
        { rateLimit: { requests: 1_000_001, windowMs: 1000 } },
        'invalid_field',
        'rateLimit.requests',
      ],
      [{ rateLimit: { requests: 1.5, windowMs: 1000 } }, 'invalid_field', 'rateLimit.requests'],
      [{ rateLimit: { requests: 1, windowMs: 999 } }, 'invalid_field', 'rateLimit.windowMs'],
      [{ rateLimit: { requests: 1, windowMs: 1500 } }, 'invalid_field', 'rateLimit.windowMs'],
      [{ rateLimit: { requests: 1, windowMs: 86_401_000 } }, 'invalid_field', 'rateLimit.windowMs'],
      [{ rateLimit: '100/1m' }, 'invalid_field', 'rateLimit'],
      [
        { rateLimit: { requests: 1, windowMs: 1000, burst: 2 } },
        'unknown_field',
        'rateLimit.burst',
      ],
      [{ rateLimit: null, on: true }, 'unknown_field', 'on'],
    ];
    for (const [json, code, field] of cases) {
      const answer = await control(app, 'put', '/rate-limit', { json });
      expect(answer.status, JSON.stringify(json)).toBe(400);
      expect(answer.body.code, JSON.stringify(json)).toBe(code);
      expect(answer.body.field, JSON.stringify(json)).toBe(field);
    }
    expect((await control(app, 'get', '/rate-limit')).body).toEqual({ rateLimit: null });
  });
});

describe('bad input', () => {
  const endpoints = [
    '/owners',
    '/domains',
    '/mailboxes',
    '/keys',
    '/suppressions',
    '/inbound',
    '/clock',
    '/faults',
  ];
  const fields = [
    'name',
    'id',
    'address',
    'displayName',
    'ownerId',
    'scope',
    'domain',
    'mailboxes',
    'secret',
    'reason',
    'mailbox',
    'from',
    'to',
    'subject',
    'text',
    'folder',
    'read',
    'attachments',
    'receivedAt',
    'advanceMs',
    'set',
    'operations',
    'count',
    'mode',
    'status',
  ];

  it('never answers a 5xx or an answer the contract does not declare, whatever the body', async () => {
    const { app } = setup();
    await world(app);
    const body = fc.oneof(
      fc.jsonValue(),
      fc.dictionary(
        fc.constantFrom(...fields),
        fc.oneof(
          fc.jsonValue(),
          fc.string(),
          fc.constant('alice@acme.test'),
          fc.constant('own_alice'),
          fc.constantFrom('error', 'timeout-after-commit', 503, ['send']),
        ),
      ),
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...endpoints), body, async (path, json) => {
        const answer = await control(app, 'post', path, {
          body: JSON.stringify(json),
          contentType: 'application/json',
        });
        expect(answer.status).toBeLessThan(500);
      }),
      { numRuns: 300 },
    );
  });
  it('never answers a 5xx to a raw message, however broken', async () => {
    const { app } = setup();
    await world(app);
    const header = fc.constantFrom(
      'From: bob@partner.test',
      'From: <>',
      'Date: nonsense',
      'Content-Type: multipart/mixed; boundary=x',
      'Content-Transfer-Encoding: base64',
      'Subject: =?UTF-8?B?////?=',
      'Message-ID:',
      'References: <<a>',
    );
    const message = fc.oneof(
      fc.uint8Array({ maxLength: 400 }),
      fc
        .tuple(fc.array(header, { maxLength: 6 }), fc.string())
        .map(([lines, rest]) => new TextEncoder().encode(`${lines.join('\r\n')}\r\n\r\n${rest}`)),
    );
    await fc.assert(
      fc.asyncProperty(message, async (body) => {
        const answer = await control(app, 'post', '/inbound?mailbox=alice@acme.test', {
          body,
          contentType: 'message/rfc822',
        });
        expect(answer.status).toBeLessThan(500);
      }),
      { numRuns: 200 },
    );
  });
});

describe('tenants and waits against the contract (D-70, D-71)', () => {
  it('answers tenants, waits and the filtered outbox in the shapes spec/control.yaml declares', async () => {
    const { app } = setup();
    const made = await control(app, 'post', '/tenants', { json: { name: 'worker 1' } });
    expect(made.status).toBe(201);
    const t = made.body;
    expect((await control(app, 'get', '/tenants')).status).toBe(200);
    expect((await control(app, 'get', `/tenants/${t.id}`)).status).toBe(200);
    const mailbox = t.mailboxes[0];
    expect(
      (await control(app, 'get', `/wait/emails?mailbox=${mailbox}&timeoutMs=0`)).body.code,
    ).toBe('wait_timeout');
    await control(app, 'post', '/inbound', {
      json: { mailbox, from: 'carol@partner.test', subject: 'Hi', text: 'Hello' },
    });
    expect((await control(app, 'get', `/wait/emails?mailbox=${mailbox}`)).status).toBe(200);
    await app.request('/openapi/v1/emails/send', {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${t.keys.followOwner.secret}`,
        'Content-Type': 'application/json',
      },
      body: JSON.stringify({ from: mailbox, to: 'carol@partner.test', subject: 'S', text: 'T' }),
    });
    expect((await control(app, 'get', `/wait/outbox?tenant=${t.id}`)).status).toBe(200);
    expect((await control(app, 'get', `/outbox?tenant=${t.id}&limit=1`)).status).toBe(200);
    expect((await control(app, 'get', '/outbox?tenant=tnt_none')).status).toBe(404);
    expect((await control(app, 'delete', `/tenants/${t.id}`)).status).toBe(204);
  });
});

it('exercises every operation of spec/control.yaml with a success', () => {
  const expected = Object.entries(spec.paths).flatMap(([template, item]) =>
    Object.entries(item).flatMap(([method, operation]) => {
      if (!['get', 'post', 'put', 'delete'].includes(method)) return [];
      const status = Object.keys((operation as Operation).responses).find((s) => s.startsWith('2'));
      return `${method.toUpperCase()} ${template} ${status}`;
    }),
  );
  expect(expected.filter((label) => !succeeded.has(label))).toEqual([]);
});

/**
 * §4's endpoint table, §5 and §9 as a whole: every one of the ten operations asks for the key
 * in the Authorization header and nowhere else, a method the table does not list on one of its
 * paths is not an operation (D-12's 405 with `Allow`), the API lives under {base_url} only, and
 * the API has no webhook endpoints (§1).
 *
 * Requests outside the contract are sent as absolute URLs with the key set by hand, so the
 * contract validator (which knows only the ten operations) is not asked to judge them.
 */
import { expectAt } from '../src/charge.ts';
import { MissingCapability, rule, type CheckContext } from '../src/check.ts';
import type { ApiResponse, RequestOptions } from '../src/client.ts';
import { ControlClient, createTenant } from '../src/control-client.ts';
import { SUITE_DOMAIN } from '../src/safety.ts';

/** A working key and a mailbox it reaches: a fresh tenant's, or the ones an API world was given. */
async function keyAndMailbox({ api, target }: CheckContext) {
  if (target.control !== undefined) {
    const tenant = await createTenant(new ControlClient(api, target.control), 1);
    return { secret: tenant.key.secret, mailbox: tenant.mailboxes[0]! };
  }
  if (target.apiKey === undefined) throw new MissingCapability('needs an API key (give --api-key)');
  return { secret: target.apiKey, mailbox: target.mailboxes?.[0] ?? `nobody@${SUITE_DOMAIN}` };
}

/** A made-up id of the right shape: refused for want of a key, it is never looked up. */
const SOME_EMAIL = 'em_00000000000000000000000000';
const SOME_ATTACHMENT = '00000000-0000-4000-8000-000000000000';

/** The ten operations of §4, each with a body that would be valid where one is taken. */
function operations(
  mailbox: string,
): { name: string; request: RequestOptions; body?: 'json' | 'form' }[] {
  const file = () => {
    const form = new FormData();
    form.append('file', new Blob(['hello']), 'hello.txt');
    return form;
  };
  return [
    { name: 'GET /mailboxes', request: { path: '/mailboxes' } },
    { name: 'GET /emails', request: { path: '/emails', query: { mailbox } } },
    {
      name: 'POST /emails/send',
      request: {
        method: 'POST',
        path: '/emails/send',
        json: { from: mailbox, to: mailbox, subject: 'No key', text: 'never sent' },
      },
      body: 'json',
    },
    { name: 'GET /emails/{id}', request: { path: `/emails/${SOME_EMAIL}` } },
    {
      name: 'PATCH /emails/{id}',
      request: { method: 'PATCH', path: `/emails/${SOME_EMAIL}`, json: { read: true } },
      body: 'json',
    },
    { name: 'DELETE /emails/{id}', request: { method: 'DELETE', path: `/emails/${SOME_EMAIL}` } },
    {
      name: 'POST /emails/{id}/reply',
      request: { method: 'POST', path: `/emails/${SOME_EMAIL}/reply`, json: { text: 'no key' } },
      body: 'json',
    },
    {
      name: 'POST /emails/{id}/forward',
      request: {
        method: 'POST',
        path: `/emails/${SOME_EMAIL}/forward`,
        json: { to: mailbox },
      },
      body: 'json',
    },
    {
      name: 'POST /attachments',
      request: { method: 'POST', path: '/attachments', body: file() },
      body: 'form',
    },
    { name: 'GET /attachments/{id}', request: { path: `/attachments/${SOME_ATTACHMENT}` } },
  ];
}

/** Refused (a 4xx, charged to `refused`) with D-29's 401, its code and its challenge. */
function expectUnauthenticated(response: ApiResponse, refused: string, code: string, what: string) {
  expectAt(
    refused,
    response.status >= 400 && response.status <= 499,
    `${what}: refused, got ${response.status} ${response.text.slice(0, 200)}`,
  ).toBe(true);
  expectAt('D-29', response.status, what).toBe(401);
  expectAt('D-29', response.json<{ code?: string }>().code, what).toBe(code);
  expectAt('D-29', response.headers.get('www-authenticate') ?? '', what).toMatch(/^Bearer/);
}

rule(
  ['5-R1', '5-R2', '7-R2', 'D-29'],
  'refuses every operation without the Bearer header, with an unknown key, or with the key only in the body or a cookie',
  async (context) => {
    const { api } = context;
    const { secret, mailbox } = await keyAndMailbox(context);
    const unknown = `sk-${'A'.repeat(12)}_${'b'.repeat(32)}`;
    for (const { name, request, body } of operations(mailbox)) {
      expectUnauthenticated(
        await api.request({ ...request, apiKey: null }),
        '5-R1',
        'missing_api_key',
        `${name} without a key`,
      );
      expectUnauthenticated(
        await api.request({ ...request, apiKey: unknown }),
        '7-R2',
        'invalid_api_key',
        `${name} with an unknown key`,
      );
      for (const cookie of [
        `api_key=${secret}`,
        `token=${secret}`,
        `Authorization=Bearer ${secret}`,
      ])
        expectUnauthenticated(
          await api.request({ ...request, apiKey: null, headers: { Cookie: cookie } }),
          '5-R2',
          'missing_api_key',
          `${name} with the key in a cookie (${cookie.split('=')[0]})`,
        );
      if (body === 'json') {
        const json = { ...(request.json as Record<string, unknown>), apiKey: secret };
        expectUnauthenticated(
          await api.request({ ...request, json, apiKey: null }),
          '5-R2',
          'missing_api_key',
          `${name} with the key in the JSON body`,
        );
      }
      if (body === 'form') {
        const form = new FormData();
        form.append('api_key', secret);
        form.append('file', new Blob(['hello']), 'hello.txt');
        expectUnauthenticated(
          await api.request({ ...request, body: form, apiKey: null }),
          '5-R2',
          'missing_api_key',
          `${name} with the key in a form field`,
        );
      }
    }
    // The same key in its place works: the refusals were for where it was, not what it was.
    expectAt('5-R1', (await api.request({ path: '/mailboxes', apiKey: secret })).status).toBe(200);
  },
  // Writes without a key must change nothing, but a target that ignored the key would carry
  // them out: they are writes all the same.
  { needs: ['destructive'] },
);

/** Each path of §4's table, a concrete instance of it, and the methods the table gives it. */
const PATHS: [template: string, path: string, methods: string[]][] = [
  ['/mailboxes', '/mailboxes', ['GET']],
  ['/emails', '/emails', ['GET']],
  // `/emails/send` is also `/emails/{emailId}` with the id "send": GET, PATCH and DELETE of
  // that path are operations of the table (on an email that does not exist).
  ['/emails/send', '/emails/send', ['POST', 'GET', 'PATCH', 'DELETE']],
  ['/emails/{emailId}', `/emails/${SOME_EMAIL}`, ['GET', 'PATCH', 'DELETE']],
  ['/emails/{emailId}/reply', `/emails/${SOME_EMAIL}/reply`, ['POST']],
  ['/emails/{emailId}/forward', `/emails/${SOME_EMAIL}/forward`, ['POST']],
  ['/attachments', '/attachments', ['POST']],
  ['/attachments/{attachmentId}', `/attachments/${SOME_ATTACHMENT}`, ['GET']],
];

rule(
  ['D-12'],
  'answers a method the endpoint table does not list with 405 method_not_allowed and an Allow header naming the ones it does',
  async (context) => {
    const { api } = context;
    const { secret } = await keyAndMailbox(context);
    for (const [template, path, methods] of PATHS) {
      for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE']) {
        if (methods.includes(method)) continue;
        const what = `${method} ${template}`;
        const response = await api.request({
          method,
          path: `${api.baseUrl}${path}`,
          absolute: true,
          headers: {
            Authorization: `Bearer ${secret}`,
            ...(method === 'GET' || method === 'DELETE'
              ? {}
              : { 'Content-Type': 'application/json' }),
          },
          ...(method === 'GET' || method === 'DELETE' ? {} : { body: '{}' }),
        });
        expectAt('D-12', response.status, `${what}: ${response.text.slice(0, 200)}`).toBe(405);
        expectAt('D-12', response.json<{ code?: string }>().code, what).toBe('method_not_allowed');
        const allow = (response.headers.get('allow') ?? '')
          .split(',')
          .map((m) => m.trim().toUpperCase())
          .filter((m) => m !== '' && m !== 'HEAD' && m !== 'OPTIONS');
        expectAt('D-12', allow.sort(), `${what}: Allow lists the table's methods`).toEqual(
          [...methods].sort(),
        );
      }
    }
  },
  // Only refusals are expected, but a target that took a PUT or DELETE would carry it out.
  { needs: ['destructive'] },
);

rule(
  ['5-R5', '9-R1', '1-R2', 'D-12'],
  'serves the API only under {base_url}: {origin}/mailboxes is not the mailbox list, and {base_url}/webhooks does not exist',
  async (context) => {
    const { api, target } = context;
    const { secret } = await keyAndMailbox(context);
    const auth = { Authorization: `Bearer ${secret}` };
    // The same key lists its mailboxes under {base_url} (§4.1)...
    const listed = await api.request({ path: '/mailboxes', apiKey: secret });
    expectAt('5-R5', listed.status, 'GET {base_url}/mailboxes').toBe(200);
    // ... and nowhere else: the configured URL is the full versioned endpoint (§5 rule 5, §9).
    for (const path of ['/mailboxes', '/v1/mailboxes', '/openapi/mailboxes']) {
      const response = await api.request({
        path: `${target.origin}${path}`,
        absolute: true,
        headers: auth,
      });
      const isTheList =
        response.status >= 200 &&
        response.status <= 299 &&
        response.text.trim() !== '' &&
        response.text === listed.text;
      expectAt(
        path === '/mailboxes' ? '5-R5' : '9-R1',
        isTheList,
        `GET {origin}${path} must not be the API (got ${response.status} ${response.text.slice(0, 200)})`,
      ).toBe(false);
    }
    // §1: no webhook endpoints exist in the API.
    for (const path of ['/webhooks', `/webhooks/wh_0000000000000000`]) {
      const response = await api.request({
        path: `${api.baseUrl}${path}`,
        absolute: true,
        headers: auth,
      });
      expectAt(
        '1-R2',
        response.status >= 400 && response.status <= 499,
        `GET {base_url}${path}: not an endpoint, got ${response.status} ${response.text.slice(0, 200)}`,
      ).toBe(true);
      expectAt('D-12', response.status, `GET {base_url}${path}`).toBe(404);
      expectAt('D-12', response.json<{ code?: string }>().code, `GET {base_url}${path}`).toBe(
        'not_found',
      );
    }
  },
  { needs: [] },
);

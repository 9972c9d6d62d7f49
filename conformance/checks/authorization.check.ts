/**
 * §2.1, §5: a key acts as its owner narrowed by its scope, evaluated on every request; a
 * disabled key or owner fails at once; anything out of scope is answered like a missing thing
 * (D-26) and no answer carries data from outside the scope.
 *
 * That out-of-scope requests are refused is §5's; that the refusal is a 404 exactly like a
 * missing thing is D-26's, and credential statuses and codes are D-29's.
 */
import { randomBytes } from 'node:crypto';
import { expectAt } from '../src/charge.ts';
import { rule } from '../src/check.ts';
import type { ApiClient, ApiResponse } from '../src/client.ts';
import { ControlClient, type CreatedKey } from '../src/control-client.ts';

interface World {
  control: ControlClient;
  owner1: string;
  owner2: string;
  /** mailbox address -> id of its one email */
  emailOf: Map<string, string>;
  keys: Record<'follow' | 'domain' | 'selected' | 'other', CreatedKey>;
  boxes: { a: string; b: string; c: string; x: string };
}

async function buildWorld(api: ApiClient, control: ControlClient): Promise<World> {
  const tag = randomBytes(4).toString('hex');
  const d1 = `one${tag}.conformance.test`;
  const d2 = `two${tag}.conformance.test`;
  const boxes = { a: `a@${d1}`, b: `b@${d1}`, c: `c@${d2}`, x: `x@${d2}` };
  const owner1 = await control.createOwner(`Owner one ${tag}`);
  const owner2 = await control.createOwner(`Owner two ${tag}`);
  const emailOf = new Map<string, string>();
  for (const address of Object.values(boxes)) {
    await control.createMailbox(address);
    await control.grant(address === boxes.x ? owner2 : owner1, address);
    emailOf.set(
      address,
      (
        await control.inject({
          mailbox: address,
          from: 'bob@partner.test',
          to: [address],
          subject: `for ${address}`,
          text: `secret of ${address}`,
        })
      ).id,
    );
  }
  const keys = {
    follow: await control.createKey(owner1, 'follow-owner'),
    domain: await control.createKey(owner1, 'one-domain', { domain: d1 }),
    selected: await control.createKey(owner1, 'selected-mailbox', {
      mailboxes: [boxes.b, boxes.c],
    }),
    other: await control.createKey(owner2, 'follow-owner'),
  };
  void api;
  return { control, owner1, owner2, emailOf, keys, boxes };
}

/**
 * In scope, a 2xx (§5 rule 3); out of scope, a refusal (a 4xx, §5 rule 3) that is a 404 (D-26).
 */
function expectScoped(response: ApiResponse, inScope: boolean, what: string) {
  const [low, high] = inScope ? [200, 299] : [400, 499];
  expectAt(
    '5-R3',
    response.status >= low && response.status <= high,
    `${what}: ${inScope ? 'a 2xx in scope' : 'refused out of scope'}, got ${response.status}`,
  ).toBe(true);
  if (!inScope) expectAt('D-26', response.status, `${what}: like a missing one`).toBe(404);
}

/**
 * Every read operation for every mailbox; returns the texts answered. GET /mailboxes is
 * charged to `listRule` (the rule the check verifies of it), its address order to D-2 when
 * `ordered`.
 */
async function probe(
  api: ApiClient,
  world: World,
  key: CreatedKey,
  allowed: string[],
  { listRule, ordered = false }: { listRule: string; ordered?: boolean },
): Promise<string[]> {
  const texts: string[] = [];
  const mailboxes = await api.request({ path: '/mailboxes', apiKey: key.secret });
  expectAt(listRule, mailboxes.status).toBe(200);
  const listed = mailboxes.json<{ address: string }[]>().map((m) => m.address);
  expectAt(listRule, [...listed].sort(), `${key.scope} key: GET /mailboxes`).toEqual(
    [...allowed].sort(),
  );
  if (ordered) expectAt('D-2', listed, 'ordered by address').toEqual([...allowed].sort());
  texts.push(mailboxes.text);
  for (const [address, id] of world.emailOf) {
    const inScope = allowed.includes(address);
    const list = await api.request({
      path: '/emails',
      query: { mailbox: address },
      apiKey: key.secret,
    });
    expectScoped(list, inScope, `${key.scope} key: GET /emails?mailbox=${address}`);
    if (!inScope)
      expectAt('D-26', list.json()).toMatchObject({ code: 'mailbox_not_found', field: 'mailbox' });
    const detail = await api.request({ path: `/emails/${id}`, apiKey: key.secret });
    expectScoped(detail, inScope, `${key.scope} key: GET /emails/{id of ${address}}`);
    const patch = await api.request({
      method: 'PATCH',
      path: `/emails/${id}`,
      json: { starred: true },
      apiKey: key.secret,
    });
    expectScoped(patch, inScope, `${key.scope} key: PATCH /emails/{id of ${address}}`);
    if (!inScope) {
      // D-26: exactly like an email that does not exist.
      const missingId = `${id.slice(0, -1)}${id.endsWith('Z') ? 'Y' : 'Z'}`;
      const missing = await api.request({ path: `/emails/${missingId}`, apiKey: key.secret });
      const strip = (text: string, what: string) => text.split(what).join('<id>');
      expectAt('D-26', strip(detail.text, id)).toBe(strip(missing.text, missingId));
      const deleted = await api.request({
        method: 'DELETE',
        path: `/emails/${id}`,
        apiKey: key.secret,
      });
      expectScoped(deleted, false, `${key.scope} key: DELETE /emails/{id of ${address}}`);
    }
    texts.push(list.text, detail.text, patch.text);
  }
  return texts;
}

function expectNoForeignData(texts: string[], world: World, allowed: string[]) {
  for (const [address, id] of world.emailOf) {
    if (allowed.includes(address)) continue;
    for (const text of texts) {
      expectAt(
        '5-R3',
        text.includes(`secret of ${address}`),
        `an answer carries the body of ${address}`,
      ).toBe(false);
      expectAt(
        '5-R3',
        text.includes(`for ${address}`),
        `an answer carries the subject of ${address}`,
      ).toBe(false);
      // A whole address, not the tail of another string (a Message-ID may end in "x@domain").
      const named = new RegExp(
        `(?<![A-Za-z0-9._%+-])${address.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`,
      );
      expectAt(
        '5-R3',
        named.test(text) && !text.includes('"code"'),
        `an answer names ${address}: ${text.slice(0, 600)}`,
      ).toBe(false);
    }
    void id;
  }
}

rule(
  ['2.1-R3', '2.1-R4', '5-R3', '4.1-R1', '2.2-R1', 'D-2', 'D-26'],
  "lets each scope touch exactly its owner's granted mailboxes, narrowed, and answers the rest like missing ones",
  async ({ api, target }) => {
    const world = await buildWorld(api, new ControlClient(api, target.control!));
    const { a, b, c, x } = world.boxes;
    const cases: [CreatedKey, string[]][] = [
      [world.keys.follow, [a, b, c]],
      [world.keys.domain, [a, b]],
      [world.keys.selected, [b, c]],
      [world.keys.other, [x]],
    ];
    for (const [key, allowed] of cases) {
      const texts = await probe(api, world, key, allowed, { listRule: '4.1-R1', ordered: true });
      expectNoForeignData(texts, world, allowed);
    }
    // Nothing out of scope was changed or deleted by the probes above.
    for (const [address, id] of world.emailOf) {
      const owner = address === x ? world.keys.other : world.keys.follow;
      expectAt(
        '5-R3',
        (await api.request({ path: `/emails/${id}`, apiKey: owner.secret })).status,
        `the email of ${address} is still there for its owner`,
      ).toBe(200);
    }
  },
  {
    needs: ['crafted-mail', 'second-key', 'scoped-keys', 'provisioning', 'destructive'],
    timeout: 60_000,
  },
);

rule(
  ['2.5-R2', '5-R3', '2.1-R3', 'D-26'],
  "follows the owner's grants at once: a revoked grant disappears from every scope on the next request",
  async ({ api, target }) => {
    const world = await buildWorld(api, new ControlClient(api, target.control!));
    const { a, b, c } = world.boxes;
    await world.control.revoke(world.owner1, b);
    const at = { listRule: '5-R3' };
    await probe(api, world, world.keys.follow, [a, c], at);
    await probe(api, world, world.keys.domain, [a], at);
    await probe(api, world, world.keys.selected, [c], at);
    await world.control.grant(world.owner1, b);
    await probe(api, world, world.keys.selected, [b, c], at);
  },
  {
    needs: ['crafted-mail', 'second-key', 'scoped-keys', 'provisioning', 'destructive'],
    timeout: 60_000,
  },
);

rule(
  ['2.1-R5', '5-R4', 'D-29'],
  'refuses a disabled key, or any key of a disabled owner, on the very next request, and accepts them again once enabled',
  async ({ api, target }) => {
    const world = await buildWorld(api, new ControlClient(api, target.control!));
    const mailboxes = (key: CreatedKey) => api.request({ path: '/mailboxes', apiKey: key.secret });
    /** Refused (a 4xx, charged to `at`) with D-29's 401 invalid_api_key. */
    const expectRefused = (response: ApiResponse, at: string, what: string) => {
      expectAt(at, response.status >= 400 && response.status <= 499, `${what}: refused`).toBe(true);
      expectAt('D-29', response.status, what).toBe(401);
      expectAt('D-29', response.json(), what).toMatchObject({ code: 'invalid_api_key' });
    };
    await world.control.setKeyDisabled(world.keys.selected.id, true);
    expectRefused(await mailboxes(world.keys.selected), '2.1-R5', 'a disabled key');
    expectAt('5-R4', (await mailboxes(world.keys.follow)).status, 'another key').toBe(200);
    await world.control.setKeyDisabled(world.keys.selected.id, false);
    expectAt('5-R4', (await mailboxes(world.keys.selected)).status, 'enabled again').toBe(200);

    await world.control.setOwnerDisabled(world.owner1, true);
    for (const key of [world.keys.follow, world.keys.domain, world.keys.selected])
      expectRefused(await mailboxes(key), '5-R4', `${key.scope} key of a disabled owner`);
    expectAt('5-R4', (await mailboxes(world.keys.other)).status, 'a key of another owner').toBe(
      200,
    );
    await world.control.setOwnerDisabled(world.owner1, false);
    expectAt('5-R4', (await mailboxes(world.keys.follow)).status, 'owner enabled again').toBe(200);
  },
  { needs: ['crafted-mail', 'second-key', 'scoped-keys', 'disabled-keys', 'provisioning'] },
);

rule(
  ['5-R1', '5-R2', '7-R2', 'D-29', '2.1-R2'],
  'authenticates only with Authorization: Bearer, never a key in the query string or another header',
  async ({ api, target }) => {
    const world = await buildWorld(api, new ControlClient(api, target.control!));
    const secret = world.keys.follow.secret;
    expectAt('2.1-R2', secret.startsWith('sk-')).toBe(true);
    // [what, request, the rule requiring the refusal, D-29's code]
    const attempts: [string, Parameters<ApiClient['request']>[0], string, string][] = [
      ['no header', { path: '/mailboxes', apiKey: null }, '5-R1', 'missing_api_key'],
      [
        'key in the query string',
        { path: '/mailboxes', query: { api_key: secret }, apiKey: null },
        '5-R2',
        'missing_api_key',
      ],
      [
        'key in X-API-Key',
        { path: '/mailboxes', headers: { 'X-API-Key': secret }, apiKey: null },
        '5-R2',
        'missing_api_key',
      ],
      [
        'Basic scheme',
        {
          path: '/mailboxes',
          headers: { Authorization: `Basic ${Buffer.from(`${secret}:`).toString('base64')}` },
          apiKey: null,
        },
        '5-R1',
        'missing_api_key',
      ],
      [
        'unknown key',
        { path: '/mailboxes', apiKey: `sk-${'A'.repeat(12)}_${'b'.repeat(32)}` },
        '7-R2',
        'invalid_api_key',
      ],
      ['malformed key', { path: '/mailboxes', apiKey: 'sk-nope' }, '7-R2', 'invalid_api_key'],
      [
        'key with one character changed',
        { path: '/mailboxes', apiKey: `${secret.slice(0, -1)}${secret.endsWith('a') ? 'b' : 'a'}` },
        '7-R2',
        'invalid_api_key',
      ],
    ];
    for (const [what, request, refused, code] of attempts) {
      const response = await api.request(request);
      expectAt(
        refused,
        response.status >= 400 && response.status <= 499,
        `${what}: refused, got ${response.status}`,
      ).toBe(true);
      expectAt('D-29', response.status, what).toBe(401);
      expectAt('D-29', response.json<{ code: string }>().code, what).toBe(code);
      expectAt('D-29', response.headers.get('www-authenticate') ?? '', what).toMatch(/^Bearer/);
    }
    expectAt('5-R1', (await api.request({ path: '/mailboxes', apiKey: secret })).status).toBe(200);
  },
  { needs: ['crafted-mail', 'scoped-keys', 'provisioning'] },
);

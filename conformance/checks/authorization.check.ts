/**
 * §2.1, §5: a key acts as its owner narrowed by its scope, evaluated on every request; a
 * disabled key or owner fails at once; anything out of scope is answered like a missing thing
 * (D-26) and no answer carries data from outside the scope.
 *
 * That out-of-scope requests are refused is §5's; that the refusal is a 404 exactly like a
 * missing thing is D-26's, and credential statuses and codes are D-29's.
 */
import { randomBytes } from 'node:crypto';
import { expectAt } from '../src/contract/charge.ts';
import { MissingCapability, rule, type CheckContext } from '../src/check-runner/check.ts';
import type { ApiClient, ApiResponse, RequestOptions } from '../src/client/client.ts';
import type { KeyRole } from '../src/run/config.ts';
import { ControlClient, createTenant, type CreatedKey } from '../src/client/control-client.ts';
import { SUITE_DOMAIN } from '../src/client/safety.ts';
import {
  expectError,
  expectSuccess,
  randomTag,
  world as sendWorld,
} from '../src/worlds/send-world.ts';
import type { Target } from '../src/client/target.ts';

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

/** D-26: an out-of-scope email's answer is exactly that of an email that does not exist. */
async function expectLikeMissing(api: ApiClient, secret: string, answer: ApiResponse, id: string) {
  const missingId = `${id.slice(0, -1)}${id.endsWith('Z') ? 'Y' : 'Z'}`;
  const missing = await api.request({
    path: `/emails/${encodeURIComponent(missingId)}`,
    apiKey: secret,
  });
  const strip = (text: string, what: string) => text.split(what).join('<id>');
  expectAt('D-26', strip(answer.text, id), 'like a missing email').toBe(
    strip(missing.text, missingId),
  );
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
    if (!inScope) expectError('D-26', list, 404, 'mailbox_not_found', 'mailbox');
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
      await expectLikeMissing(api, key.secret, detail, id);
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

/** The roles the scope matrix asks of an API world, in the order it probes them. */
const MATRIX_ROLES = ['follow-owner', 'one-domain', 'selected-mailbox', 'other-owner'] as const;
type MatrixRole = (typeof MATRIX_ROLES)[number];

/** A key given by role (`--key`; `--api-key` is follow-owner, `--second-api-key` other-owner). */
interface GivenKey {
  role: MatrixRole;
  secret: string;
}

function givenKeys(target: Target): GivenKey[] {
  const keys: Partial<Record<KeyRole, string>> = {
    ...(target.apiKey === undefined ? {} : { 'follow-owner': target.apiKey }),
    ...(target.secondApiKey === undefined ? {} : { 'other-owner': target.secondApiKey }),
    ...target.keys,
  };
  return MATRIX_ROLES.flatMap((role) => {
    const secret = keys[role];
    return secret === undefined ? [] : [{ role, secret }];
  });
}

/** An email as GET /emails lists it, with what the matrix uses of it. */
interface Listed {
  id: string;
  starred: boolean;
}

const domainOf = (address: string) => address.slice(address.lastIndexOf('@') + 1).toLowerCase();

/**
 * The scope matrix on a deployment's own keys (API world): each key's reach is what its
 * GET /mailboxes lists (§2.2, §4.1), which must respect §2.1 (the follow-owner key reaches
 * everything its owner's narrowed keys reach; a one-domain key reaches one domain). Then each
 * key must list and read what it lists, and every mailbox another key lists but it does not
 * is answered like a missing one (D-26), for GET /emails, GET and PATCH /emails/{id}.
 *
 * The only foreign mail here is the deployment's own, so the writes change nothing even where
 * a broken target carries them out: PATCH sets the email's own `starred` value, and DELETE is
 * tried only on an email the run sent itself (when `mail` is offered: --mailbox given), which
 * the run deletes at the end.
 */
async function apiScopeMatrix(context: CheckContext): Promise<void> {
  const { api, target } = context;
  const keys = givenKeys(target);
  const owner = keys.find((key) => key.role === 'follow-owner');
  if (owner === undefined)
    throw new MissingCapability('needs a follow-owner key (give --key follow-owner=<secret>)');
  const reach = new Map<MatrixRole, string[]>();
  for (const key of keys) {
    const response = await api.request({ path: '/mailboxes', apiKey: key.secret });
    expectAt('4.1-R1', response.status, `${key.role} key: GET /mailboxes`).toBe(200);
    const listed = response.json<{ address: string }[]>().map((m) => m.address);
    expectAt('D-2', listed, `${key.role} key: ordered by address`).toEqual([...listed].sort());
    reach.set(key.role, listed);
  }
  // §2.1: a key acts as its owner, narrowed: never beyond the owner's follow-owner key.
  const ownerReach = new Set(reach.get('follow-owner'));
  for (const role of ['one-domain', 'selected-mailbox'] as const) {
    const beyond = (reach.get(role) ?? []).filter((address) => !ownerReach.has(address));
    expectAt('2.1-R3', beyond, `the ${role} key lists what its owner's key does not`).toEqual([]);
  }
  const domains = [...new Set((reach.get('one-domain') ?? []).map(domainOf))];
  expectAt(
    '2.1-R4',
    domains.length <= 1,
    `the one-domain key lists mailboxes of one domain, got ${domains.join(', ')}`,
  ).toBe(true);

  // In scope: every key lists and reads what it lists (§5 rule 3).
  const sampleOf = new Map<string, Listed>();
  for (const key of keys) {
    for (const address of reach.get(key.role)!) {
      const list = await api.request({
        path: '/emails',
        query: { mailbox: address },
        apiKey: key.secret,
      });
      expectScoped(list, true, `${key.role} key: GET /emails?mailbox=${address}`);
      const first = list.json<{ emails: Listed[] }>().emails[0];
      if (first === undefined) continue;
      if (!sampleOf.has(address)) sampleOf.set(address, first);
      const detail = await api.request({
        path: `/emails/${encodeURIComponent(first.id)}`,
        apiKey: key.secret,
      });
      expectScoped(detail, true, `${key.role} key: GET /emails/{id of ${address}}`);
    }
  }

  // Out of scope: what another key lists is missing to this one (§5 rule 3, D-26).
  const everywhere = [...new Set([...reach.values()].flat())].sort();
  for (const key of keys) {
    const own = new Set(reach.get(key.role));
    for (const address of everywhere.filter((a) => !own.has(a))) {
      const list = await api.request({
        path: '/emails',
        query: { mailbox: address },
        apiKey: key.secret,
      });
      expectScoped(list, false, `${key.role} key: GET /emails?mailbox=${address}`);
      expectError('D-26', list, 404, 'mailbox_not_found', 'mailbox');
      const sample = sampleOf.get(address);
      if (sample === undefined) continue;
      expectAt(
        '5-R3',
        list.text.includes(sample.id),
        `${key.role} key: the refusal names an email of ${address}`,
      ).toBe(false);
      const detail = await api.request({
        path: `/emails/${encodeURIComponent(sample.id)}`,
        apiKey: key.secret,
      });
      expectScoped(detail, false, `${key.role} key: GET /emails/{id of ${address}}`);
      await expectLikeMissing(api, key.secret, detail, sample.id);
      const patch = await api.request({
        method: 'PATCH',
        path: `/emails/${encodeURIComponent(sample.id)}`,
        json: { starred: sample.starred },
        apiKey: key.secret,
      });
      expectScoped(patch, false, `${key.role} key: PATCH /emails/{id of ${address}}`);
    }
  }

  if (target.offers.has('mail')) await expectDeleteScoped(context, keys, reach);
  // Nothing out of scope was deleted by the probes above.
  for (const [address, sample] of sampleOf) {
    const holder = keys.find((key) => reach.get(key.role)!.includes(address))!;
    const again = await api.request({
      path: `/emails/${encodeURIComponent(sample.id)}`,
      apiKey: holder.secret,
    });
    expectAt('5-R3', again.status, `the email of ${address} is still there`).toBe(200);
  }
}

/**
 * DELETE out of scope, on an email the run sends itself from its first --mailbox (deleted
 * when the check ends): every key that does not list that mailbox is answered like a missing
 * one, and the email is still there.
 */
async function expectDeleteScoped(
  context: CheckContext,
  keys: GivenKey[],
  reach: Map<MatrixRole, string[]>,
): Promise<void> {
  const w = await sendWorld(context, { boxes: 1, rule: '5-R3' });
  const [box] = w.box;
  const response = await w.send({
    from: box,
    to: box,
    subject: `Scope probe ${randomTag()}`,
    text: 'Sent by the conformance suite to try DELETE out of scope; deleted at the end.',
  });
  expectSuccess('5-R3', response, 'the follow-owner key sends from its own mailbox');
  const sent = response.json<{ id?: unknown; mailbox?: unknown }>();
  if (typeof sent.id !== 'string' || typeof sent.mailbox !== 'string')
    throw new MissingCapability(
      'needs the id of the sent copy in the answer of a send (D-21), to try DELETE on it',
    );
  const { id, mailbox } = sent as { id: string; mailbox: string };
  for (const key of keys.filter((k) => !reach.get(k.role)!.includes(mailbox))) {
    const deleted = await w.api.request({
      method: 'DELETE',
      path: `/emails/${encodeURIComponent(id)}`,
      apiKey: key.secret,
    });
    expectScoped(deleted, false, `${key.role} key: DELETE /emails/{id of ${mailbox}}`);
  }
  expectAt(
    '5-R3',
    (await w.api.request({ path: `/emails/${encodeURIComponent(id)}`, apiKey: w.apiKey })).status,
    `the email the run sent to ${mailbox} is still there`,
  ).toBe(200);
}

rule(
  ['2.1-R3', '2.1-R4', '5-R3', '4.1-R1', '2.2-R1', 'D-2', 'D-26'],
  "lets each scope touch exactly its owner's granted mailboxes, narrowed, and answers the rest like missing ones",
  async (context) => {
    const { api, target } = context;
    // An API world: the keys given by role, their reach learned from GET /mailboxes.
    if (target.control === undefined) return apiScopeMatrix(context);
    // The control world makes its own owners, grants, mail and keys (`provisioning`, which it
    // always offers), so it knows each key's reach in advance and asserts it exactly.
    const world = await buildWorld(api, new ControlClient(api, target.control));
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
  { needs: ['scoped-keys', 'second-key', 'destructive'], timeout: 60_000 },
);

// Revoking a grant on demand is `provisioning`, which only a control plane gives.
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

/**
 * Refused (a 4xx, charged to `at`: the rule requiring the refusal) with D-29's 401
 * invalid_api_key.
 */
function expectRefused(response: ApiResponse, at: string, what: string) {
  expectAt(at, response.status >= 400 && response.status <= 499, `${what}: refused`).toBe(true);
  expectError('D-29', response, 401, 'invalid_api_key', undefined, what);
}

/** A disabled key or a key of a disabled owner, and what to ask with it. */
interface RefusedKey {
  what: string;
  secret: string;
  /** The rule requiring its refusal: the key's own flag (§2.1) or its owner's (§5 rule 4). */
  at: string;
  /** A mailbox, and an email of it, the key or its owner's keys could reach. */
  mailbox: string;
  emailId: string;
}

/** The API world's disabled keys (`--key disabled=`, `--key disabled-owner=`). */
async function givenRefusedKeys(api: ApiClient, target: Target): Promise<RefusedKey[]> {
  const { disabled, 'disabled-owner': ofDisabledOwner } = target.keys ?? {};
  if (disabled === undefined || ofDisabledOwner === undefined)
    throw new MissingCapability('needs --key disabled=<secret> and --key disabled-owner=<secret>');
  // A mailbox and an email the working key reaches, so a key that is refused is refused for
  // being disabled, not because the thing is missing.
  const mailbox = target.mailboxes?.[0] ?? `nobody@${SUITE_DOMAIN}`;
  let emailId = 'em_missing';
  if (target.mailboxes?.[0] !== undefined && target.apiKey !== undefined) {
    const list = await api.request({ path: '/emails', query: { mailbox }, apiKey: target.apiKey });
    if (list.status === 200) emailId = list.json<{ emails: Listed[] }>().emails[0]?.id ?? emailId;
  }
  return [
    { what: 'a disabled key', secret: disabled, at: '2.1-R5', mailbox, emailId },
    { what: 'a key of a disabled owner', secret: ofDisabledOwner, at: '5-R4', mailbox, emailId },
  ];
}

rule(
  ['2.1-R5', '5-R4', 'D-29'],
  'refuses a disabled key, and a key of a disabled owner, on every operation tried',
  async ({ api, target }) => {
    let refused: RefusedKey[];
    if (target.control === undefined) refused = await givenRefusedKeys(api, target);
    else {
      const world = await buildWorld(api, new ControlClient(api, target.control));
      await world.control.setKeyDisabled(world.keys.selected.id, true);
      await world.control.setOwnerDisabled(world.owner2, true);
      const { b, x } = world.boxes;
      refused = [
        {
          what: 'a disabled key',
          secret: world.keys.selected.secret,
          at: '2.1-R5',
          mailbox: b,
          emailId: world.emailOf.get(b)!,
        },
        {
          what: 'a key of a disabled owner',
          secret: world.keys.other.secret,
          at: '5-R4',
          mailbox: x,
          emailId: world.emailOf.get(x)!,
        },
      ];
    }
    for (const { what, secret, at, mailbox, emailId } of refused) {
      const tried: [string, Parameters<ApiClient['request']>[0]][] = [
        ['GET /mailboxes', { path: '/mailboxes' }],
        [`GET /emails?mailbox=${mailbox}`, { path: '/emails', query: { mailbox } }],
        ['GET /emails/{id}', { path: `/emails/${encodeURIComponent(emailId)}` }],
      ];
      for (const [operation, request] of tried)
        expectRefused(
          await api.request({ ...request, apiKey: secret }),
          at,
          `${what}: ${operation}`,
        );
    }
  },
  { needs: ['disabled-keys'] },
);

// Disabling and enabling again on demand is `provisioning`, which only a control plane gives:
// the refusal itself is checked in both worlds above, the timing ("on the very next request")
// and the return of an enabled key only here.
rule(
  ['2.1-R5', '5-R4', 'D-29'],
  'refuses a disabled key, or any key of a disabled owner, on the very next request, and accepts them again once enabled',
  async ({ api, target }) => {
    const world = await buildWorld(api, new ControlClient(api, target.control!));
    const mailboxes = (key: CreatedKey) => api.request({ path: '/mailboxes', apiKey: key.secret });
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
    // Any working key will do: the control world makes one, an API world was given one.
    const secret =
      target.control !== undefined
        ? (await buildWorld(api, new ControlClient(api, target.control))).keys.follow.secret
        : target.apiKey;
    if (secret === undefined) throw new MissingCapability('needs an API key (give --api-key)');
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
  // Nothing beyond a key: the control world's key is made through its control plane.
  { needs: [] },
);

/** What a narrowed key is tried with: an email (with a file) in a mailbox outside its scope. */
interface OutOfScope {
  what: string;
  secret: string;
  /** A mailbox of the key's owner that its scope leaves out. */
  mailbox: string;
  emailId: string;
  attachmentId: string;
  /** Where a send or forward may go: a mailbox the key reaches, or one the run was given. */
  to: string;
  /** Replies go to the original's sender, whom the run may not write to in an API world. */
  reply: boolean;
}

/** The control world's narrowed keys, each with an email of its owner's it must not reach. */
async function madeOutOfScope(api: ApiClient, control: ControlClient): Promise<OutOfScope[]> {
  const world = await buildWorld(api, control);
  const { a, b, c } = world.boxes;
  const withFile = async (mailbox: string) => {
    const id = (
      await control.inject({
        mailbox,
        from: 'bob@partner.test',
        to: [mailbox],
        subject: `file for ${mailbox}`,
        text: 'attached',
        attachments: [{ name: 'plan.txt', contentBase64: Buffer.from('plan').toString('base64') }],
      })
    ).id;
    const detail = await api.request({ path: `/emails/${id}`, apiKey: world.keys.follow.secret });
    expectAt('5-R3', detail.status, 'the follow-owner key reads it').toBe(200);
    return {
      id,
      attachmentId: detail.json<{ attachments: { id: string }[] }>().attachments[0]!.id,
    };
  };
  const inA = await withFile(a);
  const inC = await withFile(c);
  return [
    {
      what: 'a selected-mailbox key (b, c)',
      secret: world.keys.selected.secret,
      mailbox: a,
      emailId: inA.id,
      attachmentId: inA.attachmentId,
      to: b,
      reply: true,
    },
    {
      what: `a one-domain key (${domainOf(a)})`,
      secret: world.keys.domain.secret,
      mailbox: c,
      emailId: inC.id,
      attachmentId: inC.attachmentId,
      to: a,
      reply: true,
    },
  ];
}

/**
 * An API world's narrowed key (`--key selected-mailbox=` or `one-domain=`), with an email of a
 * mailbox the follow-owner key lists and it does not: read from what the deployment holds.
 */
async function givenOutOfScope(api: ApiClient, target: Target): Promise<OutOfScope[]> {
  const follow = target.apiKey;
  const to = target.mailboxes?.[0];
  const narrowed = (['selected-mailbox', 'one-domain'] as const)
    .map((role) => ({ role, secret: target.keys?.[role] }))
    .filter((k): k is { role: 'selected-mailbox' | 'one-domain'; secret: string } => !!k.secret);
  if (follow === undefined || to === undefined || narrowed.length === 0)
    throw new MissingCapability(
      'needs --api-key, a --mailbox and --key selected-mailbox=<secret> or --key one-domain=<secret>',
    );
  const reach = async (secret: string) =>
    (await api.request({ path: '/mailboxes', apiKey: secret }))
      .json<{ address: string }[]>()
      .map((m) => m.address);
  const all = await reach(follow);
  const found: OutOfScope[] = [];
  for (const { role, secret } of narrowed) {
    const own = await reach(secret);
    for (const mailbox of all.filter((m) => !own.includes(m))) {
      const list = await api.request({
        path: '/emails',
        query: { mailbox, limit: 100 },
        apiKey: follow,
      });
      const emails = list.json<{ emails: { id: string; attachmentCount?: number }[] }>().emails;
      const withFile = emails.find((e) => (e.attachmentCount ?? 0) > 0);
      if (withFile === undefined) continue;
      const detail = await api.request({ path: `/emails/${withFile.id}`, apiKey: follow });
      const attachmentId = detail.json<{ attachments: { id: string }[] }>().attachments[0]?.id;
      if (attachmentId === undefined) continue;
      found.push({
        what: `the ${role} key`,
        secret,
        mailbox,
        emailId: withFile.id,
        attachmentId,
        to: own.find((m) => target.mailboxes?.includes(m)) ?? to,
        reply: false,
      });
      break;
    }
  }
  if (found.length === 0)
    throw new MissingCapability(
      'needs an email with an attachment in a mailbox the follow-owner key lists and a narrowed key does not',
    );
  return found;
}

rule(
  ['5-R3', '2.1-R3', 'D-26'],
  "answers a narrowed key's reply, forward and download of its owner's mail outside its scope like missing ones, and refuses a from outside it",
  async (context) => {
    const { api, target } = context;
    const tried =
      target.control === undefined
        ? await givenOutOfScope(api, target)
        : await madeOutOfScope(api, new ControlClient(api, target.control));
    // A reply goes to the original's sender, whom an API world's run may not write to: there
    // only the forward (to a given mailbox), the download and the send are tried.
    for (const { what, secret, mailbox, emailId, attachmentId, to, reply } of tried) {
      const post = (path: string, json: unknown) =>
        api.request({ method: 'POST', path, json, apiKey: secret });
      const id = encodeURIComponent(emailId);
      const refusals: [string, () => Promise<ApiResponse>, string, string | undefined][] = [
        ['forward', () => post(`/emails/${id}/forward`, { to }), 'email_not_found', undefined],
        [
          'download of its file',
          () =>
            api.request({
              path: `/attachments/${encodeURIComponent(attachmentId)}`,
              apiKey: secret,
            }),
          'attachment_not_found',
          undefined,
        ],
        [
          `send from ${mailbox}`,
          () => post('/emails/send', { from: mailbox, to, subject: 'Out of scope', text: 'x' }),
          'mailbox_not_found',
          'from',
        ],
      ];
      if (reply)
        refusals.unshift([
          'reply',
          () => post(`/emails/${id}/reply`, { text: 'x' }),
          'email_not_found',
          undefined,
        ]);
      for (const [operation, request, code, field] of refusals) {
        const response = await request();
        const label = `${what}: ${operation} (${mailbox} is its owner's, outside its scope)`;
        expectError(['5-R3', 'D-26'], response, 404, code, field, label);
      }
    }
  },
  { needs: ['scoped-keys', 'destructive'] },
);

// --- The API's surface as a key meets it (issue 16) ---
/*
 * §4's endpoint table, §5 and §9 as a whole: every one of the ten operations asks for the key
 * in the Authorization header and nowhere else, a method the table does not list on one of its
 * paths is not an operation (D-12's 405 with `Allow`), the API lives under {base_url} only, and
 * the API has no webhook endpoints (§1).
 *
 * Requests outside the contract are sent as absolute URLs with the key set by hand, so the
 * contract validator (which knows only the ten operations) is not asked to judge them.
 */
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
        response.text === new TextDecoder().decode(listed.bytes);
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

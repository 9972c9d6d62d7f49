/**
 * §2.1, §5: a key acts as its owner narrowed by its scope, evaluated on every request; a
 * disabled key or owner fails at once; anything out of scope is answered like a missing thing
 * (D-26) and no answer carries data from outside the scope.
 */
import { randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import { rule } from '../src/check.ts';
import type { ApiClient } from '../src/client.ts';
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

/** Every read operation for every mailbox; returns the texts answered. */
async function probe(
  api: ApiClient,
  world: World,
  key: CreatedKey,
  allowed: string[],
): Promise<string[]> {
  const texts: string[] = [];
  const mailboxes = await api.request({ path: '/mailboxes', apiKey: key.secret });
  expect(mailboxes.status).toBe(200);
  expect(
    mailboxes.json<{ address: string }[]>().map((m) => m.address),
    `${key.scope} key: GET /mailboxes`,
  ).toEqual([...allowed].sort());
  texts.push(mailboxes.text);
  for (const [address, id] of world.emailOf) {
    const inScope = allowed.includes(address);
    const list = await api.request({
      path: '/emails',
      query: { mailbox: address },
      apiKey: key.secret,
    });
    expect(list.status, `${key.scope} key: GET /emails?mailbox=${address}`).toBe(
      inScope ? 200 : 404,
    );
    if (!inScope)
      expect(list.json()).toMatchObject({ code: 'mailbox_not_found', field: 'mailbox' });
    const detail = await api.request({ path: `/emails/${id}`, apiKey: key.secret });
    expect(detail.status, `${key.scope} key: GET /emails/{id of ${address}}`).toBe(
      inScope ? 200 : 404,
    );
    const patch = await api.request({
      method: 'PATCH',
      path: `/emails/${id}`,
      json: { starred: true },
      apiKey: key.secret,
    });
    expect(patch.status, `${key.scope} key: PATCH /emails/{id of ${address}}`).toBe(
      inScope ? 200 : 404,
    );
    if (!inScope) {
      // D-26: exactly like an email that does not exist.
      const missingId = `${id.slice(0, -1)}${id.endsWith('Z') ? 'Y' : 'Z'}`;
      const missing = await api.request({ path: `/emails/${missingId}`, apiKey: key.secret });
      const strip = (text: string, what: string) => text.split(what).join('<id>');
      expect(strip(detail.text, id)).toBe(strip(missing.text, missingId));
      const deleted = await api.request({
        method: 'DELETE',
        path: `/emails/${id}`,
        apiKey: key.secret,
      });
      expect(deleted.status, `${key.scope} key: DELETE /emails/{id of ${address}}`).toBe(404);
    }
    texts.push(list.text, detail.text, patch.text);
  }
  return texts;
}

function expectNoForeignData(texts: string[], world: World, allowed: string[]) {
  for (const [address, id] of world.emailOf) {
    if (allowed.includes(address)) continue;
    for (const text of texts) {
      expect(
        text.includes(`secret of ${address}`),
        `an answer carries the body of ${address}`,
      ).toBe(false);
      expect(text.includes(`for ${address}`), `an answer carries the subject of ${address}`).toBe(
        false,
      );
      // A whole address, not the tail of another string (a Message-ID may end in "x@domain").
      const named = new RegExp(
        `(?<![A-Za-z0-9._%+-])${address.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`,
      );
      expect(
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
      const texts = await probe(api, world, key, allowed);
      expectNoForeignData(texts, world, allowed);
    }
    // Nothing out of scope was changed or deleted by the probes above.
    for (const [address, id] of world.emailOf) {
      const owner = address === x ? world.keys.other : world.keys.follow;
      expect((await api.request({ path: `/emails/${id}`, apiKey: owner.secret })).status).toBe(200);
    }
  },
  { needs: ['control-plane', 'second-key', 'destructive'], timeout: 60_000 },
);

rule(
  ['2.5-R2', '5-R3', '2.1-R3'],
  "follows the owner's grants at once: a revoked grant disappears from every scope on the next request",
  async ({ api, target }) => {
    const world = await buildWorld(api, new ControlClient(api, target.control!));
    const { a, b, c } = world.boxes;
    await world.control.revoke(world.owner1, b);
    await probe(api, world, world.keys.follow, [a, c]);
    await probe(api, world, world.keys.domain, [a]);
    await probe(api, world, world.keys.selected, [c]);
    await world.control.grant(world.owner1, b);
    await probe(api, world, world.keys.selected, [b, c]);
  },
  { needs: ['control-plane', 'second-key', 'destructive'], timeout: 60_000 },
);

rule(
  ['2.1-R5', '5-R4', 'D-29'],
  'refuses a disabled key, or any key of a disabled owner, on the very next request, and accepts them again once enabled',
  async ({ api, target }) => {
    const world = await buildWorld(api, new ControlClient(api, target.control!));
    const mailboxes = (key: CreatedKey) => api.request({ path: '/mailboxes', apiKey: key.secret });
    await world.control.setKeyDisabled(world.keys.selected.id, true);
    const refused = await mailboxes(world.keys.selected);
    expect(refused.status).toBe(401);
    expect(refused.json()).toMatchObject({ code: 'invalid_api_key' });
    expect((await mailboxes(world.keys.follow)).status).toBe(200);
    await world.control.setKeyDisabled(world.keys.selected.id, false);
    expect((await mailboxes(world.keys.selected)).status).toBe(200);

    await world.control.setOwnerDisabled(world.owner1, true);
    for (const key of [world.keys.follow, world.keys.domain, world.keys.selected]) {
      const response = await mailboxes(key);
      expect(response.status, `${key.scope} key of a disabled owner`).toBe(401);
      expect(response.json()).toMatchObject({ code: 'invalid_api_key' });
    }
    expect((await mailboxes(world.keys.other)).status, 'a key of another owner').toBe(200);
    await world.control.setOwnerDisabled(world.owner1, false);
    expect((await mailboxes(world.keys.follow)).status).toBe(200);
  },
  { needs: ['control-plane', 'second-key'] },
);

rule(
  ['5-R1', '5-R2', '7-R2', 'D-29', '2.1-R2'],
  'authenticates only with Authorization: Bearer, never a key in the query string or another header',
  async ({ api, target }) => {
    const world = await buildWorld(api, new ControlClient(api, target.control!));
    const secret = world.keys.follow.secret;
    expect(secret.startsWith('sk-')).toBe(true);
    const attempts: [string, Parameters<ApiClient['request']>[0], string][] = [
      ['no header', { path: '/mailboxes', apiKey: null }, 'missing_api_key'],
      [
        'key in the query string',
        { path: '/mailboxes', query: { api_key: secret }, apiKey: null },
        'missing_api_key',
      ],
      [
        'key in X-API-Key',
        { path: '/mailboxes', headers: { 'X-API-Key': secret }, apiKey: null },
        'missing_api_key',
      ],
      [
        'Basic scheme',
        {
          path: '/mailboxes',
          headers: { Authorization: `Basic ${Buffer.from(`${secret}:`).toString('base64')}` },
          apiKey: null,
        },
        'missing_api_key',
      ],
      [
        'unknown key',
        { path: '/mailboxes', apiKey: `sk-${'A'.repeat(12)}_${'b'.repeat(32)}` },
        'invalid_api_key',
      ],
      ['malformed key', { path: '/mailboxes', apiKey: 'sk-nope' }, 'invalid_api_key'],
      [
        'key with one character changed',
        { path: '/mailboxes', apiKey: `${secret.slice(0, -1)}${secret.endsWith('a') ? 'b' : 'a'}` },
        'invalid_api_key',
      ],
    ];
    for (const [what, request, code] of attempts) {
      const response = await api.request(request);
      expect(response.status, what).toBe(401);
      expect(response.json<{ code: string }>().code, what).toBe(code);
      expect(response.headers.get('www-authenticate') ?? '', what).toMatch(/^Bearer/);
    }
    expect((await api.request({ path: '/mailboxes', apiKey: secret })).status).toBe(200);
  },
  { needs: ['control-plane'] },
);

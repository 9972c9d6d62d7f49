// Tenants and waits (issue 30 items 1 and 2, D-70, D-71): a private world per test worker, made
// and removed in one call, and long polls woken by the event bus. spec/control.yaml's shapes are
// checked in routes/control.test.ts; these tests hold the behaviour.
import { describe, expect, it, vi } from 'vitest';
import { createApp, createServices, defaultDeps } from '../../app.ts';
import type { AppDeps } from '../../deps.ts';

const TOKEN = 'test-token';

function setup(overrides: Partial<AppDeps> = {}) {
  const deps = defaultDeps({ controlToken: TOKEN, logError: () => {}, ...overrides });
  const services = createServices(deps);
  const app = createApp(deps, services);
  const control = async (method: string, path: string, json?: unknown) => {
    const response = await app.request(`/_mailtwin/v1${path}`, {
      method,
      headers: {
        Authorization: `Bearer ${TOKEN}`,
        ...(json === undefined ? {} : { 'Content-Type': 'application/json' }),
      },
      body: json === undefined ? undefined : JSON.stringify(json),
    });
    const text = await response.text();
    return {
      status: response.status,
      headers: response.headers,
      body: text === '' ? undefined : (JSON.parse(text) as any),
    };
  };
  const api = async (secret: string, method: string, path: string, json?: unknown) => {
    const response = await app.request(`/openapi/v1${path}`, {
      method,
      headers: {
        Authorization: `Bearer ${secret}`,
        ...(json === undefined ? {} : { 'Content-Type': 'application/json' }),
      },
      body: json === undefined ? undefined : JSON.stringify(json),
    });
    const text = await response.text();
    return { status: response.status, body: text === '' ? undefined : (JSON.parse(text) as any) };
  };
  const inbound = (mailbox: string, subject: string, text = 'Hello') =>
    control('POST', '/inbound', { mailbox, from: 'carol@partner.test', subject, text });
  return { deps, services, app, control, api, inbound };
}

describe('tenants', () => {
  it('makes an owner, mailboxes on its own domain and a key of each scope in one call', async () => {
    const { control, api } = setup();
    const made = await control('POST', '/tenants', { name: 'worker 1', mailboxes: 3 });
    expect(made.status).toBe(201);
    const t = made.body;
    expect(t.mailboxes).toEqual([1, 2, 3].map((i) => `user${i}@${t.domain}`));
    expect(t.baseUrl).toMatch(/\/openapi\/v1$/);
    expect(t.webhook).toBeNull();
    const seen = async (secret: string) =>
      ((await api(secret, 'GET', '/mailboxes')).body as { address: string }[]).map(
        (m) => m.address,
      );
    expect(await seen(t.keys.followOwner.secret)).toEqual(t.mailboxes);
    expect(await seen(t.keys.oneDomain.secret)).toEqual(t.mailboxes);
    expect(await seen(t.keys.selectedMailbox.secret)).toEqual([t.mailboxes[0]]);
    expect((await control('GET', `/tenants/${t.id}`)).body.mailboxes).toEqual(t.mailboxes);
    expect((await control('GET', '/tenants')).body.map((x: { id: string }) => x.id)).toEqual([
      t.id,
    ]);
  });

  it('makes a tenant without listing every domain (its cost does not grow with the tenants)', async () => {
    const { control, deps } = setup();
    const listed = vi.spyOn(deps.store.directory, 'listDomains');
    expect((await control('POST', '/tenants', {})).status).toBe(201);
    expect(listed).not.toHaveBeenCalled();
  });

  it('refuses a domain that exists and leaves nothing behind when a part is refused', async () => {
    const { control } = setup();
    await control('POST', '/mailboxes', { address: 'alice@acme.test' });
    const taken = await control('POST', '/tenants', { domain: 'acme.test' });
    expect(taken.status).toBe(409);
    expect(taken.body.code).toBe('already_exists');
    const owners = (await control('GET', '/owners')).body.length;
    const badHook = await control('POST', '/tenants', { webhook: { url: 'http://10.0.0.1/x' } });
    expect(badHook.status).toBe(400);
    expect(badHook.body.code).toBe('invalid_webhook_url');
    expect((await control('GET', '/owners')).body.length).toBe(owners);
    expect((await control('GET', '/tenants')).body).toEqual([]);
    const tooMany = await control('POST', '/tenants', { mailboxes: 51 });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.field).toBe('mailboxes');
  });

  it('lets no tenant see another: lists, search, outbox, and mail sent across goes out', async () => {
    const { control, api, inbound } = setup();
    const a = (await control('POST', '/tenants', {})).body;
    const b = (await control('POST', '/tenants', {})).body;
    await inbound(a.mailboxes[0], 'Secret plan');
    // A sends to B's mailbox and to someone outside: neither arrives in B.
    const sent = await api(a.keys.followOwner.secret, 'POST', '/emails/send', {
      from: a.mailboxes[0],
      to: b.mailboxes[0],
      cc: ['dave@partner.test', a.mailboxes[1]],
      subject: 'Cross-world hello',
      text: 'The code is 4711',
    });
    expect(sent.status).toBe(201);
    const list = (key: string, mailbox: string, q = '') =>
      api(key, 'GET', `/emails?mailbox=${encodeURIComponent(mailbox)}${q}`);
    expect((await list(b.keys.followOwner.secret, b.mailboxes[0])).body.emails).toEqual([]);
    // A's own second mailbox is of its world: delivered.
    expect(
      (await list(a.keys.followOwner.secret, a.mailboxes[1])).body.emails.map(
        (e: { subject: string }) => e.subject,
      ),
    ).toEqual(['Cross-world hello']);
    // B's key cannot name A's mailbox, not even to search it (D-26).
    expect((await list(b.keys.followOwner.secret, a.mailboxes[0], '&q=secret')).status).toBe(404);
    const outboxOf = async (tenant: string) =>
      (await control('GET', `/outbox?tenant=${tenant}`)).body as { recipients: string[] }[];
    expect((await outboxOf(a.id)).map((e) => e.recipients)).toEqual([
      [b.mailboxes[0], 'dave@partner.test'],
    ]);
    expect(await outboxOf(b.id)).toEqual([]);
  });

  it('tells a tenant webhook of its own mail only', async () => {
    const received: string[] = [];
    const { control, inbound, services } = setup({
      resolver: async () => [{ address: '93.184.216.34', family: 4 }],
      connector: async (delivery) => {
        received.push(JSON.parse(delivery.body.toString('utf8')).data.mailbox);
        return { status: 200 };
      },
    });
    const a = (
      await control('POST', '/tenants', { webhook: { url: 'https://hooks.example.com/a' } })
    ).body;
    const b = (
      await control('POST', '/tenants', { webhook: { url: 'https://hooks.example.com/b' } })
    ).body;
    expect(a.webhook.secret).toMatch(/^whsec_/);
    await inbound(a.mailboxes[0], 'For A');
    await inbound(b.mailboxes[1], 'For B');
    await services.dispatcher.runDue();
    expect(received.sort()).toEqual([a.mailboxes[0], b.mailboxes[1]].sort());
    const deliveries = async (id: string) =>
      (await control('GET', `/webhooks/${id}/deliveries`)).body.length;
    expect([await deliveries(a.webhook.id), await deliveries(b.webhook.id)]).toEqual([1, 1]);
  });

  it('deletes everything a tenant made in one call, and nothing of another', async () => {
    const { control, api, inbound, app } = setup();
    const a = (await control('POST', '/tenants', {})).body;
    const b = (await control('POST', '/tenants', {})).body;
    await inbound(b.mailboxes[0], 'B keeps this');
    const upload = new FormData();
    upload.append('file', new Blob([new Uint8Array([1, 2, 3, 4])]), 'a.bin');
    const uploaded = await app.request('/openapi/v1/attachments', {
      method: 'POST',
      headers: { Authorization: `Bearer ${a.keys.followOwner.secret}` },
      body: upload,
    });
    expect(uploaded.status).toBe(201);
    const { id: uploadId } = (await uploaded.json()) as { id: string };
    await api(a.keys.followOwner.secret, 'POST', '/emails/send', {
      from: a.mailboxes[0],
      to: a.mailboxes[1],
      cc: ['dave@partner.test'],
      subject: 'With a file',
      text: 'see attached',
      attachmentIds: [uploadId],
    });
    expect((await control('GET', '/storage')).body.files).toBe(1);

    expect((await control('DELETE', `/tenants/${a.id}`)).status).toBe(204);
    expect((await control('GET', `/tenants/${a.id}`)).body.code).toBe('tenant_not_found');
    expect((await control('DELETE', `/tenants/${a.id}`)).status).toBe(404);
    expect((await api(a.keys.followOwner.secret, 'GET', '/mailboxes')).status).toBe(401);
    const mailboxes = (await control('GET', '/mailboxes')).body.map(
      (m: { address: string }) => m.address,
    );
    expect(mailboxes).toEqual(b.mailboxes);
    expect((await control('GET', '/domains')).body).toEqual([{ name: b.domain }]);
    expect((await control('GET', '/outbox')).body).toEqual([]);
    expect((await control('GET', '/storage')).body).toEqual({ files: 0, bytes: 0 });
    expect((await control('GET', '/owners')).body.map((o: { id: string }) => o.id)).toEqual([
      b.ownerId,
    ]);
    const kept = await api(
      b.keys.followOwner.secret,
      'GET',
      `/emails?mailbox=${encodeURIComponent(b.mailboxes[0])}&q=keeps`,
    );
    expect(kept.body.emails.length).toBe(1);
  });
});

describe('waits', () => {
  it('answers at once when a matching email already exists, with the list page', async () => {
    const { control, inbound } = setup();
    const t = (await control('POST', '/tenants', {})).body;
    await inbound(t.mailboxes[0], 'Already here');
    const waited = await control(
      'GET',
      `/wait/emails?mailbox=${t.mailboxes[0]}&subject=already&timeoutMs=0`,
    );
    expect(waited.status).toBe(200);
    expect(waited.body.emails.map((e: { subject: string }) => e.subject)).toEqual(['Already here']);
    expect(waited.body.nextCursor).toBeNull();
  });

  it('wakes a waiting request when matching mail arrives, not before', async () => {
    const { control, inbound } = setup();
    const t = (await control('POST', '/tenants', {})).body;
    let settled = false;
    const waiting = control(
      'GET',
      `/wait/emails?mailbox=${t.mailboxes[0]}&subject=code&timeoutMs=60000`,
    ).then((answer) => {
      settled = true;
      return answer;
    });
    await inbound(t.mailboxes[0], 'Unrelated');
    await inbound(t.mailboxes[1], 'Your code, wrong mailbox');
    await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toBe(false);
    await inbound(t.mailboxes[0], 'Your code is 1234');
    const answer = await waiting;
    expect(answer.status).toBe(200);
    expect(answer.body.emails.map((e: { subject: string }) => e.subject)).toEqual([
      'Your code is 1234',
    ]);
  });

  it('wakes on an update that makes an email match (PATCH)', async () => {
    const { control, inbound, api } = setup();
    const t = (await control('POST', '/tenants', {})).body;
    const { id } = (await inbound(t.mailboxes[0], 'Star me')).body;
    const waiting = control('GET', `/wait/emails?mailbox=${t.mailboxes[0]}&starred=true`);
    await api(t.keys.followOwner.secret, 'PATCH', `/emails/${id}`, { starred: true });
    expect((await waiting).body.emails[0].id).toBe(id);
  });

  it('answers 408 wait_timeout when nothing matches in time', async () => {
    const { control } = setup();
    const t = (await control('POST', '/tenants', {})).body;
    const answer = await control('GET', `/wait/emails?mailbox=${t.mailboxes[0]}&timeoutMs=0`);
    expect(answer.status).toBe(408);
    expect(answer.body).toMatchObject({ code: 'wait_timeout', field: 'timeoutMs' });
    const outbox = await control('GET', `/wait/outbox?tenant=${t.id}&timeoutMs=1`);
    expect(outbox.status).toBe(408);
    expect(outbox.body.code).toBe('wait_timeout');
  });

  it('refuses bad parameters as GET /emails does, and a bad timeoutMs', async () => {
    const { control } = setup();
    const t = (await control('POST', '/tenants', {})).body;
    const at = (q: string) => control('GET', `/wait/emails?mailbox=${t.mailboxes[0]}${q}`);
    expect((await at('&timeoutMs=120001')).body).toMatchObject({
      code: 'invalid_field',
      field: 'timeoutMs',
    });
    expect((await at('&folder=nope')).body.code).toBe('invalid_folder');
    expect((await at('&limit=101')).body.code).toBe('limit_too_large');
    expect((await control('GET', '/wait/emails?mailbox=nobody@x.test')).status).toBe(404);
    expect((await control('GET', '/wait/outbox?tenant=tnt_nobody')).status).toBe(404);
    expect((await control('GET', '/wait/outbox?bogus=1')).body.field).toBe('bogus');
  });

  it('wakes an outbox wait on a captured send, filtered by tenant, to and text', async () => {
    const { control, api } = setup();
    const a = (await control('POST', '/tenants', {})).body;
    const b = (await control('POST', '/tenants', {})).body;
    const send = (t: any, to: string, text: string) =>
      api(t.keys.followOwner.secret, 'POST', '/emails/send', {
        from: t.mailboxes[0],
        to,
        subject: 'Receipt',
        text,
      });
    const waiting = control('GET', `/wait/outbox?tenant=${a.id}&to=carol@&text=CODE%20IS`);
    await send(b, 'carol@partner.test', 'Your code is 1'); // another tenant
    await send(a, 'dave@partner.test', 'Your code is 2'); // another recipient
    await send(a, 'carol@partner.test', 'Nothing here'); // other text
    await send(a, 'carol@partner.test', 'Your code is 3');
    const answer = await waiting;
    expect(answer.status).toBe(200);
    expect(answer.body).toHaveLength(1);
    expect(answer.body[0]).toMatchObject({
      from: a.mailboxes[0],
      recipients: ['carol@partner.test'],
    });
  });
});

describe('the outbox list', () => {
  it('filters by to, from, subject and text, and pages with a cursor in a Link header', async () => {
    const { control, api } = setup();
    const t = (await control('POST', '/tenants', {})).body;
    for (let i = 1; i <= 5; i++) {
      await api(t.keys.followOwner.secret, 'POST', '/emails/send', {
        from: t.mailboxes[i % 2],
        to: `r${i}@partner.test`,
        subject: `Über ${i}`,
        markdown: `**Hello** number ${i}`,
      });
    }
    const subjects = (entries: { subject: string }[]) => entries.map((e) => e.subject);
    expect(subjects((await control('GET', '/outbox?subject=%C3%BCBER%203')).body)).toEqual([
      'Über 3',
    ]);
    expect(subjects((await control('GET', '/outbox?text=number%204')).body)).toEqual(['Über 4']);
    expect(subjects((await control('GET', '/outbox?to=r5@')).body)).toEqual(['Über 5']);
    expect(
      subjects((await control('GET', `/outbox?from=${encodeURIComponent(t.mailboxes[0])}`)).body),
    ).toEqual(['Über 4', 'Über 2']);

    const first = await control('GET', '/outbox?limit=2&text=hello');
    expect(subjects(first.body)).toEqual(['Über 5', 'Über 4']);
    const next = /^<([^>]+)>; rel="next"$/.exec(first.headers.get('link') ?? '')?.[1];
    expect(next).toBeDefined();
    const second = await control('GET', (next as string).replace('/_mailtwin/v1', ''));
    expect(subjects(second.body)).toEqual(['Über 3', 'Über 2']);
    const cursor = new URL(`http://x${next}`).searchParams.get('cursor');
    const other = await control('GET', `/outbox?limit=2&text=bye&cursor=${cursor}`);
    expect(other.body.code).toBe('invalid_cursor');
    const last = /^<([^>]+)>/.exec(second.headers.get('link') ?? '')?.[1] as string;
    const third = await control('GET', last.replace('/_mailtwin/v1', ''));
    expect(subjects(third.body)).toEqual(['Über 1']);
    expect(third.headers.get('link')).toBeNull();
    // Without limit or cursor: every entry, as before.
    expect((await control('GET', '/outbox')).body).toHaveLength(5);
  });
});

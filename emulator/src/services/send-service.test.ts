import { describe, expect, it } from 'vitest';
import { createApp, createServices, defaultDeps } from '../app.ts';

/** The made-up origin these tests call the app at, served as `--allowed-hosts mail.test` would. */
const HOSTS = { allowed: ['mail.test'] };

async function world() {
  const deps = defaultDeps({ logError: () => {}, hosts: HOSTS });
  const services = createServices(deps);
  const owner = services.directory.createOwner({ name: 'Acme' });
  for (const address of ['alice@acme.test', 'bob@acme.test']) {
    services.directory.createMailbox({ address });
    services.directory.grant(owner.id, address);
  }
  const { secret } = services.directory.createKey({
    ownerId: owner.id,
    name: 'app',
    scope: 'follow-owner',
  });
  const app = createApp(deps, services);
  const headers = { Authorization: `Bearer ${secret}` };
  return { deps, services, app, headers };
}

describe('attachment reuse (§2.4)', () => {
  it('keeps one stored copy of the bytes however many sends, replies and forwards reuse an upload', async () => {
    const { deps, app, headers } = await world();
    const form = new FormData();
    form.append(
      'file',
      new Blob([new Uint8Array(200_000).fill(7)], { type: 'application/pdf' }),
      'big.pdf',
    );
    const upload = (await (
      await app.request('/openapi/v1/attachments', { method: 'POST', body: form, headers })
    ).json()) as { id: string };
    const before = deps.store.blobs.stats();
    expect(before).toEqual({ count: 1, bytes: 200_000 });

    const post = async (path: string, json: object) => {
      const response = await app.request(`/openapi/v1${path}`, {
        method: 'POST',
        headers: { ...headers, 'Content-Type': 'application/json' },
        body: JSON.stringify(json),
      });
      expect(response.status, await response.clone().text()).toBe(201);
      return (await response.json()) as { id: string };
    };
    let last = { id: '' };
    for (let i = 0; i < 5; i += 1) {
      last = await post('/emails/send', {
        from: 'alice@acme.test',
        to: 'bob@acme.test',
        cc: ['carol@ext.test'],
        subject: `n${i}`,
        text: 'x',
        attachmentIds: [upload.id],
      });
    }
    await post(`/emails/${last.id}/reply`, { text: 'again', attachmentIds: [upload.id] });
    await post(`/emails/${last.id}/forward`, { to: 'dave@ext.test' });
    expect(deps.store.blobs.stats()).toEqual(before);
  });
});

describe('{{unsubscribe_url}} (D-24)', () => {
  it('leads to a page that suppresses the recipient, so the next send to them is refused', async () => {
    const { app, headers } = await world();
    const send = (text: string) =>
      app.request('http://mail.test/openapi/v1/emails/send', {
        method: 'POST',
        headers: { ...headers, 'Content-Type': 'application/json' },
        body: JSON.stringify({
          from: 'alice@acme.test',
          to: 'carol@ext.test',
          subject: 'News',
          text,
        }),
      });
    const first = (await (await send('Leave: {{unsubscribe_url}}')).json()) as { text: string };
    const url = /http:\/\/mail\.test\/unsubscribe\/\S+/.exec(first.text)?.[0];
    expect(url).toBeDefined();
    const page = await app.request(url!);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('carol@ext.test will receive no more mail');
    const refused = await send('again');
    expect(refused.status).toBe(422);
    expect(await refused.json()).toMatchObject({ code: 'recipient_suppressed', field: 'to' });
    expect((await app.request(`${url!.slice(0, -3)}xyz`)).status).toBe(404);
  });
});

describe('replies with nobody else to answer (D-49)', () => {
  it('answers a reply to mail from the mailbox itself to undisclosed recipients, addressed to itself', async () => {
    const { services, app, headers } = await world();
    const received = services.inbound.injectJson({
      mailbox: 'alice@acme.test',
      from: 'Alice <alice@acme.test>',
      to: [],
      subject: 'Minutes',
      text: 'to undisclosed recipients',
    });
    for (const replyAll of [false, true]) {
      const response = await app.request(`/openapi/v1/emails/${received.id}/reply`, {
        method: 'POST',
        headers: { ...headers, 'Content-Type': 'application/json' },
        body: JSON.stringify({ text: 'noted', replyAll }),
      });
      expect(response.status, await response.clone().text()).toBe(201);
      const reply = (await response.json()) as { to: unknown[]; cc: unknown[]; subject: string };
      expect(reply).toMatchObject({
        to: [{ address: 'alice@acme.test', name: 'Alice' }],
        cc: [],
        subject: 'Re: Minutes',
      });
    }
  });
});

describe('unsubscribe links across a restart (D-24)', () => {
  it('keep working when a new emulator opens the same store', async () => {
    const { deps, app, headers } = await world();
    const sent = await app.request('http://mail.test/openapi/v1/emails/send', {
      method: 'POST',
      headers: { ...headers, 'Content-Type': 'application/json' },
      body: JSON.stringify({
        from: 'alice@acme.test',
        to: 'carol@ext.test',
        subject: 'News',
        text: 'Leave: {{unsubscribe_url}}',
      }),
    });
    const url = /http:\/\/mail\.test\/unsubscribe\/\S+/.exec(
      ((await sent.json()) as { text: string }).text,
    )?.[0];
    expect(url).toBeDefined();
    // A second app over the same data, as `mailtwin serve --db` builds after a restart.
    const restarted = createApp(
      defaultDeps({ store: deps.store, logError: () => {}, hosts: HOSTS }),
    );
    const page = await restarted.request(url!);
    expect(page.status).toBe(200);
    expect(deps.store.directory.isSuppressed('carol@ext.test')).toBe(true);
  });
});

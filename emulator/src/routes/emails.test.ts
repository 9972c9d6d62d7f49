import { HonoRequest } from 'hono/request';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createApp, createServices, defaultDeps } from '../app.ts';
import { storedEmail } from '../test-helpers/stored-email.ts';

afterEach(() => vi.restoreAllMocks());

function world() {
  const deps = defaultDeps({ logError: () => {} });
  const services = createServices(deps);
  const owner = services.directory.createOwner({ name: 'Acme' });
  const mailbox = services.directory.createMailbox({ address: 'box@acme.test' }).address;
  services.directory.grant(owner.id, mailbox);
  const { secret } = services.directory.createKey({
    ownerId: owner.id,
    name: 'app',
    scope: 'follow-owner',
  });
  const email = storedEmail({
    id: 'em_1',
    mailbox,
    from: { address: 'someone@partner.test', name: 'Some One' },
    to: [{ address: mailbox, name: null }],
    subject: 'Hello',
    receivedAt: '2026-01-01T00:00:00.000Z',
    messageId: '<1@partner.test>',
    text: 'Hello there',
  });
  deps.store.emails.insert(email);
  const app = createApp(deps, services);
  const call = (method: string, body?: unknown) =>
    app.request('/openapi/v1/emails/em_1', {
      method,
      headers: { Authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  const list = (query: string) =>
    app.request(`/openapi/v1/emails?${query}`, { headers: { Authorization: `Bearer ${secret}` } });
  return { store: deps.store, call, list };
}

describe('PATCH and DELETE /emails/{id} (§4.5, §4.6)', () => {
  it('reads the whole email once for a PATCH, with the change, and answers it as GET would', async () => {
    const { store, call } = world();
    // EmailStore.change reads it once (email-store-change.test.ts); nothing reads it again.
    const reads = vi.spyOn(store.emails, 'get');
    const changes = vi.spyOn(store.emails, 'change');
    const patched = await call('PATCH', { read: true, starred: true });
    expect(patched.status).toBe(200);
    expect(changes).toHaveBeenCalledTimes(1);
    expect(reads).not.toHaveBeenCalled();
    const got = await call('GET');
    expect(await patched.text()).toBe(await got.text());
  });

  it('deletes without reading the whole email', async () => {
    const { store, call } = world();
    const reads = vi.spyOn(store.emails, 'get');
    expect((await call('DELETE')).status).toBe(204);
    expect(reads).not.toHaveBeenCalled();
    expect((await call('GET')).status).toBe(404);
  });
});

describe('GET /emails (§4.2)', () => {
  it('parses its query parameters once, for the parameter limits and the route alike', async () => {
    const { list } = world();
    const parses = vi.spyOn(HonoRequest.prototype, 'queries');
    const answer = await list('mailbox=box%40acme.test&q=hello&folder=inbox&limit=10');
    expect(answer.status).toBe(200);
    expect(((await answer.json()) as { emails: { id: string }[] }).emails.map((e) => e.id)).toEqual(
      ['em_1'],
    );
    expect(parses).toHaveBeenCalledTimes(1);
  });

  it('builds its answer once: one buffer at its length, the store page written into it', async () => {
    const { store, list } = world();
    for (let n = 2; n <= 4; n += 1)
      store.emails.insert(
        storedEmail({
          id: `em_${n}`,
          mailbox: 'box@acme.test',
          from: { address: 'someone@partner.test', name: 'Søme Öne' },
          to: [{ address: 'box@acme.test', name: null }],
          subject: `Grüße ${n} ✉`,
          receivedAt: `2026-01-0${n}T00:00:00.000Z`,
          messageId: `<${n}@partner.test>`,
        }),
      );
    const listJson = store.emails.listJson.bind(store.emails);
    let json = '';
    vi.spyOn(store.emails, 'listJson').mockImplementation((...args) => {
      const page = listJson(...args);
      json = page.json;
      return page;
    });
    // Every buffer made (or concatenated) as large as the page's summaries, while answering.
    const large: string[] = [];
    const made = (name: 'from' | 'concat' | 'alloc' | 'allocUnsafe' | 'allocUnsafeSlow') => {
      const original = Buffer[name] as (...args: unknown[]) => Buffer;
      vi.spyOn(Buffer, name).mockImplementation(function (this: unknown, ...args: unknown[]) {
        const buffer = original.apply(this, args);
        if (json !== '' && buffer.length >= Buffer.byteLength(json))
          large.push(`${name} ${buffer.length}`);
        return buffer;
      } as never);
    };
    for (const name of ['from', 'concat', 'alloc', 'allocUnsafe', 'allocUnsafeSlow'] as const)
      made(name);
    const answer = await list('mailbox=box%40acme.test&limit=3');
    vi.restoreAllMocks();
    const body = Buffer.from(await answer.arrayBuffer());
    const parsed = JSON.parse(body.toString()) as { emails: { id: string }[]; nextCursor: string };
    expect(parsed.emails.map((e) => e.id)).toEqual(['em_4', 'em_3', 'em_2']);
    expect(typeof parsed.nextCursor).toBe('string');
    expect(body.toString()).toBe(
      `{"emails":[${json}],${JSON.stringify({ nextCursor: parsed.nextCursor }).slice(1)}`,
    );
    expect(large).toEqual([`allocUnsafe ${body.length}`]);
  });
});

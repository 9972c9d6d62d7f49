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
  it('reads the whole email once for a PATCH, after the change, and answers it as GET would', async () => {
    const { store, call } = world();
    const reads = vi.spyOn(store.emails, 'get');
    const patched = await call('PATCH', { read: true, starred: true });
    expect(patched.status).toBe(200);
    expect(reads).toHaveBeenCalledTimes(1);
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
});

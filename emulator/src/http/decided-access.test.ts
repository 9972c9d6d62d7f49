import { describe, expect, it, vi } from 'vitest';
import { createApp, createServices, defaultDeps } from '../app.ts';

/** An app with one owner granted two mailboxes and a follow-owner key. */
function world() {
  const deps = defaultDeps({ logError: () => {} });
  const services = createServices(deps);
  const owner = services.directory.createOwner({ name: 'Acme' });
  for (const address of ['a@acme.test', 'b@acme.test']) {
    services.directory.createMailbox({ address });
    services.directory.grant(owner.id, address);
  }
  const { key, secret } = services.directory.createKey({
    ownerId: owner.id,
    name: 'k',
    scope: 'follow-owner',
  });
  const app = createApp(deps, services);
  const mailboxes = async () => {
    const response = await app.request('/openapi/v1/mailboxes', {
      headers: { Authorization: `Bearer ${secret}` },
    });
    return response.status === 200
      ? ((await response.json()) as { address: string }[]).map((m) => m.address)
      : response.status;
  };
  const patchRead = async (id: string) =>
    (
      await app.request(`/openapi/v1/emails/${id}`, {
        method: 'PATCH',
        headers: { Authorization: `Bearer ${secret}`, 'Content-Type': 'application/json' },
        body: '{"read":true}',
      })
    ).status;
  return { services, owner, key, secret, mailboxes, patchRead };
}

describe('access reused between requests', () => {
  it('follows a disabled key, a disabled owner and a revoked grant on the very next request', async () => {
    const { services, owner, key, mailboxes } = world();
    expect(await mailboxes()).toEqual(['a@acme.test', 'b@acme.test']);
    expect(await mailboxes()).toEqual(['a@acme.test', 'b@acme.test']);
    services.directory.revoke(owner.id, 'b@acme.test');
    expect(await mailboxes()).toEqual(['a@acme.test']);
    services.directory.setKeyDisabled(key.id, true);
    expect(await mailboxes()).toBe(401);
    services.directory.setKeyDisabled(key.id, false);
    expect(await mailboxes()).toEqual(['a@acme.test']);
    services.deps.store.directory.setOwnerDisabled(owner.id, true);
    expect(await mailboxes()).toBe(401);
  });

  it('follows a grant added, a mailbox removed and a reset on the very next request', async () => {
    const { services, owner, mailboxes } = world();
    expect(await mailboxes()).toEqual(['a@acme.test', 'b@acme.test']);
    services.directory.createMailbox({ address: 'c@acme.test' });
    expect(await mailboxes()).toEqual(['a@acme.test', 'b@acme.test']);
    services.directory.grant(owner.id, 'c@acme.test');
    expect(await mailboxes()).toEqual(['a@acme.test', 'b@acme.test', 'c@acme.test']);
    services.deps.store.db.prepare("DELETE FROM mailboxes WHERE address = 'c@acme.test'").run();
    expect(await mailboxes()).toEqual(['a@acme.test', 'b@acme.test']);
    services.deps.store.reset();
    expect(await mailboxes()).toBe(401);
  });

  it("keeps a key's access across mail stored and changed: the key is looked up once", async () => {
    const { services, mailboxes, patchRead } = world();
    const lookups = vi.spyOn(services.deps.store.directory, 'findKeyByLookup');
    expect(await mailboxes()).toEqual(['a@acme.test', 'b@acme.test']);
    const email = services.inbound.injectJson({
      mailbox: 'a@acme.test',
      from: 'x@partner.test',
      subject: 'hi',
    });
    expect(await mailboxes()).toEqual(['a@acme.test', 'b@acme.test']);
    expect(await patchRead(email.id)).toBe(200);
    expect(await mailboxes()).toEqual(['a@acme.test', 'b@acme.test']);
    expect(lookups).toHaveBeenCalledTimes(1);
  });
});

import { describe, expect, it } from 'vitest';
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
  return { services, owner, key, mailboxes };
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
});

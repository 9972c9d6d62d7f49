/**
 * Which webhooks hear of a mailbox's mail (§2.5, §6.1) is decided once and kept while nothing
 * that decides it is written (issue 31 item 2: every SMTP message listed the webhooks and read
 * each owner's grants). Every write that changes the answer is seen by the next message.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createServices, defaultDeps } from '../app.ts';
import { ControllableClock } from '../clock.ts';

const T0 = Date.parse('2026-11-20T09:00:00.000Z');
const publicResolver = async () => [{ address: '93.184.216.34', family: 4 as const }];

afterEach(() => vi.restoreAllMocks());

function world() {
  const deps = defaultDeps({
    connector: async () => ({ status: 204 }),
    resolver: publicResolver,
    clock: new ControllableClock(() => T0),
    logError: () => {},
  });
  const services = createServices(deps);
  const owner = services.directory.createOwner({ name: 'Acme' });
  for (const address of ['alice@acme.test', 'bob@acme.test', 'carol@beta.test']) {
    services.directory.createMailbox({ address });
    services.directory.grant(owner.id, address);
  }
  const hook = (
    path: string,
    scope: 'follow-owner' | 'one-domain' | 'selected-mailbox',
    more = {},
  ) =>
    services.webhooks.create({
      ownerId: owner.id,
      url: `https://hooks.example.com/${path}`,
      scope,
      ...more,
    }).webhook.id;
  let sent = 0;
  const deliveriesOf = deps.store.db.prepare(
    'SELECT webhook_id, status FROM deliveries WHERE email_id = ?',
  );
  /** `webhook id:status` of each delivery a new message to `mailbox` got, sorted. */
  const deliver = (mailbox: string) => {
    sent += 1;
    const email = services.inbound.injectJson({
      mailbox,
      from: 'x@partner.test',
      subject: `m${sent}`,
    });
    return (deliveriesOf.all(email.id) as { webhook_id: string; status: string }[])
      .map((row) => `${row.webhook_id}:${row.status}`)
      .sort();
  };
  /** What `deliver` answers when these webhooks hear of it, pending. */
  const pending = (...ids: string[]) => ids.map((id) => `${id}:pending`).sort();
  return { deps, services, owner, hook, deliver, pending };
}

describe('the webhooks that hear of a mailbox', () => {
  it('are listed once for many messages to the same mailboxes', () => {
    const { deps, hook, deliver, pending } = world();
    const all = hook('all', 'follow-owner');
    const listed = vi.spyOn(deps.store.webhooks, 'list');
    for (let i = 0; i < 5; i += 1) {
      expect(deliver('alice@acme.test')).toEqual(pending(all));
      expect(deliver('carol@beta.test')).toEqual(pending(all));
    }
    // Once for each mailbox; the messages' own writes (emails, deliveries) change nothing.
    expect(listed).toHaveBeenCalledTimes(2);
  });

  it('follow each write that changes them, from the next message on', () => {
    const { deps, services, owner, hook, deliver, pending } = world();
    const all = hook('all', 'follow-owner');
    expect(deliver('alice@acme.test')).toEqual(pending(all));

    const acme = hook('acme', 'one-domain', { domain: 'acme.test' });
    expect(deliver('alice@acme.test')).toEqual(pending(all, acme));
    expect(deliver('carol@beta.test')).toEqual(pending(all));

    const bob = hook('bob', 'selected-mailbox', { mailboxes: ['bob@acme.test'] });
    expect(deliver('bob@acme.test')).toEqual(pending(all, acme, bob));
    expect(deliver('alice@acme.test')).toEqual(pending(all, acme));

    deps.store.webhooks.setStatus(acme, 'paused'); // D-35: recorded, not sent
    expect(deliver('alice@acme.test')).toEqual([`${acme}:paused`, `${all}:pending`].sort());
    services.webhooks.enable(acme);
    expect(deliver('alice@acme.test')).toEqual(pending(all, acme));

    services.directory.revoke(owner.id, 'alice@acme.test'); // §2.5: access follows the owner's
    expect(deliver('alice@acme.test')).toEqual([]);
    services.directory.grant(owner.id, 'alice@acme.test');
    expect(deliver('alice@acme.test')).toEqual(pending(all, acme));

    services.webhooks.delete(acme);
    expect(deliver('alice@acme.test')).toEqual(pending(all));

    services.directory.setOwnerDisabled(owner.id, true);
    expect(deliver('alice@acme.test')).toEqual([]);
    services.directory.setOwnerDisabled(owner.id, false);
    expect(deliver('alice@acme.test')).toEqual(pending(all));

    // Written by hand, outside every store method: still seen.
    deps.store.db.prepare('DELETE FROM webhook_mailboxes WHERE webhook_id = ?').run(bob);
    expect(deliver('bob@acme.test')).toEqual(pending(all));
  });

  it('forget a webhook whose creation was rolled back', () => {
    const { deps, services, hook, deliver, pending } = world();
    const all = hook('all', 'follow-owner');
    expect(deliver('alice@acme.test')).toEqual(pending(all));
    expect(() =>
      deps.store.transaction(() => {
        const undone = hook('undone', 'follow-owner');
        // Decided inside the transaction, with the new webhook.
        expect(deliver('alice@acme.test')).toEqual(pending(all, undone));
        throw new Error('roll back');
      }),
    ).toThrow('roll back');
    expect(services.webhooks.list().map((w) => w.id)).toEqual([all]);
    expect(deliver('alice@acme.test')).toEqual(pending(all));
    // A later webhook is seen too: the rolled-back mark is never given again.
    const later = hook('later', 'follow-owner');
    expect(deliver('alice@acme.test')).toEqual(pending(all, later));
  });

  it("do not change with a webhook's failure count", () => {
    const { deps, hook, deliver, pending } = world();
    const all = hook('all', 'follow-owner');
    deliver('alice@acme.test');
    const listed = vi.spyOn(deps.store.webhooks, 'list');
    deps.store.webhooks.setConsecutiveFailures(all, 3);
    expect(deliver('alice@acme.test')).toEqual(pending(all));
    expect(listed).not.toHaveBeenCalled();
  });
});

/**
 * WebhookStore.deliveriesAfter (issue 31 item 2): SMTP's group commit stores each message in a
 * savepoint of one transaction, and a savepoint copies every page it writes first; a message's
 * delivery rows (one per webhook that hears of it, paused ones included) were written in its
 * savepoint. They are written after the group's messages instead, in the same transaction.
 */
import { describe, expect, it } from 'vitest';
import { createServices, defaultDeps } from '../app.ts';
import type { Delivery } from './webhook-store.ts';

function world() {
  const deps = defaultDeps({ logError: () => {}, connector: async () => ({ status: 200 }) });
  const services = createServices(deps);
  services.directory.createMailbox({ address: 'alice@acme.test' });
  const { store } = deps;
  const deliver = (subject: string) =>
    services.inbound.injectJson({
      mailbox: 'alice@acme.test',
      from: 'jin@northwind.test',
      subject,
    });
  // A webhook of another owner, who holds no grant for alice: it hears of none of her mail, so
  // no delivery is recorded but the ones a test records itself.
  const other = services.directory.createOwner({ name: 'Other' });
  const webhookId = services.webhooks.create({
    ownerId: other.id,
    url: 'https://hooks.example.com/mail',
    scope: 'follow-owner',
  }).webhook.id;
  const delivery = (id: string, emailId: string): Delivery => ({
    id,
    webhookId,
    event: 'email.received',
    emailId,
    status: 'paused',
    attempts: 0,
    nextAttemptAt: null,
    createdAt: '2026-11-20T09:00:00.000Z',
  });
  const rows = () =>
    store.db.prepare('SELECT id, email_id AS emailId FROM deliveries ORDER BY rowid').all() as {
      id: string;
      emailId: string;
    }[];
  return { store, deliver, delivery, rows };
}

describe('the delivery rows recorded in a group of messages', () => {
  it('are written once the work has returned, in the order they were recorded', () => {
    const { store, deliver, delivery, rows } = world();
    const email = deliver('first');
    const seen: number[] = [];
    store.transaction(() =>
      store.webhooks.deliveriesAfter(() => {
        store.webhooks.addDelivery(delivery('dlv_b', email.id), new Uint8Array(0));
        store.webhooks.addDelivery(delivery('dlv_a', email.id), new Uint8Array(0));
        seen.push(rows().length);
      }),
    );
    expect(seen).toEqual([0]);
    expect(rows().map((r) => r.id)).toEqual(['dlv_b', 'dlv_a']);
  });

  it('leave none for a message whose savepoint was rolled back, and keep the others', () => {
    const { store, deliver, delivery, rows } = world();
    const outcome = store.transaction(() =>
      store.webhooks.deliveriesAfter(() => {
        const kept = store.transaction(() => {
          const email = deliver('kept');
          store.webhooks.addDelivery(delivery('dlv_kept', email.id), new Uint8Array(0));
          return email;
        });
        try {
          store.transaction(() => {
            const email = deliver('dropped');
            store.webhooks.addDelivery(delivery('dlv_dropped', email.id), new Uint8Array(0));
            throw new Error('refused after its delivery was recorded');
          });
        } catch {
          // the savepoint is rolled back: the email is gone
        }
        return kept;
      }),
    );
    expect(rows()).toEqual([{ id: 'dlv_kept', emailId: outcome.id }]);
  });

  it('are refused outside a transaction, and written at once outside deliveriesAfter', () => {
    const { store, deliver, delivery, rows } = world();
    expect(() => store.webhooks.deliveriesAfter(() => 1)).toThrow(/outside a transaction/);
    const email = deliver('alone');
    store.webhooks.addDelivery(delivery('dlv_now', email.id), new Uint8Array(0));
    expect(rows().map((r) => r.id)).toEqual(['dlv_now']);
  });
});

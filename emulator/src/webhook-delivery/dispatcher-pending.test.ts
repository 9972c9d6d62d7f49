/**
 * What the dispatcher and the webhook store do for a message no webhook will be sent (issue 31
 * item 2): the demo's sink webhook, refused on loopback, is paused after 15 failures (D-35), and
 * from then on every SMTP message recorded a paused delivery with the detail's JSON and ran a
 * query for due deliveries that could find none.
 */
import type Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { createServices, defaultDeps } from '../app.ts';
import { ControllableClock } from '../clock.ts';
import { emailDetail } from '../domain/email-view.ts';
import type { Store } from '../store/store.ts';

const T0 = Date.parse('2026-11-20T09:00:00.000Z');

/** Counts the runs of the statement that lists due deliveries (WebhookStore.due). */
function countDueReads(store: Store): () => number {
  const statement = Object.getPrototypeOf(store.db.prepare('SELECT 1')) as Database.Statement;
  const all = statement.all;
  let reads = 0;
  statement.all = function (this: Database.Statement, ...params: unknown[]) {
    if (this.source.includes('next_attempt_at <= ?')) reads += 1;
    return all.apply(this, params as []);
  } as typeof all;
  return () => reads;
}

function world() {
  let now = T0;
  const sent: string[] = [];
  const deps = defaultDeps({
    clock: new ControllableClock(() => now),
    resolver: async () => [{ address: '93.184.216.34', family: 4 as const }],
    connector: async (request) => {
      sent.push(String(request.url));
      return { status: 500 };
    },
    logError: () => {},
  });
  const services = createServices(deps);
  const owner = services.directory.createOwner({ name: 'Acme' });
  services.directory.createMailbox({ address: 'alice@acme.test' });
  services.directory.grant(owner.id, 'alice@acme.test');
  const webhook = services.webhooks.create({
    ownerId: owner.id,
    url: 'https://hooks.example.com/mail',
    scope: 'follow-owner',
  }).webhook;
  const deliver = (subject: string) =>
    services.inbound.injectJson({
      mailbox: 'alice@acme.test',
      from: 'jin@northwind.test',
      subject,
      text: 'Hello',
    });
  const deliveryOf = (emailId: string) =>
    deps.store.webhooks.recentDeliveries(webhook.id, 100).find((d) => d.emailId === emailId)!;
  const turn = () => new Promise((resolve) => setImmediate(resolve));
  return {
    deps,
    services,
    webhook,
    deliver,
    deliveryOf,
    turn,
    sent,
    move: (ms: number) => (now += ms),
  };
}

describe('deliveries no webhook will be sent', () => {
  it('keep no data and run no query for due deliveries while a paused webhook hears of mail', async () => {
    const { deps, services, webhook, deliver, deliveryOf, turn, sent } = world();
    deps.store.webhooks.setStatus(webhook.id, 'paused', 15);
    await services.dispatcher.runDue();
    const dueReads = countDueReads(deps.store);
    for (let i = 0; i < 5; i += 1) {
      const email = deliver(`paused ${i}`);
      const delivery = deliveryOf(email.id);
      expect(delivery).toMatchObject({ status: 'paused', nextAttemptAt: null, attempts: 0 });
      // D-35: never sent, nor replayed when re-enabled: nothing to keep.
      expect(deps.store.webhooks.dataOf(delivery.id)?.length).toBe(0);
      await turn();
    }
    await turn();
    expect(dueReads()).toBe(0);
    expect(sent).toEqual([]);
  });

  it('are read again once a delivery is pending: at once, then when its retry falls due', async () => {
    const { deps, services, webhook, deliver, deliveryOf, turn, sent, move } = world();
    const dueReads = countDueReads(deps.store);
    const email = deliver('active');
    // An active webhook's delivery keeps the detail's bytes, as before.
    const delivery = deliveryOf(email.id);
    expect(deps.store.webhooks.dataOf(delivery.id)?.toString()).toBe(
      JSON.stringify(emailDetail(email)),
    );
    await turn();
    await services.dispatcher.runDue();
    expect(sent).toHaveLength(1); // answered 500: retried in a minute (D-34)
    expect(deliveryOf(email.id)).toMatchObject({ status: 'pending', attempts: 1 });
    const reads = dueReads();
    expect(reads).toBeGreaterThan(0);
    // Nothing due before the retry's minute: no query, however often asked.
    for (let i = 0; i < 5; i += 1) await services.dispatcher.runDue();
    move(59_000);
    await services.dispatcher.runDue();
    expect(dueReads()).toBe(reads);
    expect(sent).toHaveLength(1);
    move(1_000);
    await services.dispatcher.runDue();
    expect(dueReads()).toBeGreaterThan(reads);
    expect(sent).toHaveLength(2);
    expect(webhook.id).toBe(delivery.webhookId);
  });
});

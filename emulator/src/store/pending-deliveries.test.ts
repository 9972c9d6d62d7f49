/**
 * Migration 016: the index the dispatcher finds due deliveries by holds pending deliveries
 * only (issue 31 item 2). A delivery recorded for a paused webhook (D-35) wrote an entry of the
 * old index (status, next_attempt_at) that no query read, one more page in every SMTP
 * message's savepoint. Counted: the entries of the index SQLite's plan for `due` reads
 * (ANALYZE's first figure), never time.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { migrate, openDatabase } from './database.ts';
import { Store } from './store.ts';
import type { Delivery, DeliveryStatus } from './webhook-store.ts';

const T0 = Date.parse('2026-03-01T00:00:00.000Z');
const at = (minutes: number) => new Date(T0 + minutes * 60_000).toISOString();

function storeWithWebhook(): Store {
  const store = new Store(openDatabase());
  store.db.exec(`INSERT INTO owners (id, name, created_at) VALUES ('own_1', 'Acme', '${at(0)}');
    INSERT INTO webhooks (id, owner_id, url, scope, secret, status, created_at)
    VALUES ('wh_1', 'own_1', 'https://hooks.example/in', 'follow-owner', 's', 'active', '${at(0)}')`);
  return store;
}

function delivery(id: string, status: DeliveryStatus, next: number | null): Delivery {
  return {
    id,
    webhookId: 'wh_1',
    event: 'email.received',
    emailId: `em_${id}`,
    status,
    attempts: 0,
    nextAttemptAt: next === null ? null : at(next),
    createdAt: at(0),
  };
}

const DUE_SQL = `SELECT id FROM deliveries WHERE status = 'pending' AND next_attempt_at <= ?
  ORDER BY next_attempt_at, id LIMIT ? + 0`;

/** The index SQLite's plan for the due query reads, and how many entries ANALYZE counts in it. */
function dueIndex(store: Store): { name: string; entries: number } {
  const plan = store.db.prepare(`EXPLAIN QUERY PLAN ${DUE_SQL}`).all(at(0), 32) as {
    detail: string;
  }[];
  const name = plan.map((p) => /USING (?:COVERING )?INDEX (\w+)/.exec(p.detail)?.[1]).find(Boolean);
  if (name === undefined) throw new Error(`the due query reads no index: ${JSON.stringify(plan)}`);
  store.db.exec(`ANALYZE ${name}`);
  const stat = store.db.prepare('SELECT stat FROM sqlite_stat1 WHERE idx = ?').pluck().get(name);
  return { name, entries: Number(String(stat ?? '0').split(' ')[0]) };
}

describe('the index of pending deliveries (migration 016)', () => {
  it('holds an entry for each pending delivery and none for paused, succeeded or failed ones', () => {
    const store = storeWithWebhook();
    const rows = [
      delivery('p1', 'pending', 1),
      delivery('p2', 'pending', 5),
      delivery('z1', 'paused', null),
      delivery('z2', 'paused', null),
      delivery('z3', 'paused', null),
      delivery('s1', 'succeeded', null),
      delivery('f1', 'failed', null),
    ];
    for (const row of rows) store.webhooks.addDelivery(row, new Uint8Array(0));
    expect(dueIndex(store)).toEqual({ name: 'deliveries_pending', entries: 2 });
    // An attempt that ends a delivery takes its entry out; one that retries keeps it.
    store.webhooks.recordAttempt(
      'p1',
      { number: 1, at: at(1), statusCode: 200, error: null, latencyMs: 3 },
      { status: 'succeeded', nextAttemptAt: null },
    );
    expect(dueIndex(store).entries).toBe(1);
    expect(store.webhooks.due(at(10), 32).map((d) => d.id)).toEqual(['p2']);
  });

  it('answers due and nextDue as the table says, for any deliveries and attempts', () => {
    const op = fc.oneof(
      fc.record({
        kind: fc.constant('add' as const),
        status: fc.constantFrom<DeliveryStatus>('pending', 'paused', 'succeeded', 'failed'),
        next: fc.integer({ min: 0, max: 30 }),
      }),
      fc.record({
        kind: fc.constant('attempt' as const),
        pick: fc.nat(),
        status: fc.constantFrom<DeliveryStatus>('pending', 'succeeded', 'failed'),
        next: fc.integer({ min: 0, max: 30 }),
      }),
      fc.record({ kind: fc.constant('pause' as const) }),
    );
    fc.assert(
      fc.property(
        fc.array(op, { maxLength: 40 }),
        fc.integer({ min: 0, max: 30 }),
        fc.integer({ min: 1, max: 6 }),
        (ops, now, limit) => {
          const store = storeWithWebhook();
          const ids: string[] = [];
          ops.forEach((o, i) => {
            if (o.kind === 'add') {
              const id = `d${String(i).padStart(2, '0')}${'xyz'[i % 3]}`;
              ids.push(id);
              const next = o.status === 'pending' ? o.next : null;
              store.webhooks.addDelivery(delivery(id, o.status, next), new Uint8Array(0));
            } else if (o.kind === 'attempt' && ids.length > 0) {
              store.webhooks.recordAttempt(
                ids[o.pick % ids.length]!,
                { number: i, at: at(0), statusCode: 500, error: null, latencyMs: 1 },
                { status: o.status, nextAttemptAt: o.status === 'pending' ? at(o.next) : null },
              );
            } else if (o.kind === 'pause') {
              store.webhooks.pausePending('wh_1');
            }
          });
          const rows = store.db
            .prepare('SELECT id, status, next_attempt_at AS next FROM deliveries NOT INDEXED')
            .all() as { id: string; status: string; next: string | null }[];
          const pending = rows
            .filter((r) => r.status === 'pending' && r.next !== null)
            .sort((a, b) =>
              a.next! < b.next! ? -1 : a.next! > b.next! ? 1 : a.id < b.id ? -1 : 1,
            );
          const due = pending.filter((r) => r.next! <= at(now)).slice(0, limit);
          expect(store.webhooks.due(at(now), limit).map((d) => d.id)).toEqual(due.map((r) => r.id));
          expect(store.webhooks.nextDue()).toBe(pending[0]?.next ?? undefined);
        },
      ),
      { seed: 16, numRuns: 150 },
    );
  });

  it('replaces the index of every delivery in a file written before it, rows kept', () => {
    const store = storeWithWebhook();
    // The file as migration 015 left it: the index of every delivery by status.
    store.db.exec(`DROP INDEX deliveries_pending;
      CREATE INDEX deliveries_due ON deliveries (status, next_attempt_at);
      DELETE FROM schema_migrations WHERE version = 16`);
    store.webhooks.addDelivery(delivery('p1', 'pending', 2), new Uint8Array(0));
    store.webhooks.addDelivery(delivery('z1', 'paused', null), new Uint8Array(0));
    expect(migrate(store.db)).toEqual(['016_pending_deliveries.sql']);
    const indexes = store.db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'deliveries'")
      .pluck()
      .all();
    expect(indexes).toContain('deliveries_pending');
    expect(indexes).not.toContain('deliveries_due');
    expect(store.db.prepare('SELECT count(*) FROM deliveries').pluck().get()).toBe(2);
    expect(dueIndex(store)).toEqual({ name: 'deliveries_pending', entries: 1 });
  });
});

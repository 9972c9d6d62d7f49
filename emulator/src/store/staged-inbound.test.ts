/**
 * Bytes written ahead of what names them, in parts (migration 012, issue 27 item 1): a large
 * raw message's bytes (EmailStore.stageRaw) and the data of a webhook event
 * (WebhookStore.openPayload, payloadOf). Nothing staged is seen until named; what nothing names
 * is dropped when the store opens, and goes with what named it. A delivery of large data keeps
 * it apart from its own row, so recording an attempt does not write the data again.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from './store.ts';
import { PART_BYTES, partsOf } from './parts.ts';
import type { Delivery } from './webhook-store.ts';
import { storedEmail } from '../test-helpers/stored-email.ts';

const scratch = mkdtempSync(join(tmpdir(), 'mailtwin-staged-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

let files = 0;
const file = () => join(scratch, `db-${(files += 1)}.sqlite`);

/** A mailbox, and a webhook of an owner, to hang emails and deliveries on. */
function world(store: Store): void {
  store.db.exec(`INSERT INTO domains (name) VALUES ('acme.test');
    INSERT INTO mailboxes (address, domain) VALUES ('alice@acme.test', 'acme.test');
    INSERT INTO owners (id, name, created_at) VALUES ('own_1', 'Acme', '2026-01-01T00:00:00.000Z')`);
  for (const id of ['wh_1', 'wh_2'])
    store.webhooks.create(
      {
        id,
        ownerId: 'own_1',
        url: 'https://hooks.example/in',
        scope: 'follow-owner',
        domain: null,
        mailboxes: [],
        status: 'active',
        consecutiveFailures: 0,
        createdAt: '2026-01-01T00:00:00.000Z',
      },
      'secret',
    );
}

const email = (id: string) =>
  storedEmail({
    id,
    mailbox: 'alice@acme.test',
    from: { address: 'bob@partner.test', name: null },
    to: [],
    subject: 'Raw',
    receivedAt: '2026-01-01T00:00:00.000Z',
    messageId: `<${id}@partner.test>`,
  });

const delivery = (id: string, webhookId = 'wh_1'): Delivery => ({
  id,
  webhookId,
  event: 'email.received',
  emailId: null,
  status: 'pending',
  attempts: 0,
  nextAttemptAt: '2026-01-01T00:00:00.000Z',
  createdAt: '2026-01-01T00:00:00.000Z',
});

const count = (store: Store, table: string) =>
  store.db.prepare(`SELECT count(*) FROM ${table}`).pluck().get() as number;

/** 300 kB of data that names its own position, so parts out of order would show. */
const data = (seed: string) =>
  Buffer.from(Array.from({ length: 30_000 }, (_, i) => `${seed}${i}`.padEnd(10, '.')).join(''));

function stageRaw(store: Store, emailId: string, bytes: Buffer) {
  return partsOf(bytes).map((part, i) => store.emails.stageRaw(emailId, i, part))[0];
}

describe('staged bytes (migration 012)', () => {
  it('drops raw parts and webhook data that nothing names when the store opens', () => {
    const path = file();
    const store = openStore(path);
    world(store);
    // Named: an email stored with its staged bytes, a delivery of staged data.
    store.emails.insert(email('em_kept'), [], stageRaw(store, 'em_kept', data('k')));
    const kept = store.webhooks.stagePayload(data('p'));
    store.webhooks.addDelivery(delivery('dlv_kept'), kept);
    // Staged, never named: the process stopped in between.
    stageRaw(store, 'em_lost', data('l'));
    store.webhooks.stagePayload(data('q'));
    store.close();
    const again = openStore(path);
    expect(again.db.prepare('SELECT DISTINCT email_id FROM email_raw').pluck().all()).toEqual([
      'em_kept',
    ]);
    expect(count(again, 'delivery_payloads')).toBe(1);
    expect(again.webhooks.dataOf('dlv_kept')?.equals(data('p'))).toBe(true);
    again.close();
  });

  it('keeps staged bytes seen by nothing until named, and drops them when unstaged', () => {
    const store = openStore();
    world(store);
    const raw = stageRaw(store, 'em_1', data('r'));
    expect(store.emails.get('em_1')).toBeUndefined();
    store.emails.unstageRaw('em_1');
    expect(count(store, 'email_raw')).toBe(0);
    // Unstaging what an email or a delivery names drops nothing.
    store.emails.insert(email('em_2'), [], stageRaw(store, 'em_2', data('s')));
    store.emails.unstageRaw('em_2');
    const payload = store.webhooks.stagePayload(data('t'));
    store.webhooks.addDelivery(delivery('dlv_1'), payload);
    store.webhooks.unstagePayload(payload);
    expect(count(store, 'email_raw')).toBe(partsOf(data('s')).length);
    expect(store.webhooks.dataOf('dlv_1')?.equals(data('t'))).toBe(true);
    const unnamed = store.webhooks.stagePayload(data('u'));
    store.webhooks.unstagePayload(unnamed);
    expect(count(store, 'delivery_payloads')).toBe(1);
    expect(count(store, 'delivery_payload_parts')).toBe(partsOf(data('t')).length);
    expect(() => store.emails.insert(email('em_3'), [], raw)).toThrow(/staged for em_1/);
    store.close();
  });

  it('deletes raw parts with their email, and webhook data with its last delivery', () => {
    const store = openStore();
    world(store);
    store.emails.insert(email('em_1'), [], stageRaw(store, 'em_1', data('a')));
    store.emails.insert(email('em_2'), [], stageRaw(store, 'em_2', data('b')));
    store.emails.delete('em_1');
    expect(store.db.prepare('SELECT DISTINCT email_id FROM email_raw').pluck().all()).toEqual([
      'em_2',
    ]);
    // One event heard by two webhooks: its data written once, shared by both deliveries.
    const shared = store.webhooks.payloadOf(data('c'));
    expect('payload' in shared).toBe(true);
    store.webhooks.addDelivery(delivery('dlv_1', 'wh_1'), shared);
    store.webhooks.addDelivery(delivery('dlv_2', 'wh_2'), shared);
    expect(count(store, 'delivery_payloads')).toBe(1);
    store.webhooks.delete('wh_1'); // its deliveries go by cascade
    expect(store.webhooks.dataOf('dlv_2')?.equals(data('c'))).toBe(true);
    store.webhooks.delete('wh_2');
    expect(count(store, 'delivery_payloads')).toBe(0);
    expect(count(store, 'delivery_payload_parts')).toBe(0);
    // Small data stays in the delivery's own row.
    expect(store.webhooks.payloadOf(Buffer.from('{"id":"em_1"}'))).toBeInstanceOf(Buffer);
    // A reset drops everything named.
    store.webhooks.create(
      {
        id: 'wh_3',
        ownerId: 'own_1',
        url: 'https://hooks.example/in',
        scope: 'follow-owner',
        domain: null,
        mailboxes: [],
        status: 'active',
        consecutiveFailures: 0,
        createdAt: '2026-01-01T00:00:00.000Z',
      },
      'secret',
    );
    store.webhooks.addDelivery(delivery('dlv_3', 'wh_3'), store.webhooks.payloadOf(data('d')));
    store.reset();
    for (const table of ['email_raw', 'delivery_payloads', 'delivery_payload_parts'])
      expect(count(store, table), table).toBe(0);
    store.close();
  });

  it('records an attempt of a delivery of 1 MB without writing its data again', () => {
    const store = openStore(file());
    world(store);
    const big = Buffer.concat(Array.from({ length: 4 }, (_, i) => data(`m${i}`))); // 1.2 MB
    store.webhooks.addDelivery(delivery('dlv_1'), store.webhooks.payloadOf(big));
    // Pages written to the write-ahead log by the attempt alone.
    store.db.pragma('wal_autocheckpoint = 0');
    store.db.pragma('wal_checkpoint(TRUNCATE)');
    store.webhooks.recordAttempt(
      'dlv_1',
      { number: 1, at: '2026-01-01T00:00:01.000Z', statusCode: 200, error: null, latencyMs: 3 },
      { status: 'succeeded', nextAttemptAt: null },
    );
    const [{ log }] = store.db.pragma('wal_checkpoint(PASSIVE)') as [{ log: number }];
    const pageSize = store.db.pragma('page_size', { simple: true }) as number;
    // A few pages (the delivery's row, the attempt, their indexes), not the 1.2 MB again.
    expect(log * pageSize).toBeLessThan(big.length / 20);
    expect(store.webhooks.dataOf('dlv_1')?.equals(big)).toBe(true);
    expect(partsOf(big).every((part) => part.length <= PART_BYTES)).toBe(true);
    store.close();
  });
});

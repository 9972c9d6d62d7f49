import type Database from 'better-sqlite3';
import type { Scope } from '../domain/types.ts';
import { Statements } from './statements.ts';
import { partsOf } from './parts.ts';
import type { WatchedTable } from './table-writes.ts';

export type WebhookStatus = 'active' | 'paused';
export type DeliveryStatus = 'pending' | 'succeeded' | 'failed' | 'paused';

export interface Webhook {
  id: string;
  ownerId: string;
  url: string;
  scope: Scope;
  domain: string | null;
  mailboxes: string[];
  status: WebhookStatus;
  consecutiveFailures: number;
  createdAt: string;
}

/**
 * One event to deliver to one webhook. Its `data` is kept apart, as the UTF-8 bytes of its JSON
 * (`dataOf`): the detail of a large email is megabytes, read only when an attempt sends it.
 */
export interface Delivery {
  id: string;
  webhookId: string;
  event: string;
  emailId: string | null;
  status: DeliveryStatus;
  attempts: number;
  nextAttemptAt: string | null;
  createdAt: string;
}

/**
 * The data of an event written apart from its deliveries, once, in parts (`openPayload`,
 * `stagePayloadPart`; migration 012), for `addDelivery` to name.
 */
export interface StagedPayload {
  readonly payload: number;
}

/** A delivery's data: the UTF-8 bytes of its JSON, or those bytes written apart already. */
export type DeliveryData = Uint8Array | StagedPayload;

/**
 * Data larger than this is written apart from its deliveries (`payloadOf`): once for every
 * webhook that hears of the event, and never again when an attempt is recorded (an UPDATE of a
 * row writes the whole row, megabytes of data included: about 25 ms of the event loop for the
 * detail of a 4.5 MB email, issue 27 item 1). Smaller data stays in the delivery's row.
 */
export const PAYLOAD_APART_BYTES = 64 * 1024;

/** Bytes as a Buffer over the same memory: binding them copies nothing more. */
const bytesOf = (data: Uint8Array): Buffer =>
  Buffer.isBuffer(data) ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength);

const EMPTY = Buffer.alloc(0);

export interface Attempt {
  number: number;
  at: string;
  statusCode: number | null;
  error: string | null;
  latencyMs: number;
}

interface WebhookRow {
  id: string;
  owner_id: string;
  url: string;
  scope: Scope;
  scope_domain: string | null;
  secret: string;
  status: WebhookStatus;
  consecutive_failures: number;
  created_at: string;
}

interface DeliveryRow {
  id: string;
  webhook_id: string;
  event: string;
  email_id: string | null;
  status: DeliveryStatus;
  attempts: number;
  next_attempt_at: string | null;
  created_at: string;
}

const toDelivery = (r: DeliveryRow): Delivery => ({
  id: r.id,
  webhookId: r.webhook_id,
  event: r.event,
  emailId: r.email_id,
  status: r.status,
  attempts: r.attempts,
  nextAttemptAt: r.next_attempt_at,
  createdAt: r.created_at,
});

/**
 * What decides which webhooks hear of a mailbox's mail (§2.5, §6.1): the webhooks (their owner,
 * scope and status, not their failure count), the mailboxes they select, their owners (disabled
 * or not), the owners' grants and the granted mailboxes (their domain). Store.webhookAudience
 * watches these tables.
 */
export const WEBHOOK_AUDIENCE_TABLES: readonly WatchedTable[] = [
  { table: 'webhooks', updatedColumns: ['id', 'owner_id', 'scope', 'scope_domain', 'status'] },
  { table: 'webhook_mailboxes' },
  { table: 'owners', updatedColumns: ['id', 'disabled'] },
  { table: 'grants' },
  { table: 'mailboxes' },
];

/** A delivery's columns but its data: listing deliveries never reads their payloads. */
const DELIVERY_COLUMNS = 'id, webhook_id, event, email_id, status, attempts, next_attempt_at, created_at';

/**
 * A bound LIMIT that keeps its statement's plan (as page-query.ts's): a bare `LIMIT ?` is read
 * by SQLite's planner, so better-sqlite3 binding it on every run made SQLite prepare the
 * statement again each time; `due` runs after every message that reaches a webhook's mailbox.
 */
const LIMIT = 'LIMIT ? + 0';

/** Webhooks, their deliveries and every attempt, for the dispatcher and the dashboard's history. */
export class WebhookStore {
  private readonly sql: Statements;
  /**
   * No pending delivery is due before this time (none is pending at all: null; not known yet:
   * undefined), so `due` and `mayHaveDue` need no query while it is later than the clock
   * (issue 31 item 2: `due` ran after every group of SMTP messages, nothing due but a paused
   * webhook's deliveries). Kept true by every write that makes a delivery pending (`addDelivery`,
   * `recordAttempt`), which lowers it; writes that end pending deliveries leave it lower than it
   * could be, which costs a query, never a delivery. Raised again only from the table, outside a
   * transaction (a rolled back one could bring back rows it deleted).
   */
  private pendingFrom: string | null | undefined;

  /** The deliveries `addDelivery` leaves to `deliveriesAfter`, while its work runs. */
  private later: { delivery: Delivery; data: DeliveryData }[] | undefined;

  constructor(private readonly db: Database.Database) {
    this.sql = new Statements(db);
    // Data staged for deliveries never recorded (the process stopped in between): seen by nothing.
    db.prepare(
      `DELETE FROM delivery_payloads
       WHERE NOT EXISTS (SELECT 1 FROM deliveries WHERE payload_id = delivery_payloads.id)`,
    ).run();
  }

  create(webhook: Webhook, secret: string): Webhook {
    this.db.transaction(() => {
      this.sql
        .get(
          `INSERT INTO webhooks (id, owner_id, url, scope, scope_domain, secret, status, consecutive_failures, created_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(webhook.id, webhook.ownerId, webhook.url, webhook.scope, webhook.domain, secret, webhook.status, webhook.consecutiveFailures, webhook.createdAt);
      const add = this.sql.get('INSERT INTO webhook_mailboxes (webhook_id, mailbox) VALUES (?, ?)');
      for (const mailbox of webhook.mailboxes) add.run(webhook.id, mailbox);
    })();
    return webhook;
  }

  get(id: string): Webhook | undefined {
    const row = this.sql.get('SELECT * FROM webhooks WHERE id = ?').get(id) as WebhookRow | undefined;
    return row && this.toWebhook(row);
  }

  /** The signing secret, for the signer only. */
  secretOf(id: string): string | undefined {
    return (this.sql.get('SELECT secret FROM webhooks WHERE id = ?').get(id) as { secret: string } | undefined)?.secret;
  }

  list(): Webhook[] {
    return (this.sql.get('SELECT * FROM webhooks ORDER BY created_at, id').all() as WebhookRow[]).map((r) => this.toWebhook(r));
  }

  delete(id: string): boolean {
    return this.sql.get('DELETE FROM webhooks WHERE id = ?').run(id).changes > 0;
  }

  setStatus(id: string, status: WebhookStatus, consecutiveFailures?: number): void {
    if (consecutiveFailures === undefined) {
      this.sql.get('UPDATE webhooks SET status = ? WHERE id = ?').run(status, id);
    } else {
      this.sql.get('UPDATE webhooks SET status = ?, consecutive_failures = ? WHERE id = ?').run(status, consecutiveFailures, id);
    }
  }

  setConsecutiveFailures(id: string, count: number): void {
    this.sql.get('UPDATE webhooks SET consecutive_failures = ? WHERE id = ?').run(count, id);
  }

  /**
   * Begins data written apart from its deliveries (migration 012), `size` bytes, its parts
   * written by `stagePayloadPart`: a caller storing a large email writes them in turns of the
   * event loop before the email and its deliveries (issue 27 item 1). Seen by nothing until
   * `addDelivery` records a delivery naming them; `unstagePayload` drops them if none will.
   */
  openPayload(size: number): StagedPayload {
    const { lastInsertRowid } = this.sql
      .get('INSERT INTO delivery_payloads (size) VALUES (?)')
      .run(size);
    return { payload: Number(lastInsertRowid) };
  }

  /** Writes part `part` (0, 1, ... in order; store/parts.ts) of staged data. */
  stagePayloadPart(staged: StagedPayload, part: number, bytes: Uint8Array): void {
    this.sql
      .get('INSERT INTO delivery_payload_parts (payload_id, part, data) VALUES (?, ?, ?)')
      .run(staged.payload, part, bytesOf(bytes));
  }

  /** `openPayload` and every part, at once (in the caller's transaction). */
  stagePayload(dataJson: Uint8Array): StagedPayload {
    const staged = this.openPayload(dataJson.byteLength);
    partsOf(dataJson).forEach((bytes, part) => this.stagePayloadPart(staged, part, bytes));
    return staged;
  }

  /** Drops staged data that no delivery names (none heard of the event, or it failed). */
  unstagePayload(staged: StagedPayload): void {
    this.sql
      .get(
        `DELETE FROM delivery_payloads WHERE id = ?
         AND NOT EXISTS (SELECT 1 FROM deliveries WHERE payload_id = ?)`,
      )
      .run(staged.payload, staged.payload);
  }

  /**
   * `data` as `addDelivery` should be given it for every delivery of one event: written apart
   * once when larger than PAYLOAD_APART_BYTES (in the caller's transaction), as it is otherwise.
   */
  payloadOf(data: DeliveryData): DeliveryData {
    return 'payload' in data || data.byteLength <= PAYLOAD_APART_BYTES
      ? data
      : this.stagePayload(data);
  }

  /**
   * Records a delivery with its `data` as JSON bytes, stored as given (a BLOB): storing and
   * reading them back copies bytes, where a string of megabytes was encoded on the way in and
   * decoded and parsed on the way out (issue 27 item 1). Data written apart (`stagePayload`,
   * `payloadOf`) is named, not written again. Inside `deliveriesAfter`, the row is written when
   * its work has returned.
   */
  addDelivery(delivery: Delivery, data: DeliveryData): Delivery {
    if (this.later !== undefined) this.later.push({ delivery, data });
    else this.writeDelivery(delivery, data);
    if (delivery.status === 'pending') this.pendingAt(delivery.nextAttemptAt);
    return delivery;
  }

  private writeDelivery(delivery: Delivery, data: DeliveryData): void {
    const apart = 'payload' in data ? data : undefined;
    this.sql
      .get(
        `INSERT INTO deliveries (id, webhook_id, event, email_id, data_json, status, attempts, next_attempt_at, created_at, payload_id)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(delivery.id, delivery.webhookId, delivery.event, delivery.emailId, apart === undefined ? bytesOf(data as Uint8Array) : EMPTY, delivery.status, delivery.attempts, delivery.nextAttemptAt, delivery.createdAt, apart?.payload ?? null);
  }

  /**
   * Runs `work` (in the caller's transaction), writing the delivery rows it records once it has
   * returned, in the order they were recorded, instead of as each is recorded (issue 31 item 2).
   * SMTP's group commit stores each message in a savepoint of one transaction, and a savepoint
   * copies every page it writes first: a delivery's row, its key (a random id) and its index
   * entry were three more pages a message, about 20 us of CPU (the store step 242/140 -> 217/122
   * us a message, in process). A row is written only if its email is still stored: a message
   * whose savepoint was rolled back after recording its delivery leaves none. Refused outside a
   * transaction (the email and its deliveries are written atomically).
   */
  deliveriesAfter<T>(work: () => T): T {
    if (this.later !== undefined) return work();
    if (!this.db.inTransaction)
      throw new Error('WebhookStore.deliveriesAfter: outside a transaction');
    const rows: { delivery: Delivery; data: DeliveryData }[] = [];
    this.later = rows;
    try {
      const result = work();
      this.later = undefined;
      const stored = this.sql.get('SELECT 1 FROM emails WHERE id = ?').pluck();
      for (const { delivery, data } of rows)
        if (delivery.emailId === null || stored.get(delivery.emailId) !== undefined)
          this.writeDelivery(delivery, data);
      return result;
    } finally {
      this.later = undefined;
    }
  }

  /** A delivery is pending from `at` (pendingFrom's lower bound moves down to it). */
  private pendingAt(at: string | null): void {
    if (at === null) return; // never attempted: due() cannot list it
    if (this.pendingFrom === null || (this.pendingFrom !== undefined && at < this.pendingFrom))
      this.pendingFrom = at;
  }

  /**
   * Whether a pending delivery may exist, due now or later: false only when none is known to
   * (the dispatcher then schedules no run for deliveries it recorded as paused).
   */
  mayHavePending(): boolean {
    this.knowPendingFrom();
    return this.pendingFrom !== null;
  }

  /** Reads pendingFrom from the table when it is not known, outside a transaction only. */
  private knowPendingFrom(): void {
    if (this.pendingFrom === undefined && !this.db.inTransaction)
      this.pendingFrom = this.nextDue() ?? null;
  }

  /**
   * A delivery's `data` as the UTF-8 bytes of its JSON (a row of a --db file from before holds
   * text), in pieces to join: its own, or the parts of the data it names. An attempt copies them
   * once, into the body it sends, where joining them first copied megabytes once more.
   */
  dataPartsOf(id: string): Buffer[] | undefined {
    const row = this.sql
      .get('SELECT data_json, payload_id FROM deliveries WHERE id = ?')
      .get(id) as { data_json: Buffer | string; payload_id: number | null } | undefined;
    if (row === undefined) return undefined;
    if (row.payload_id !== null)
      return this.sql
        .get('SELECT data FROM delivery_payload_parts WHERE payload_id = ? ORDER BY part')
        .pluck()
        .all(row.payload_id) as Buffer[];
    return [typeof row.data_json === 'string' ? Buffer.from(row.data_json, 'utf8') : row.data_json];
  }

  /** A delivery's `data` as the UTF-8 bytes of its JSON (`dataPartsOf`, joined). */
  dataOf(id: string): Buffer | undefined {
    const parts = this.dataPartsOf(id);
    return parts === undefined ? undefined : Buffer.concat(parts);
  }

  /** Pending deliveries whose next attempt is due, oldest first. */
  due(now: string, limit: number): Delivery[] {
    this.knowPendingFrom();
    if (this.pendingFrom === null || (this.pendingFrom !== undefined && this.pendingFrom > now))
      return [];
    const rows = this.sql
      .get(`SELECT ${DELIVERY_COLUMNS} FROM deliveries WHERE status = 'pending' AND next_attempt_at <= ? ORDER BY next_attempt_at, id ${LIMIT}`)
      .all(now, limit) as DeliveryRow[];
    // Nothing due: what is pending is due later, or nothing is; the table says when.
    if (rows.length === 0) this.pendingFrom = undefined;
    return rows.map(toDelivery);
  }

  /** The earliest time a pending delivery is due, if any. */
  nextDue(): string | undefined {
    return (this.sql.get(`SELECT min(next_attempt_at) AS at FROM deliveries WHERE status = 'pending'`).get() as { at: string | null }).at ?? undefined;
  }

  recordAttempt(deliveryId: string, attempt: Attempt, outcome: { status: DeliveryStatus; nextAttemptAt: string | null }): void {
    this.db.transaction(() => {
      this.sql
        .get('INSERT INTO delivery_attempts (delivery_id, number, at, status_code, error, latency_ms) VALUES (?, ?, ?, ?, ?, ?)')
        .run(deliveryId, attempt.number, attempt.at, attempt.statusCode, attempt.error, attempt.latencyMs);
      this.sql.get('UPDATE deliveries SET attempts = ?, status = ?, next_attempt_at = ? WHERE id = ?').run(attempt.number, outcome.status, outcome.nextAttemptAt, deliveryId);
    })();
    if (outcome.status === 'pending') this.pendingAt(outcome.nextAttemptAt);
  }

  /** Stops every pending delivery of a paused webhook (D-35). */
  pausePending(webhookId: string): number {
    return this.sql.get(`UPDATE deliveries SET status = 'paused', next_attempt_at = NULL WHERE webhook_id = ? AND status = 'pending'`).run(webhookId).changes;
  }

  /** The newest deliveries of a webhook with their attempts, newest first. */
  recentDeliveries(webhookId: string, limit: number): (Delivery & { attemptLog: Attempt[] })[] {
    const rows = this.sql.get(`SELECT ${DELIVERY_COLUMNS} FROM deliveries WHERE webhook_id = ? ORDER BY created_at DESC, rowid DESC ${LIMIT}`).all(webhookId, limit) as DeliveryRow[];
    const attempts = this.sql.get('SELECT number, at, status_code, error, latency_ms FROM delivery_attempts WHERE delivery_id = ? ORDER BY number');
    return rows.map((row) => ({
      ...toDelivery(row),
      attemptLog: (attempts.all(row.id) as { number: number; at: string; status_code: number | null; error: string | null; latency_ms: number }[]).map((a) => ({
        number: a.number,
        at: a.at,
        statusCode: a.status_code,
        error: a.error,
        latencyMs: a.latency_ms,
      })),
    }));
  }

  private toWebhook(row: WebhookRow): Webhook {
    const mailboxes = (this.sql.get('SELECT mailbox FROM webhook_mailboxes WHERE webhook_id = ? ORDER BY mailbox').all(row.id) as { mailbox: string }[]).map((r) => r.mailbox);
    return {
      id: row.id,
      ownerId: row.owner_id,
      url: row.url,
      scope: row.scope,
      domain: row.scope_domain,
      mailboxes,
      status: row.status,
      consecutiveFailures: row.consecutive_failures,
      createdAt: row.created_at,
    };
  }
}

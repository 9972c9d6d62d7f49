import type Database from 'better-sqlite3';
import { Statements } from './statements.ts';

/** A captured outgoing message (issue: local delivery and the outbox). */
export interface OutboxEntry {
  id: string;
  sentEmailId: string | null;
  from: string;
  recipients: string[];
  subject: string;
  messageId: string;
  size: number;
  createdAt: string;
}

/**
 * What the outbox list and its wait filter by (D-71): each a case-insensitive substring (Unicode
 * lower-casing, as D-14), given lower case; `senderDomain` is the sending mailbox's domain
 * exactly (a tenant's).
 */
export interface OutboxFilter {
  senderDomain?: string;
  to?: string;
  from?: string;
  subject?: string;
  text?: string;
}

/** One page of a filtered list: `last` is the position a cursor resumes after. */
export interface OutboxPage {
  entries: OutboxEntry[];
  last: number | undefined;
  more: boolean;
}

interface OutboxRow {
  seq: number;
  id: string;
  sent_email_id: string | null;
  envelope_from: string;
  recipients_json: string;
  subject: string;
  message_id: string;
  size: number;
  created_at: string;
}

const toEntry = (r: OutboxRow): OutboxEntry => ({
  id: r.id,
  sentEmailId: r.sent_email_id,
  from: r.envelope_from,
  recipients: JSON.parse(r.recipients_json) as string[],
  subject: r.subject,
  messageId: r.message_id,
  size: r.size,
  createdAt: r.created_at,
});

const COLUMNS =
  'seq, id, sent_email_id, envelope_from, recipients_json, subject, message_id, size, created_at';

/**
 * The plain text of a message as the outbox's `text` filter searches it (D-71: Unicode
 * lower-casing, as D-14). Made apart from `add`, so that a caller storing a large message can
 * make it in a turn of the event loop of its own: lower-casing a 5 MB text allocates a second
 * 5 MB string, about 20 ms of the loop (issue 27 item 1).
 */
export type SearchableText = string & { readonly searchable: unique symbol };

export const searchableText = (text: string): SearchableText =>
  text.toLowerCase() as SearchableText;

/** COLUMNS of `outbox o`, beside a join. */
const QUALIFIED = COLUMNS.split(', ')
  .map((column) => `o.${column}`)
  .join(', ');

/** An entry's own `raw` when its bytes were staged (migration 011). */
const EMPTY = Buffer.alloc(0);

/** The bytes of `raw` as a Buffer over the same memory: binding them copies nothing more. */
const bytesOf = (raw: Uint8Array): Buffer =>
  Buffer.isBuffer(raw) ? raw : Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);

/** A message's bytes written ahead of its entry (`stage`), for `add` to name. */
export interface StagedMessage {
  readonly staged: string;
  readonly size: number;
}

export class OutboxStore {
  private readonly sql: Statements;

  constructor(db: Database.Database) {
    this.sql = new Statements(db);
    // Bytes staged for an entry never written (the process stopped in between): seen by nothing.
    db.prepare('DELETE FROM outbox_raw WHERE outbox_id NOT IN (SELECT id FROM outbox)').run();
  }

  /**
   * Writes the bytes of the message entry `id` will capture, in a statement of their own
   * (migration 011): a 5 MB message and its entry's 5 MB lower-cased text written in one held
   * the event loop for both (issue 27 item 1). Seen by nothing until `add` writes the entry that
   * names them; `unstage` drops them if it never will.
   */
  stage(id: string, raw: Uint8Array): StagedMessage {
    this.sql.get('INSERT INTO outbox_raw (outbox_id, raw) VALUES (?, ?)').run(id, bytesOf(raw));
    return { staged: id, size: raw.length };
  }

  /** Drops the bytes staged for `id` whose entry was not written. */
  unstage(id: string): void {
    this.sql
      .get(
        'DELETE FROM outbox_raw WHERE outbox_id = ? AND outbox_id NOT IN (SELECT id FROM outbox)',
      )
      .run(id);
  }

  /**
   * `text` is the message's plain text (its text part, else its HTML's text) as
   * `searchableText` made it, for filters. `raw` is the message's bytes, stored as they are,
   * not copied first (a copy of a 5 MB message cost about 20 ms of the event loop, issue 27
   * item 1), or the bytes `stage` wrote for this entry.
   */
  add(
    entry: Omit<OutboxEntry, 'size'>,
    raw: Uint8Array | StagedMessage,
    text: SearchableText = searchableText(''),
  ): OutboxEntry {
    const staged = 'staged' in raw ? raw : undefined;
    if (staged !== undefined && staged.staged !== entry.id)
      throw new Error(`bytes staged for ${staged.staged}, not ${entry.id}`);
    const size = staged?.size ?? (raw as Uint8Array).length;
    this.sql
      .get(
        `INSERT INTO outbox (id, sent_email_id, envelope_from, recipients_json, subject, message_id, size, raw, created_at, subject_search, text_search)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        entry.id,
        entry.sentEmailId,
        entry.from,
        JSON.stringify(entry.recipients),
        entry.subject,
        entry.messageId,
        size,
        staged === undefined ? bytesOf(raw as Uint8Array) : EMPTY,
        entry.createdAt,
        entry.subject.toLowerCase(),
        text,
      );
    return { ...entry, size };
  }

  /** Newest first. */
  list(): OutboxEntry[] {
    return (
      this.sql.get(`SELECT ${COLUMNS} FROM outbox ORDER BY seq DESC`).all() as OutboxRow[]
    ).map(toEntry);
  }

  /**
   * Newest first, the entries matching every given filter, at most `limit` of them (all when
   * absent) after the position `afterSeq` of an earlier page. The LIMIT takes its parameter as
   * an expression: a bare parameter there is one SQLite's planner reads, so the statement was
   * prepared again on every run (as page-query.ts explains).
   */
  find(filter: OutboxFilter, limit?: number, afterSeq?: number): OutboxPage {
    const where: string[] = [];
    const params: Record<string, string | number> = {};
    if (filter.senderDomain !== undefined) {
      where.push('envelope_from IN (SELECT address FROM mailboxes WHERE domain = @senderDomain)');
      params.senderDomain = filter.senderDomain;
    }
    if (filter.to !== undefined) {
      where.push('EXISTS (SELECT 1 FROM json_each(recipients_json) WHERE instr(value, @to) > 0)');
      params.to = filter.to;
    }
    if (filter.from !== undefined) {
      where.push('instr(envelope_from, @from) > 0');
      params.from = filter.from;
    }
    if (filter.subject !== undefined) {
      where.push('instr(coalesce(subject_search, lower(subject)), @subject) > 0');
      params.subject = filter.subject;
    }
    if (filter.text !== undefined) {
      where.push("instr(coalesce(text_search, ''), @text) > 0");
      params.text = filter.text;
    }
    if (afterSeq !== undefined) {
      where.push('seq < @afterSeq');
      params.afterSeq = afterSeq;
    }
    const sql = `SELECT ${COLUMNS} FROM outbox${where.length > 0 ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY seq DESC${limit === undefined ? '' : ' LIMIT @take + 0'}`;
    if (limit !== undefined) params.take = limit + 1;
    const rows = this.sql.get(sql).all(params) as OutboxRow[];
    const more = limit !== undefined && rows.length > limit;
    const kept = more ? rows.slice(0, limit) : rows;
    return { entries: kept.map(toEntry), last: kept.at(-1)?.seq, more };
  }

  get(id: string): { entry: OutboxEntry; raw: Buffer } | undefined {
    const row = this.sql
      .get(
        `SELECT ${QUALIFIED}, coalesce(r.raw, o.raw) AS raw
         FROM outbox o LEFT JOIN outbox_raw r ON r.outbox_id = o.id WHERE o.id = ?`,
      )
      .get(id) as (OutboxRow & { raw: Buffer }) | undefined;
    return row && { entry: toEntry(row), raw: row.raw };
  }

  clear(): number {
    return this.sql.get('DELETE FROM outbox').run().changes;
  }
}

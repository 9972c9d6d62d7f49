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

interface OutboxRow {
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
  'id, sent_email_id, envelope_from, recipients_json, subject, message_id, size, created_at';

export class OutboxStore {
  private readonly sql: Statements;

  constructor(db: Database.Database) {
    this.sql = new Statements(db);
  }

  add(entry: Omit<OutboxEntry, 'size'>, raw: Uint8Array): OutboxEntry {
    this.sql
      .get(
        `INSERT INTO outbox (id, sent_email_id, envelope_from, recipients_json, subject, message_id, size, raw, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        entry.id,
        entry.sentEmailId,
        entry.from,
        JSON.stringify(entry.recipients),
        entry.subject,
        entry.messageId,
        raw.length,
        Buffer.from(raw),
        entry.createdAt,
      );
    return { ...entry, size: raw.length };
  }

  /** Newest first. */
  list(): OutboxEntry[] {
    return (
      this.sql.get(`SELECT ${COLUMNS} FROM outbox ORDER BY seq DESC`).all() as OutboxRow[]
    ).map(toEntry);
  }

  get(id: string): { entry: OutboxEntry; raw: Buffer } | undefined {
    const row = this.sql.get(`SELECT ${COLUMNS}, raw FROM outbox WHERE id = ?`).get(id) as
      (OutboxRow & { raw: Buffer }) | undefined;
    return row && { entry: toEntry(row), raw: row.raw };
  }

  clear(): number {
    return this.sql.get('DELETE FROM outbox').run().changes;
  }
}

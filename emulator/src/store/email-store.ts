import type Database from 'better-sqlite3';
import type { BlobStore } from './blob-store.ts';
import { Statements } from './statements.ts';
import { summaryJson, summaryShape } from './summary-json.ts';
import type { SettingsStore } from './settings-store.ts';
import type { DataVersion } from './data-version.ts';
import { searchedText } from './search-text.ts';
import { pageQuery, type SearchTuning } from './page-query.ts';
import { SUMMARY_TEXT } from './search-memory.ts';
import type {
  Address,
  Email,
  EmailFilter,
  EmailSummary,
  Folder,
  ListPosition,
  MessageAttachment,
  NewAttachment,
} from '../domain/types.ts';

/** A raw message's bytes written ahead of its email (`stageRaw`), for `insert` to name. */
export interface StagedRaw {
  readonly stagedFor: string;
}

interface EmailRow {
  id: string;
  mailbox: string;
  folder: Folder;
  read: number;
  starred: number;
  from_address: string;
  from_name: string | null;
  to_json: string;
  cc_json: string;
  bcc_json: string;
  reply_to_json: string;
  subject: string;
  snippet: string;
  text_body: string | null;
  html_body: string | null;
  preheader: string | null;
  message_id: string;
  in_reply_to: string | null;
  references_json: string;
  received_at: string;
  sent_at: string | null;
  attachment_count: number;
}

/** Only what a summary needs (D-3): list pages read nothing else. */
const LIST_COLUMNS = `e.id, e.mailbox, e.folder, e.read, e.starred, e.from_address, e.from_name, e.to_json, e.cc_json,
  e.subject, e.snippet, e.received_at, e.attachment_count`;

/**
 * What a page of JSON summaries reads: the ready JSON (migrations 006 and 013), as text, and
 * nothing else, each row's value alone (better-sqlite3's pluck: no array a row). A Buffer a
 * row, as a blob gives, cost about four times a string of the same bytes.
 */
const JSON_COLUMNS = SUMMARY_TEXT;

/**
 * The SQL function that renders a row's summary JSON from its own columns (summary-json.ts);
 * migration 013's trigger calls it with a changed row's new values.
 */
const RENDER_SUMMARY = `mailtwin_summary_json(id, mailbox, from_address, from_name, to_json,
  cc_json, subject, snippet, received_at, attachment_count, folder, read, starred)`;

/** One page of summaries as JSON, ready to be written into the list answer. */
export interface JsonPage {
  /**
   * The summaries' JSON, comma-separated, as one string: written once into the answer's bytes
   * (routes/emails.ts, listAnswer), where bytes made here were copied again into it.
   */
  json: string;
  /** The UTF-8 length of `json`, for the answer's one allocation. */
  bytes: number;
  more: boolean;
  /** Where the page ends, for the next cursor; undefined for an empty page. */
  last: ListPosition | undefined;
  /** The data version (`DataVersion`) the page was read at, and is true at. */
  version: string;
}

/** What a PATCH may change (§4.5). */
type FlagChanges = { folder?: Folder; read?: boolean; starred?: boolean };

/**
 * An email with its bodies (`get`): the columns the detail is made of (D-4), not its summary's
 * JSON or its search columns.
 */
const READ_EMAIL = `SELECT e.id, e.mailbox, e.folder, e.read, e.starred, e.from_address, e.from_name,
    e.to_json, e.cc_json, e.bcc_json, e.reply_to_json, e.subject, e.snippet, e.preheader,
    e.message_id, e.in_reply_to, e.references_json, e.received_at, e.sent_at, e.attachment_count,
    c.text_body, c.html_body
  FROM emails e JOIN email_contents c ON c.seq = e.seq WHERE e.id = ?`;

/** The UPDATE's assignments and parameters (by column name) for `changes`. */
function flagWrites(
  id: string,
  changes: FlagChanges,
): { sets: string[]; params: Record<string, string | number> } {
  const sets: string[] = [];
  const params: Record<string, string | number> = { id };
  if (changes.folder !== undefined) {
    sets.push('folder = @folder');
    params.folder = changes.folder;
  }
  if (changes.read !== undefined) {
    sets.push('read = @read');
    params.read = changes.read ? 1 : 0;
  }
  if (changes.starred !== undefined) {
    sets.push('starred = @starred');
    params.starred = changes.starred ? 1 : 0;
  }
  return { sets, params };
}

/**
 * Whether the row `held` already holds every value of `params` (a change of nothing, too): a
 * change to what the email already holds writes nothing (issue 31 item 1: about half of the
 * client mix's PATCHes): an UPDATE rewrote the row, its summary and the list indexes, grew the
 * WAL, and moved the data version, emptying every cache kept against it, for a row that reads
 * back the same. Nothing else records a PATCH (no updatedAt: D-20), and the route still
 * publishes its event.
 */
function holds(held: Record<string, unknown>, params: Record<string, string | number>): boolean {
  return Object.keys(params).every((name) => name === 'id' || held[name] === params[name]);
}

/** Writes an email's row of the search index (`insert`). */
const INDEX_EMAIL =
  'INSERT INTO emails_fts (rowid, subject, sender, recipients, body) VALUES (?, ?, ?, ?, ?)';

/** Runs `work` as it is, in the transaction its caller holds (EmailStore.insert). */
const inWork = (work: () => void): void => work();

/** An email's row of the search index, left to `indexAfter`: written if `id` is still at its rowid. */
interface LaterIndexRow {
  id: string;
  searched: unknown[];
}

function addressesText(addresses: Address[]): string {
  return addresses.map((a) => `${a.name ?? ''} ${a.address}`).join(' ');
}

/** The email of every mailbox, its search index, and attachment bytes stored once by hash. */
export class EmailStore {
  private readonly sql: Statements;

  /** The search rows `insert` leaves to `indexAfter`, while its work runs. */
  private indexLater: LaterIndexRow[] | undefined;

  /**
   * better-sqlite3's transaction function, made once for `insert` (as Store.transaction's):
   * `db.transaction(work)` builds a wrapper with its four variants each time it is called, about
   * 4 us of CPU for every email SMTP stores (issue 31 item 2). Nested, it is a savepoint.
   */
  private readonly inTransaction: (work: () => void) => void;

  /** For tests: a search plan to use whatever the sample says (page-query.ts). */
  searchTuning: SearchTuning = {};

  constructor(
    private readonly db: Database.Database,
    private readonly blobs: BlobStore,
    private readonly version: DataVersion,
  ) {
    this.sql = new Statements(db);
    this.inTransaction = db.transaction((work: () => void) => work());
    // Raw bytes staged for an email never written (the process stopped in between): seen by nothing.
    db.prepare('DELETE FROM email_raw WHERE email_id NOT IN (SELECT id FROM emails)').run();
    // Rendered inside SQLite from the stored values, so the text is what reading the row gives.
    db.function(
      'mailtwin_summary_json',
      { deterministic: true, varargs: true },
      (...v: unknown[]) =>
        summaryJson(
          toSummary({
            id: v[0],
            mailbox: v[1],
            from_address: v[2],
            from_name: v[3],
            to_json: v[4],
            cc_json: v[5],
            subject: v[6],
            snippet: v[7],
            received_at: v[8],
            attachment_count: v[9],
            folder: v[10],
            read: v[11],
            starred: v[12],
          } as SummaryRow),
        ),
    );
  }

  /**
   * Writes every stored summary again when the summary's shape differs from the one they were
   * written with (or none: a --db file from before migration 006). Run once at open.
   */
  refreshSummaries(settings: SettingsStore): void {
    const shape = summaryShape();
    if (settings.get('summary-shape') === shape) return;
    this.db.transaction(() => {
      this.db.prepare(`UPDATE emails SET summary_json = ${RENDER_SUMMARY}`).run();
      settings.set('summary-shape', shape);
    })();
  }

  /**
   * Writes part `part` (0, 1, ... in order; store/parts.ts) of the raw bytes of the email
   * `emailId` will name, in a statement of its own (migration 012): a large raw message's bytes,
   * its text and its webhooks' data written in one transaction held the event loop for all
   * three (issue 27 item 1). Seen by nothing until `insert` writes that email; `unstageRaw`
   * drops them if it never will.
   */
  stageRaw(emailId: string, part: number, bytes: Uint8Array): StagedRaw {
    this.sql
      .get('INSERT INTO email_raw (email_id, part, raw) VALUES (?, ?, ?)')
      .run(emailId, part, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
    return { stagedFor: emailId };
  }

  /** Drops the raw bytes staged for `emailId` whose email was not written. */
  unstageRaw(emailId: string): void {
    this.sql
      .get(
        'DELETE FROM email_raw WHERE email_id = ? AND NOT EXISTS (SELECT 1 FROM emails WHERE id = ?)',
      )
      .run(emailId, emailId);
  }

  /**
   * Stores a new email with its attachments, atomically; `raw`, its raw message when it has
   * one, or the bytes `stageRaw` wrote for it. `inCallersTransaction`: the caller runs this in
   * a transaction (or savepoint) of its own that is rolled back whole if this throws, so the
   * email takes no savepoint of its own, where nested in the caller's it was a second one for
   * every message SMTP stores (issue 31 item 2: a SAVEPOINT and a RELEASE, and the pages they
   * journal; a few us a message); refused outside a transaction.
   */
  insert(
    email: Email,
    attachments: NewAttachment[] = [],
    raw?: Uint8Array | StagedRaw,
    { inCallersTransaction = false }: { inCallersTransaction?: boolean } = {},
  ): void {
    if (inCallersTransaction && !this.db.inTransaction)
      throw new Error('EmailStore.insert: inCallersTransaction outside a transaction');
    const staged = raw !== undefined && 'stagedFor' in raw ? raw : undefined;
    if (staged !== undefined && staged.stagedFor !== email.id)
      throw new Error(`raw bytes staged for ${staged.stagedFor}, not ${email.id}`);
    const own = staged === undefined ? (raw as Uint8Array | undefined) : undefined;
    const read = email.read ? 1 : 0;
    const starred = email.starred ? 1 : 0;
    const toJson = JSON.stringify(email.to);
    const ccJson = JSON.stringify(email.cc);
    (inCallersTransaction ? inWork : this.inTransaction)(() => {
      // The summary's JSON is rendered by the same SQL function from the values the row is
      // written with, in the INSERT, where an UPDATE after it read the row back and wrote it
      // again (issue 31 item 2): the function is given them as SQLite holds them, as before.
      const { lastInsertRowid } = this.sql
        .get(
          `INSERT INTO emails (id, mailbox, folder, read, starred, from_address, from_name, to_json, cc_json,
             bcc_json, reply_to_json, subject, snippet, preheader, message_id, in_reply_to,
             references_json, received_at, sent_at, attachment_count, from_search, subject_search,
             summary_json)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?,
             mailtwin_summary_json(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?))`,
        )
        .run(
          email.id,
          email.mailbox,
          email.folder,
          read,
          starred,
          email.from.address,
          email.from.name,
          toJson,
          ccJson,
          JSON.stringify(email.bcc),
          JSON.stringify(email.replyTo),
          email.subject,
          email.snippet,
          email.preheader,
          email.messageId,
          email.inReplyTo,
          JSON.stringify(email.references),
          email.receivedAt,
          email.sentAt,
          attachments.length,
          `${email.from.name ?? ''}\u0000${email.from.address}`.toLowerCase(),
          email.subject.toLowerCase(),
          // RENDER_SUMMARY's columns, in its order.
          email.id,
          email.mailbox,
          email.from.address,
          email.from.name,
          toJson,
          ccJson,
          email.subject,
          email.snippet,
          email.receivedAt,
          attachments.length,
          email.folder,
          read,
          starred,
        );
      this.sql
        .get('INSERT INTO email_contents (seq, text_body, html_body, raw) VALUES (?, ?, ?, ?)')
        .run(lastInsertRowid, email.text, email.html, own ?? null);
      const searched = [
        lastInsertRowid,
        email.subject,
        addressesText([email.from]),
        addressesText([...email.to, ...email.cc]),
        searchedText(email.text ?? ''), // D-68: a bounded part of a large body
      ];
      if (this.indexLater !== undefined) this.indexLater.push({ id: email.id, searched });
      else this.sql.get(INDEX_EMAIL).run(searched);
      attachments.forEach((attachment, position) => {
        const sha256 = this.blobs.put(attachment.bytes);
        this.sql
          .get(
            `INSERT INTO message_attachments (id, email_id, position, name, content_type, size, blob_sha256)
             VALUES (?, ?, ?, ?, ?, ?, ?)`,
          )
          .run(
            attachment.id,
            email.id,
            position,
            attachment.name,
            attachment.contentType,
            attachment.bytes.length,
            sha256,
          );
      });
    });
  }

  /**
   * Runs `work` (in the caller's transaction), writing the search index's rows of the emails it
   * inserts once it has returned, instead of as each is inserted (issue 31 item 2). FTS5 writes
   * the rows it holds as a new segment of its index at every savepoint of the transaction after
   * its first write, so SMTP's group commit, one savepoint a message, wrote a segment a message
   * (and merged them): about 49 us of CPU a row against 26-31 us for rows written together.
   * A row is written only if its email is still there: a message whose savepoint was rolled
   * back after its insert leaves none (its rowid may be another email's by then).
   */
  indexAfter<T>(work: () => T): T {
    if (this.indexLater !== undefined) return work();
    const rows: LaterIndexRow[] = [];
    this.indexLater = rows;
    try {
      const result = work();
      this.indexLater = undefined;
      // (INSERT ... SELECT ... WHERE EXISTS into the FTS5 table costs more than this read.)
      const idAt = this.sql.get('SELECT id FROM emails WHERE seq = ?').pluck();
      const index = this.sql.get(INDEX_EMAIL);
      for (const { id, searched } of rows) if (idAt.get(searched[0]) === id) index.run(searched);
      return result;
    } finally {
      this.indexLater = undefined;
    }
  }

  /**
   * What names a stored email in a log line, read without its body: reading back the body of a
   * large email (megabytes decoded into a string) to print its subject cost the turn that stored
   * it about 30 ms more (issue 27 item 1).
   */
  headline(
    id: string,
  ): { id: string; mailbox: string; folder: Folder; from: string; subject: string } | undefined {
    return this.sql
      .get('SELECT id, mailbox, folder, from_address AS "from", subject FROM emails WHERE id = ?')
      .get(id) as
      { id: string; mailbox: string; folder: Folder; from: string; subject: string } | undefined;
  }

  get(id: string): Email | undefined {
    return this.readEmail(id)?.email;
  }

  /** The email `id` and the row it was read from. */
  private readEmail(id: string): { email: Email; row: EmailRow } | undefined {
    const row = this.sql.get(READ_EMAIL).get(id) as EmailRow | undefined;
    if (row === undefined) return undefined;
    // The count is stored with the attachments, in one transaction (insert): none to look up.
    return { email: toEmail(row, row.attachment_count === 0 ? [] : this.attachmentsOf(id)), row };
  }

  /**
   * One page, newest first (receivedAt, then id, descending; D-17), strictly after `after`.
   * Returns up to `limit` emails without bodies (summaries) and whether more follow.
   */
  list(
    filter: EmailFilter,
    limit: number,
    after?: ListPosition,
  ): { emails: EmailSummary[]; more: boolean } {
    const rows = pageQuery(this.sql, this.searchTuning, LIST_COLUMNS, filter, limit, after).run(
      false,
    ) as SummaryRow[];
    const more = rows.length > limit;
    return { emails: rows.slice(0, limit).map(toSummary), more };
  }

  /**
   * The same page as `list`, each summary already JSON: the API's list answer joins these, so
   * a request neither parses stored JSON nor builds an object per row. Read afresh every time,
   * kept by nothing here: a page kept until the next write (a cache of pages by query, before
   * issue 31 item 1) answered 7.4% of the client mix's lists, and the pages it kept, alive
   * across young collections, were most of the bytes each scavenge copied and promoted (the
   * 10,000-email `--db` mix in process: 7.8-12.9 KB surviving a request's scavenges with it,
   * 0.8-1.0 KB without). A first page is made of summary texts kept in memory
   * (search-memory.ts), and a repeated GET's answer is the response cache's.
   */
  listJson(filter: EmailFilter, limit: number, after?: ListPosition): JsonPage {
    const version = this.version.current();
    const { run } = pageQuery(this.sql, this.searchTuning, JSON_COLUMNS, filter, limit, after);
    const rows = run('first') as string[];
    const more = rows.length > limit;
    if (more) rows.length = limit;
    const end = rows.at(-1);
    const json = rows.join(',');
    return {
      json,
      bytes: Buffer.byteLength(json),
      more,
      last: end === undefined ? undefined : positionOf(end),
      version,
    };
  }

  /** Sets folder, read and starred as given; returns whether the email exists. */
  update(id: string, changes: FlagChanges): boolean {
    const { sets, params } = flagWrites(id, changes);
    if (sets.length === 0) return this.get(id) !== undefined;
    const held = this.sql.get('SELECT folder, read, starred FROM emails WHERE id = ?').get(id) as
      Record<string, string | number> | undefined;
    if (held === undefined) return false;
    if (holds(held, params)) return true;
    return (
      this.sql.get(`UPDATE emails SET ${sets.join(', ')} WHERE id = @id`).run(params).changes > 0
    );
  }

  /**
   * PATCH (§4.5): sets folder, read and starred as given and returns the email as it is after
   * (undefined when there is none), from one read of it and at most one write: `update` and
   * then `get` read it twice more (issue 31 item 1). The folder, read and starred flags of the
   * answer are the row's as the write left them (RETURNING), the rest is what the read gave,
   * which the write leaves as it was; an email the write does not change is answered as read.
   */
  change(id: string, changes: FlagChanges): Email | undefined {
    const found = this.readEmail(id);
    if (found === undefined) return undefined;
    const { email, row } = found;
    const { sets, params } = flagWrites(id, changes);
    if (holds(row as unknown as Record<string, unknown>, params)) return email;
    const after = this.sql
      .get(`UPDATE emails SET ${sets.join(', ')} WHERE id = @id RETURNING folder, read, starred`)
      .get(params) as Pick<EmailRow, 'folder' | 'read' | 'starred'> | undefined;
    if (after !== undefined) {
      email.folder = after.folder;
      email.read = after.read === 1;
      email.starred = after.starred === 1;
    }
    return email;
  }

  /** Permanent removal (§4.6), with its index entry; blobs still used elsewhere stay. */
  delete(id: string): boolean {
    return this.db.transaction(() => {
      const row = this.sql.get('SELECT seq FROM emails WHERE id = ?').get(id) as
        { seq: number } | undefined;
      if (row === undefined) return false;
      const blobs = this.sql
        .get('SELECT DISTINCT blob_sha256 AS sha256 FROM message_attachments WHERE email_id = ?')
        .all(id) as { sha256: string }[];
      this.sql.get('DELETE FROM emails_fts WHERE rowid = ?').run(row.seq);
      this.sql.get('DELETE FROM emails WHERE seq = ?').run(row.seq);
      const dropUnused = this.sql.get(
        `DELETE FROM blobs WHERE sha256 = @sha256
           AND NOT EXISTS (SELECT 1 FROM message_attachments WHERE blob_sha256 = @sha256)
           AND NOT EXISTS (SELECT 1 FROM uploads WHERE blob_sha256 = @sha256)`,
      );
      for (const { sha256 } of blobs) dropUnused.run({ sha256 });
      return true;
    })();
  }

  /** A message attachment's metadata, the mailbox of its email, and its bytes. */
  attachment(
    id: string,
  ): { attachment: MessageAttachment; mailbox: string; bytes: Buffer } | undefined {
    const row = this.sql
      .get(
        `SELECT a.id, a.name, a.content_type, a.size, e.mailbox, b.bytes
         FROM message_attachments a JOIN emails e ON e.id = a.email_id JOIN blobs b ON b.sha256 = a.blob_sha256
         WHERE a.id = ?`,
      )
      .get(id) as
      | {
          id: string;
          name: string;
          content_type: string;
          size: number;
          mailbox: string;
          bytes: Buffer;
        }
      | undefined;
    if (row === undefined) return undefined;
    return {
      attachment: { id: row.id, name: row.name, contentType: row.content_type, size: row.size },
      mailbox: row.mailbox,
      bytes: row.bytes,
    };
  }

  count(): number {
    return (this.sql.get('SELECT count(*) AS n FROM emails').get() as { n: number }).n;
  }

  private attachmentsOf(emailId: string): MessageAttachment[] {
    return (
      this.sql
        .get(
          'SELECT id, name, content_type, size FROM message_attachments WHERE email_id = ? ORDER BY position',
        )
        .all(emailId) as { id: string; name: string; content_type: string; size: number }[]
    ).map((r) => ({ id: r.id, name: r.name, contentType: r.content_type, size: r.size }));
  }
}

/** How a summary's JSON starts and what precedes its last value (emailSummary's keys, D-3). */
const ID_AT = '{"id":';
const AFTER_ID = ',"mailbox":';
const RECEIVED_AT = ',"receivedAt":';

/**
 * Where a page ends, read from its last summary's JSON: the id and receivedAt it holds are the
 * row's own (rendered from them, and never changed after the email is stored). Only the two
 * strings are parsed, not the whole summary (issue 31 item 1: 1.5% of the 10k mix's CPU): the
 * id is the summary's first value and receivedAt its last, and a JSON string holds no
 * unescaped quote, so neither `","mailbox":` nor `,"receivedAt":` can occur inside one. Any
 * other text is parsed whole.
 */
function positionOf(summary: string): ListPosition {
  const idEnd = summary.indexOf(`"${AFTER_ID}`);
  const atStart = summary.lastIndexOf(RECEIVED_AT);
  if (summary.startsWith(`${ID_AT}"`) && idEnd > 0 && atStart > idEnd && summary.endsWith('"}'))
    return {
      id: stringAt(summary, ID_AT.length, idEnd + 1),
      receivedAt: stringAt(summary, atStart + RECEIVED_AT.length, summary.length - 1),
    };
  const { id, receivedAt } = JSON.parse(summary) as { id: string; receivedAt: string };
  return { id, receivedAt };
}

/** The value of the JSON string at text[from, to), quotes included. */
function stringAt(text: string, from: number, to: number): string {
  const token = text.slice(from, to);
  return token.includes('\\') ? (JSON.parse(token) as string) : token.slice(1, -1);
}

type SummaryRow = Pick<
  EmailRow,
  | 'id'
  | 'mailbox'
  | 'folder'
  | 'read'
  | 'starred'
  | 'from_address'
  | 'from_name'
  | 'to_json'
  | 'cc_json'
  | 'subject'
  | 'snippet'
  | 'received_at'
  | 'attachment_count'
>;

function toSummary(row: SummaryRow): EmailSummary {
  return {
    id: row.id,
    mailbox: row.mailbox,
    folder: row.folder,
    read: row.read === 1,
    starred: row.starred === 1,
    from: { address: row.from_address, name: row.from_name },
    to: JSON.parse(row.to_json) as Address[],
    cc: JSON.parse(row.cc_json) as Address[],
    subject: row.subject,
    snippet: row.snippet,
    receivedAt: row.received_at,
    attachmentCount: row.attachment_count,
  };
}

/**
 * The email of a row: `toSummary`'s object given the detail's keys. Not `{ ...toSummary(row),
 * bcc, … }`: V8 (Node 20) builds an object literal that adds ten keys after a spread through its
 * slow path, about 38 µs a call against about 1 µs, on every GET /emails/{id} and every PATCH's
 * answer (issue 31 item 1).
 */
function toEmail(row: EmailRow, attachments: MessageAttachment[]): Email {
  return Object.assign(toSummary(row), {
    bcc: JSON.parse(row.bcc_json) as Address[],
    replyTo: JSON.parse(row.reply_to_json) as Address[],
    text: row.text_body,
    html: row.html_body,
    preheader: row.preheader,
    messageId: row.message_id,
    inReplyTo: row.in_reply_to,
    references: JSON.parse(row.references_json) as string[],
    sentAt: row.sent_at,
    attachments,
  });
}

/**
 * The newest search plan's rows chosen in memory (page-query.ts, domain/search.ts; issue 31
 * item 1). The SQL newest plan reads the newest matches from the full-text index and looks up
 * each one's row to test its mailbox, folder, read and starred flags: a frequent word filtered
 * by a flag few emails have (starred: one in eleven over the bench's mailbox) read hundreds of
 * rows to list 26, about twice an unfiltered search's CPU. Here the same matches and the same
 * flags are read from memory, and only the page's own rows from the database:
 * - `EmailFlags`: every email's mailbox, folder, read and starred flags, by rowid (seq),
 *   kept equal to the table by a log that temporary triggers write in the writing transaction
 *   (so a rollback takes its entries with it), read only outside a transaction, when every
 *   entry there is committed;
 * - match lists: each MATCH expression's newest matches (rowids, descending), read from the
 *   index in chunks as pages need more, and kept while the text they were read from stands: an
 *   email's indexed text is written with the email and never changed, rowids are never reused
 *   (AUTOINCREMENT), so mail stored since is read above the list's top, and a deleted email's
 *   rowid, still in a list, is skipped as the flags no longer hold it.
 * The page is the newest plan's: the first rows, in rowid order, that pass the filters, exactly
 * as the SQL plan finds them; the caller reads them and gives the page up, as the SQL plan
 * does, when one of them is late (page-query.ts). The flags are read from the list indexes
 * alone (migration 009), never from the table's rows: 50 ms of CPU once for 100,000 emails,
 * where reading the rows (for `late`) took 350.
 */
import type Database from 'better-sqlite3';
import type { EmailFilter } from '../domain/types.ts';
import type { Statements } from './statements.ts';

/** A folder's code in the flags (the five of migration 001's CHECK); 7 for any other. */
const FOLDER_CODES: Readonly<Record<string, number>> = {
  inbox: 0,
  sent: 1,
  archive: 2,
  spam: 3,
  trash: 4,
};
const FOLDER_BITS = 7;
const READ = 8;
const STARRED = 16;
/** Flags to a rowid's 5 bits. */
const FLAG_BITS = 32;

/** An email's flags as one number, computed by SQLite from its list index entry. */
const FLAGS = `((CASE folder WHEN 'inbox' THEN 0 WHEN 'sent' THEN 1 WHEN 'archive' THEN 2
  WHEN 'spam' THEN 3 WHEN 'trash' THEN 4 ELSE 7 END) | ((read = 1) << 3) | ((starred = 1) << 4))`;

/** The log of emails written (by rowid), this connection's own, never in the database file. */
const LOG = 'temp.mailtwin_email_writes';

/**
 * The one column whose values the memory keeps by rowid (`SearchMemory.summaryPage`): an email's
 * summary as JSON text (migrations 006 and 013), what a page of GET /emails is made of.
 */
export const SUMMARY_TEXT = 'CAST(e.summary_json AS TEXT)';

/** Limits: memory held, rows read a request, log entries replayed before a rebuild. */
export interface SearchMemoryLimits {
  /**
   * Matches read from the index at a time, the first time, for each row of the page (doubled
   * each further read): a first page of 26 reads 104, where the newest 512 cost the first
   * search of each word at 100,000 emails about 0.4 ms more (CPU p99 of the read bench's
   * single terms 2.45 ms against 0.36).
   */
  chunk: number;
  /** Matches read from the index by one page before it gives way to the SQL plans. */
  readBudget: number;
  /** Matches tested by one page before it gives way. */
  scanBudget: number;
  /** Mail stored since a list was read above which the list is read again from the top. */
  rereadAbove: number;
  /** Log entries beyond which the flags are read again whole. */
  rebuildAfter: number;
  /** Log entries kept before the log is emptied. */
  logCap: number;
  /** Matches kept in all lists. */
  maxRows: number;
  /** Lists kept (one a MATCH expression, however few its matches). */
  maxLists: number;
  /** Summary texts kept (`summaryPage`): about 600 bytes each. */
  maxSummaries: number;
  /** Deleted emails' rowids left in the mailboxes' lists before they are made again. */
  staleAfter: number;
}

export const SEARCH_MEMORY_LIMITS: SearchMemoryLimits = {
  chunk: 4,
  readBudget: 16_384,
  scanBudget: 262_144,
  rereadAbove: 4_096,
  rebuildAfter: 4_096,
  logCap: 65_536,
  maxRows: 2_000_000,
  maxLists: 4_096,
  maxSummaries: 32_768,
  staleAfter: 4_096,
};

/** A MATCH expression's matches with rowids in (the last row, `high`], newest first. */
interface MatchList {
  rows: number[];
  high: number;
  /** Every match at or below `high` is in `rows`. */
  complete: boolean;
}

/** Every email's mailbox and flags by rowid, kept equal to the table (see the module's note). */
class EmailFlags {
  /** The mailbox's number + 1 by rowid; 0 where no email is. */
  private box = new Int32Array(0);
  private bits = new Uint8Array(0);
  private readonly numbers = new Map<string, number>();
  /**
   * Each mailbox's rowids (by its number), ascending; a deleted email's stays until the lists
   * are made again from `box` (`stale`), as it does when an email appears below a list's last.
   */
  private rowids: number[][] = [];
  private stale = true;
  /** Emails deleted since the lists were made. */
  private removed = 0;
  /**
   * The summary text (SUMMARY_TEXT) of emails by rowid, each read outside a transaction and
   * not late then; dropped whenever the log names the email (the log's triggers watch both).
   */
  readonly summaries = new Map<number, string>();
  /** The last log entry applied. */
  private applied = 0;
  /** Writes the triggers reported, and their count when the flags were last brought up to date. */
  private written = 0;
  private synced = -1;
  /** The highest rowid of an email seen: the index holds the text of every email up to it. */
  newest = 0;
  /**
   * Changes when the flags are read again whole, or an email appears at or below `newest`
   * (never, while rowids are AUTOINCREMENT's): the match lists are read again too.
   */
  generation = 0;

  constructor(
    private readonly db: Database.Database,
    private readonly sql: Statements,
    private readonly limits: SearchMemoryLimits,
  ) {
    const reported = 'mailtwin_email_written';
    db.function(reported, () => {
      this.written += 1;
      return null;
    });
    db.exec(`CREATE TEMP TABLE IF NOT EXISTS mailtwin_email_writes (
      n INTEGER PRIMARY KEY, seq INTEGER NOT NULL)`);
    const log = (row: string) =>
      `BEGIN INSERT INTO ${LOG} (seq) VALUES ${row}; SELECT ${reported}(); END`;
    db.exec(`CREATE TEMP TRIGGER IF NOT EXISTS mailtwin_email_inserted AFTER INSERT ON main.emails
      ${log('(NEW.seq)')}`);
    db.exec(`CREATE TEMP TRIGGER IF NOT EXISTS mailtwin_email_deleted AFTER DELETE ON main.emails
      ${log('(OLD.seq)')}`);
    // The summary's text and the late flag too: `summaries` keeps the one of emails not late.
    db.exec(`CREATE TEMP TRIGGER IF NOT EXISTS mailtwin_email_updated
      AFTER UPDATE OF seq, mailbox, folder, read, starred, late, summary_json ON main.emails
      ${log('(OLD.seq), (NEW.seq)')}`);
  }

  /** Brings the flags up to date; false inside a transaction, whose writes may yet be undone. */
  sync(): boolean {
    if (this.db.inTransaction) return false;
    const written = this.written;
    if (written === this.synced) return true;
    const entries = this.sql
      .get(`SELECT n, seq FROM ${LOG} WHERE n > ? ORDER BY n`)
      .raw(true)
      .all(this.applied) as [number, number][];
    if (this.synced < 0 || entries.length > this.limits.rebuildAfter) this.rebuild();
    else if (entries.length === 1) this.refresh((entries[0] as [number, number])[1]);
    // Each email once: a PATCH's change logs it four times (its row and its summary's update).
    else for (const seq of new Set(entries.map(([, seq]) => seq))) this.refresh(seq);
    const last = entries.at(-1);
    if (last !== undefined) this.applied = last[0];
    if (this.applied > this.limits.logCap) {
      // Entries are numbered from the highest kept: all gone, they start again from 1.
      this.sql.get(`DELETE FROM ${LOG}`).run();
      this.applied = 0;
    }
    this.synced = written;
    return true;
  }

  /** The number of a mailbox that holds or held email; undefined for one that never did. */
  mailbox(address: string): number | undefined {
    return this.numbers.get(address);
  }

  /** The rowids of mailbox number `box`'s emails, ascending, with some deleted ones among them. */
  rowidsIn(box: number): readonly number[] {
    if (this.stale) {
      this.rowids = Array.from({ length: this.numbers.size }, () => []);
      const { box: boxes } = this;
      for (let seq = 0; seq < boxes.length; seq += 1) {
        const number = boxes[seq] as number;
        if (number !== 0) (this.rowids[number - 1] as number[]).push(seq);
      }
      this.stale = false;
      this.removed = 0;
    }
    return this.rowids[box] ?? [];
  }

  /** The flags of the email at `seq` if it is in mailbox number `box`, else -1. */
  flagsIn(seq: number, box: number): number {
    return this.box[seq] === box + 1 ? (this.bits[seq] as number) : -1;
  }

  private rebuild(): void {
    // Each mailbox's emails as one JSON array of rowid and flags, from a list index alone.
    const boxes = this.sql
      .get(
        `SELECT mailbox, json_group_array(seq * ${FLAG_BITS} + ${FLAGS}) FROM emails GROUP BY mailbox`,
      )
      .raw(true)
      .all() as [string, string][];
    const emails = boxes.map(([mailbox, json]) => [mailbox, JSON.parse(json) as number[]] as const);
    let top = 0;
    for (const [, values] of emails)
      for (const value of values) top = Math.max(top, Math.floor(value / FLAG_BITS));
    this.box = new Int32Array(top + 1);
    this.bits = new Uint8Array(top + 1);
    this.summaries.clear();
    this.stale = true;
    for (const [mailbox, values] of emails)
      for (const value of values)
        this.set(Math.floor(value / FLAG_BITS), mailbox, value % FLAG_BITS);
    this.newest = Math.max(this.newest, top);
    this.generation += 1;
  }

  /**
   * Reads the email at `seq` again: its flags, and its summary text, kept when it is not late
   * (a PATCHed email's page, or new mail's, then reads no row again).
   */
  private refresh(seq: number): void {
    const row = this.sql
      .get(`SELECT mailbox, ${FLAGS}, ${SUMMARY_TEXT}, late FROM emails e WHERE seq = ?`)
      .raw(true)
      .get(seq) as [string, number, string, number] | undefined;
    if (row === undefined || row[3] !== 0) this.summaries.delete(seq);
    else this.keepSummary(seq, row[2]);
    if (row === undefined) {
      if (seq < this.box.length && this.box[seq] !== 0) {
        this.box[seq] = 0;
        if (++this.removed > this.limits.staleAfter) this.stale = true;
      }
      return;
    }
    if (seq <= this.newest && !(this.box[seq] ?? 0)) this.generation += 1;
    this.set(seq, row[0], row[1]);
    this.newest = Math.max(this.newest, seq);
  }

  /** Keeps `text` as the summary text of the email at `seq` (see `summaries`). */
  keepSummary(seq: number, text: string): void {
    if (this.summaries.size >= this.limits.maxSummaries && !this.summaries.has(seq))
      this.summaries.clear();
    this.summaries.set(seq, text);
  }

  private set(seq: number, mailbox: string, flags: number): void {
    if (seq >= this.box.length) {
      const size = Math.max(seq + 1, this.box.length * 2);
      const box = new Int32Array(size);
      box.set(this.box);
      const bits = new Uint8Array(size);
      bits.set(this.bits);
      this.box = box;
      this.bits = bits;
    }
    let number = this.numbers.get(mailbox);
    if (number === undefined) {
      this.numbers.set(mailbox, (number = this.numbers.size));
      this.rowids.push([]);
    }
    if (!this.stale && this.box[seq] !== number + 1) {
      // Mail is stored with ever higher rowids: anything else, the lists are made again.
      const rowids = this.rowids[number] as number[];
      if (rowids.length === 0 || (rowids.at(-1) as number) < seq) rowids.push(seq);
      else this.stale = true;
    }
    this.box[seq] = number + 1;
    this.bits[seq] = flags;
  }
}

/** The newest matches of each MATCH expression and every email's flags, per database. */
export class SearchMemory {
  private readonly flags: EmailFlags;
  private readonly lists = new Map<string, MatchList>();
  private rowsKept = 0;
  /** The flags' generation the lists were read at. */
  private generation = -1;

  constructor(
    db: Database.Database,
    private readonly sql: Statements,
    private readonly limits: SearchMemoryLimits = SEARCH_MEMORY_LIMITS,
  ) {
    this.flags = new EmailFlags(db, sql, limits);
  }

  /**
   * The rowids of the newest plan's page, newest first: up to `rows` matches of `match` (with
   * no `match`, emails) in the filter's mailbox that pass its folder, read and starred (no
   * other filter may be given); undefined inside a transaction, or past the budgets.
   */
  page(filter: EmailFilter, match: string | undefined, rows: number): number[] | undefined {
    if (!this.flags.sync()) return undefined;
    const box = this.flags.mailbox(filter.mailbox);
    if (box === undefined) return [];
    let mask = 0;
    let value = 0;
    if (filter.folder !== undefined) {
      const code = FOLDER_CODES[filter.folder];
      if (code === undefined) return undefined;
      mask |= FOLDER_BITS;
      value |= code;
    }
    if (filter.read !== undefined) {
      mask |= READ;
      if (filter.read) value |= READ;
    }
    if (filter.starred !== undefined) {
      mask |= STARRED;
      if (filter.starred) value |= STARRED;
    }
    const kept: number[] = [];
    if (match === undefined) {
      // The mailbox's emails newest stored first, through its own rowids.
      const rowids = this.flags.rowidsIn(box);
      for (let i = rowids.length - 1; i >= 0 && kept.length < rows; i -= 1) {
        if (rowids.length - i > this.limits.scanBudget) return undefined;
        const seq = rowids[i] as number;
        const flags = this.flags.flagsIn(seq, box);
        if (flags < 0 || (flags & mask) !== value) continue;
        kept.push(seq);
      }
      return kept;
    }
    const list = this.listOf(match);
    let read = 0;
    let chunk = rows * this.limits.chunk;
    for (let i = 0; kept.length < rows; i += 1) {
      if (i === list.rows.length) {
        if (list.complete) break;
        if (read >= this.limits.readBudget) return undefined;
        read += this.readBelow(list, match, chunk);
        chunk *= 2;
        i -= 1;
        continue;
      }
      if (i >= this.limits.scanBudget) return undefined;
      const flags = this.flags.flagsIn(list.rows[i] as number, box);
      if (flags < 0 || (flags & mask) !== value) continue;
      kept.push(list.rows[i] as number);
    }
    return kept;
  }

  /**
   * The newest plan's page as summary texts (SUMMARY_TEXT), newest first: `page`'s rowids, each
   * one's text kept from an earlier page where there is one, the others read by `read` (given
   * their rowids, descending, it answers each one's text and late flag in that order, as
   * page-query.ts's ROWS_AT reads them). Undefined where `page` is, or when one of the rows is
   * late (the page is another plan's, as the SQL newest plan decides). A page of kept texts
   * reads nothing from the database: the texts of emails written since are dropped, the log
   * naming them, before any is used.
   */
  summaryPage(
    filter: EmailFilter,
    match: string | undefined,
    rows: number,
    read: (rowids: number[]) => [string, number][],
  ): string[] | undefined {
    const seqs = this.page(filter, match, rows);
    if (seqs === undefined) return undefined;
    const { summaries } = this.flags;
    const texts: string[] = [];
    const missing: number[] = [];
    for (const seq of seqs) {
      const text = summaries.get(seq);
      if (text === undefined) missing.push(seq);
      texts.push(text as string);
    }
    if (missing.length === 0) return texts;
    const found = read(missing);
    // Every rowid the flags hold is an email's (they are current, outside a transaction).
    if (found.length !== missing.length) return undefined;
    for (const [, late] of found) if (late !== 0) return undefined;
    let m = 0;
    for (let i = 0; i < seqs.length; i += 1) {
      if (texts[i] !== undefined) continue;
      const text = (found[m] as [string, number])[0];
      this.flags.keepSummary(missing[m] as number, text);
      texts[i] = text;
      m += 1;
    }
    return texts;
  }

  /** The list of `match`, with the matches of mail stored since it was read. */
  private listOf(match: string): MatchList {
    if (this.generation !== this.flags.generation) {
      this.lists.clear();
      this.rowsKept = 0;
      this.generation = this.flags.generation;
    }
    const newest = this.flags.newest;
    let list = this.lists.get(match);
    if (list !== undefined && newest > list.high) {
      if (newest - list.high > this.limits.rereadAbove) {
        this.drop(match, list);
        list = undefined;
      } else {
        const above = this.sql
          .get(
            `SELECT rowid FROM emails_fts WHERE emails_fts MATCH @match
               AND rowid > CAST(@high AS INTEGER) AND rowid <= CAST(@newest AS INTEGER)
               ORDER BY rowid DESC`,
          )
          .pluck(true)
          .all({ match, high: list.high, newest }) as number[];
        list.rows = above.concat(list.rows);
        list.high = newest;
        this.rowsKept += above.length;
      }
    }
    if (list === undefined) {
      if (this.rowsKept > this.limits.maxRows || this.lists.size >= this.limits.maxLists) {
        this.lists.clear();
        this.rowsKept = 0;
      }
      list = { rows: [], high: newest, complete: false };
      this.lists.set(match, list);
    }
    return list;
  }

  /** Reads up to `count` more matches below the list's last; returns how many were read. */
  private readBelow(list: MatchList, match: string, count: number): number {
    const below = list.rows.length === 0 ? list.high + 1 : (list.rows.at(-1) as number);
    const more = this.sql
      .get(
        `SELECT rowid FROM emails_fts WHERE emails_fts MATCH @match
           AND rowid < CAST(@below AS INTEGER) ORDER BY rowid DESC LIMIT @count + 0`,
      )
      .pluck(true)
      .all({ match, below, count }) as number[];
    for (const row of more) list.rows.push(row);
    if (more.length < count) list.complete = true;
    this.rowsKept += more.length;
    return Math.max(more.length, 1);
  }

  /** What is kept, for tests: lists, the matches they hold, and summary texts. */
  kept(): { lists: number; rows: number; summaries: number } {
    return { lists: this.lists.size, rows: this.rowsKept, summaries: this.flags.summaries.size };
  }

  private drop(match: string, list: MatchList): void {
    this.lists.delete(match);
    this.rowsKept -= list.rows.length;
  }
}

/** The memory of each database (its statements), made at its first search. */
const MEMORIES = new WeakMap<Statements, SearchMemory>();

/**
 * The search memory of `sql`'s database; undefined inside a transaction before it is made (its
 * triggers, made there, would go with a rollback).
 */
export function searchMemory(sql: Statements): SearchMemory | undefined {
  let memory = MEMORIES.get(sql);
  if (memory === undefined) {
    if (sql.db.inTransaction) return undefined;
    memory = new SearchMemory(sql.db, sql);
    MEMORIES.set(sql, memory);
  }
  return memory;
}

/**
 * The page query of GET /emails (§4.2): newest first (receivedAt, then id; D-17), every filter
 * in one place, and with `q` (D-13) one of three plans that give the same rows: sort the
 * matches, read the mailbox through the newest matches, or through all of them
 * (domain/search.ts).
 */
import {
  rangeRows,
  readsNewest,
  searchPlan,
  SORT_BELOW,
  type MatchSample,
  type SearchPlan,
  type WalkShare,
} from '../domain/search.ts';
import type { EmailFilter, ListPosition } from '../domain/types.ts';
import type Database from 'better-sqlite3';
import { searchMemory, SUMMARY_TEXT } from './search-memory.ts';
import type { Statements } from './statements.ts';

/**
 * For tests: a search plan to use whatever the sample says, and how many of the mailbox's
 * newest emails the range plan takes its matches among (domain/search.ts, rangeRows).
 */
export interface SearchTuning {
  plan?: SearchPlan;
  rangeRows?: number;
  /** Told the plan whose rows a page is: the one asked for, or the filter plan after a range. */
  answeredBy?: (plan: SearchPlan) => void;
  /**
   * false: the newest plan reads its matches and their flags from the database, never from
   * memory (search-memory.ts), as before it.
   */
  memory?: boolean;
}

/**
 * How a page's rows reach JavaScript: as objects (false), as arrays (true), or as their first
 * column's values alone ('first': no array or object a row).
 */
export type RowShape = boolean | 'first';

/** A page's rows, up to limit + 1. */
export interface PageQuery {
  run: (shape: RowShape) => unknown[];
}

/** `statement` set to give rows of `shape` (better-sqlite3 keeps the mode on the statement). */
function shaped(statement: Database.Statement, shape: RowShape): Database.Statement {
  if (shape === 'first') return statement.pluck(true);
  return shape ? statement.raw(true) : statement.raw(false).pluck(false);
}

/**
 * A bound LIMIT as SQLite keeps a plan for. A bare parameter there (`LIMIT @limit`) is read by
 * SQLite's planner, which marks the statement to be prepared again whenever that parameter is
 * bound: better-sqlite3 binds every parameter on every run, so each page query was parsed and
 * planned anew on each request (about 30 µs a plain page, 100 µs a search's). As an
 * expression (`@limit + 0`) the value is read only when the statement runs; the plans are the
 * same for every limit (EXPLAIN QUERY PLAN, the bench's 10,000-email mailbox).
 */
const limitOf = (parameter: string) => `LIMIT ${parameter} + 0`;

/** Newest first, ties by id (D-17), a page's rows: every plan of a page ends so. */
const NEWEST_FIRST = `ORDER BY e.received_at DESC, e.id DESC ${limitOf('@limit')}`;

/** The email is one of the search's matches (D-13). */
const IS_MATCH = 'e.seq IN (SELECT rowid FROM emails_fts WHERE emails_fts MATCH @match)';

/** The newest matches in rowid order, to choose a search plan by (MatchSample). */
const SAMPLE_MATCHES = `SELECT count(*) AS found, coalesce(min(rowid), 0) AS oldestSampled,
    (SELECT coalesce(max(seq), 0) FROM emails) AS newestRowid
  FROM (SELECT rowid FROM emails_fts WHERE emails_fts MATCH @match ORDER BY rowid DESC ${limitOf('@cap')})`;

/**
 * The page query with `columns`: `run` reads its rows (up to limit + 1). One place for every
 * filter; with `q`, one of three plans that give the same rows (domain/search.ts, searchPlan).
 */
export function pageQuery(
  sql: Statements,
  tuning: SearchTuning,
  columns: string,
  filter: EmailFilter,
  limit: number,
  after?: ListPosition,
): PageQuery {
  const where = ['e.mailbox = @mailbox'];
  const params: Record<string, string | number> = { mailbox: filter.mailbox, limit: limit + 1 };
  // The same mailbox, folder, read and starred, for the newest plan read from memory.
  const flags: EmailFilter = { mailbox: filter.mailbox };
  if (filter.folder !== undefined) {
    where.push('e.folder = @folder');
    params.folder = flags.folder = filter.folder;
  }
  if (filter.read !== undefined) {
    where.push('e.read = @read');
    params.read = filter.read ? 1 : 0;
    flags.read = filter.read;
  }
  if (filter.starred !== undefined) {
    where.push('e.starred = @starred');
    params.starred = filter.starred ? 1 : 0;
    flags.starred = filter.starred;
  }
  if (filter.fromContains !== undefined) {
    where.push('instr(e.from_search, @fromContains) > 0');
    params.fromContains = filter.fromContains;
  }
  if (filter.subjectContains !== undefined) {
    where.push('instr(e.subject_search, @subjectContains) > 0');
    params.subjectContains = filter.subjectContains;
  }
  if (filter.receivedFrom !== undefined) {
    where.push('e.received_at >= @receivedFrom');
    params.receivedFrom = filter.receivedFrom;
  }
  if (filter.receivedBefore !== undefined) {
    where.push('e.received_at < @receivedBefore');
    params.receivedBefore = filter.receivedBefore;
  }
  // What else a page asks of an email besides its mailbox (and where the page starts).
  const others = where.slice(1);
  if (after !== undefined) {
    where.push('(e.received_at < @afterAt OR (e.received_at = @afterAt AND e.id < @afterId))');
    params.afterAt = after.receivedAt;
    params.afterId = after.id;
  }
  const filters = where.join(' AND ');
  const rows = (query: string, shape: RowShape, extra: Record<string, string | number> = {}) =>
    shaped(sql.get(query), shape).all({ ...params, ...extra });
  const { match } = filter;
  // The newest plan from memory: a first page filtered by folder, read and starred only.
  const flagsOnly =
    after === undefined &&
    filter.fromContains === undefined &&
    filter.subjectContains === undefined &&
    filter.receivedFrom === undefined &&
    filter.receivedBefore === undefined
      ? flags
      : undefined;
  if (match === undefined)
    return {
      run: (shape) => {
        // A first page of summary texts is the newest plan's too, from memory when it can tell
        // (search-memory.ts): its emails newest stored first, the texts kept from earlier pages.
        if (
          flagsOnly !== undefined &&
          shape === 'first' &&
          columns === SUMMARY_TEXT &&
          tuning.memory !== false &&
          (tuning.plan === undefined || tuning.plan === 'newest')
        ) {
          const page = memoryPage(sql, columns, flagsOnly, undefined, limit + 1, shape);
          if (page !== undefined) {
            tuning.answeredBy?.('newest');
            return page;
          }
        }
        return rows(`SELECT ${columns} FROM emails e WHERE ${filters} ${NEWEST_FIRST}`, shape);
      },
    };
  return {
    run: (shape) =>
      searchPage(
        sql,
        tuning,
        columns,
        filters,
        params,
        match,
        limit + 1,
        shape,
        rows,
        (newestRowid) => walkShare(sql, filter, others, params, newestRowid),
        after === undefined,
        flagsOnly,
      ),
  };
}

/** The highest rowid of any email: it changes whenever mail is stored. */
const NEWEST_ROWID = 'SELECT coalesce(max(seq), 0) FROM emails';

/** Samples kept per database (its statements), by MATCH expression. */
const SAMPLES = new WeakMap<Statements, Map<string, MatchSample>>();
const MAX_SAMPLES = 512;

/**
 * The sample of a search's matches, kept until new mail is stored: the next page of the same
 * search, or the same words with other filters, reads it from memory instead of from the
 * full-text index (about a fifth of a search page's CPU over the bench's 10,000-email mix). It
 * only picks a plan, and every plan gives the same rows, so a sample from before a deletion or
 * a move costs time at most, never a row.
 */
function sampleOf(sql: Statements, match: string): MatchSample {
  let kept = SAMPLES.get(sql);
  if (kept === undefined) {
    kept = new Map();
    SAMPLES.set(sql, kept);
  }
  const newestRowid = sql.get(NEWEST_ROWID).pluck(true).get() as number;
  const known = kept.get(match);
  if (known !== undefined && known.newestRowid === newestRowid) return known;
  const sample = sql.get(SAMPLE_MATCHES).get({ match, cap: SORT_BELOW }) as MatchSample;
  if (kept.size >= MAX_SAMPLES) kept.clear();
  kept.set(match, sample);
  return sample;
}

/** A walk through the whole mailbox, every email passing: a page with no other filter. */
const WHOLE_MAILBOX: WalkShare = { within: 1, passing: 1 };

/** How many of a mailbox's newest emails estimate the share that pass a page's other filters. */
const PROBED = 200;

/** Shares kept per database (its statements), by mailbox and filters. */
const SHARES = new WeakMap<Statements, Map<string, { newestRowid: number; share: WalkShare }>>();

/**
 * How a search's walk through the mailbox goes (domain/search.ts, searchPlan), estimated from
 * the mailbox's PROBED newest emails, read from the list index alone when only folder, read
 * and starred are asked: the share of the mailbox the walk's index holds (`within`: the
 * folder's, with a folder, as a folder is walked through its own index), and the share of
 * those that pass the page's other filters (`passing`: read, starred, sender, subject, dates).
 * Kept until new mail is stored (`newestRowid`, the sample's, read just before), like the
 * sample: a PATCH or a deletion changes it a little, and it only picks a plan, never a row.
 */
function walkShare(
  sql: Statements,
  filter: EmailFilter,
  others: string[],
  params: Record<string, string | number>,
  newestRowid: number,
): WalkShare {
  let kept = SHARES.get(sql);
  if (kept === undefined) {
    kept = new Map();
    SHARES.set(sql, kept);
  }
  const key = `${others.join(' AND ')}\n${JSON.stringify([filter.mailbox, filter.folder, filter.read, filter.starred, filter.fromContains, filter.subjectContains, filter.receivedFrom, filter.receivedBefore])}`;
  const known = kept.get(key);
  if (known !== undefined && known.newestRowid === newestRowid) return known.share;
  const columns = ['e.seq', 'e.folder', 'e.read', 'e.starred', 'e.received_at'];
  if (filter.fromContains !== undefined) columns.push('e.from_search');
  if (filter.subjectContains !== undefined) columns.push('e.subject_search');
  const inFolder = filter.folder === undefined ? '1' : 'e.folder = @folder';
  const { probed, held, passing, oldest } = sql
    .get(
      `SELECT count(*) AS probed, coalesce(sum(${inFolder}), 0) AS held,
         coalesce(sum(${others.length === 0 ? '1' : others.join(' AND ')}), 0) AS passing,
         coalesce(min(e.seq), 0) AS oldest
       FROM (SELECT ${columns.join(', ')} FROM emails e WHERE e.mailbox = @mailbox
         ${NEWEST_FIRST.replace(limitOf('@limit'), limitOf('@probed'))}) e`,
    )
    .get({ ...params, probed: PROBED }) as {
    probed: number;
    held: number;
    passing: number;
    oldest: number;
  };
  // None among those probed: rarer than one in twice as many. An empty mailbox keeps no match.
  const share: WalkShare =
    probed === 0
      ? { within: 1, passing: 1, kept: 0 }
      : {
          within: Math.max(held, 0.5) / probed,
          passing: Math.max(passing, 0.5) / Math.max(held, 1),
          kept: Math.max(passing, 0.5) / Math.max(1, newestRowid - oldest + 1),
        };
  if (kept.size >= MAX_SAMPLES) kept.clear();
  kept.set(key, { newestRowid, share });
  return share;
}

/** The rows of a page with `q`, by the plan searchPlan picks (or the tests force). */
function searchPage(
  sql: Statements,
  tuning: SearchTuning,
  columns: string,
  filters: string,
  params: Record<string, string | number>,
  match: string,
  pageRows: number,
  shape: RowShape,
  rows: (sql: string, shape: RowShape, extra?: Record<string, string | number>) => unknown[],
  walk: (newestRowid: number) => WalkShare,
  fromNewest: boolean,
  flagsOnly: EmailFilter | undefined,
): unknown[] {
  let plan = tuning.plan;
  let walkRows = tuning.rangeRows;
  if (
    (plan === undefined || plan === 'newest') &&
    flagsOnly !== undefined &&
    tuning.memory !== false
  ) {
    const page = memoryPage(sql, columns, flagsOnly, match, pageRows, shape);
    if (page !== undefined) {
      tuning.answeredBy?.('newest');
      return page;
    }
  }
  if (plan === 'newest') {
    const page = newestPage(columns, filters, shape, rows, match);
    if (page !== undefined) {
      tuning.answeredBy?.('newest');
      return page;
    }
    plan = undefined;
  }
  if (plan === undefined || (plan === 'range' && walkRows === undefined)) {
    const sample = sampleOf(sql, match);
    // The other filters matter only to a choice between plans that read more than the sample.
    const share = sample.found < SORT_BELOW ? WHOLE_MAILBOX : walk(sample.newestRowid);
    // A page after a cursor would read every newer match first: another plan.
    if (plan === undefined && fromNewest && readsNewest(sample, pageRows, share)) {
      const page = newestPage(columns, filters, shape, rows, match);
      if (page !== undefined) {
        tuning.answeredBy?.('newest');
        return page;
      }
    }
    plan ??= searchPlan(sample, pageRows, share);
    walkRows ??= rangeRows(sample, pageRows);
  }
  if (plan === 'sort') {
    tuning.answeredBy?.('sort');
    // Sorts the matches' keys only, then reads the page's rows: a sort of whole rows copies
    // every match's summary.
    return rows(
      `SELECT ${columns} FROM emails e WHERE e.seq IN (
           SELECT e.seq FROM emails e NOT INDEXED WHERE ${filters} AND ${IS_MATCH}
           ${NEWEST_FIRST})
         ${NEWEST_FIRST}`,
      shape,
      { match },
    );
  }
  if (plan === 'range') {
    const page = rangePage(sql, columns, filters, params, match, walkRows ?? 0, shape, rows);
    if (page !== undefined) {
      tuning.answeredBy?.('range');
      return page;
    }
  }
  tuning.answeredBy?.('filter');
  return rows(
    `SELECT ${columns} FROM emails e WHERE ${filters} AND ${IS_MATCH} ${NEWEST_FIRST}`,
    shape,
    { match },
  );
}

/**
 * The rows of the emails at the given rowids (a JSON array), in the order of the rowids,
 * descending, each with its late flag last.
 */
const ROWS_AT = (columns: string) =>
  `SELECT ${columns}, e.late FROM emails e WHERE e.seq IN (SELECT value FROM json_each(@seqs))
     ORDER BY e.seq DESC`;

/**
 * The newest plan's page with its rows chosen in memory (search-memory.ts): the same rows as
 * newestPage gives, read by their rowids (summary texts kept in memory, where it has them);
 * undefined where newestPage would give way, or where the memory cannot tell (inside a
 * transaction, or past its budgets). With no `match`, the newest plan over every email of the
 * mailbox: the page of the list query, by the same reasoning (late emails, migration 015).
 */
function memoryPage(
  sql: Statements,
  columns: string,
  filter: EmailFilter,
  match: string | undefined,
  pageRows: number,
  shape: RowShape,
): unknown[] | undefined {
  const memory = searchMemory(sql);
  if (shape === 'first' && columns === SUMMARY_TEXT)
    return memory?.summaryPage(
      filter,
      match,
      pageRows,
      (seqs) =>
        shaped(sql.get(ROWS_AT(columns)), true).all({ seqs: JSON.stringify(seqs) }) as [
          string,
          number,
        ][],
    );
  const seqs = memory?.page(filter, match, pageRows);
  if (seqs === undefined || seqs.length === 0) return seqs;
  return withoutLate(
    shaped(sql.get(ROWS_AT(columns)), shape === 'first' ? true : shape).all({
      seqs: JSON.stringify(seqs),
    }),
    shape,
  );
}

/**
 * The rowid (seq) from which the range plan reads matches: the lowest among the filtered
 * mailbox's `walkRows` newest emails, read from the mailbox's index alone; 0 for none.
 */
const RANGE_START = (filters: string) =>
  `SELECT coalesce(min(seq), 0) FROM (
     SELECT e.seq FROM emails e WHERE ${filters} ${NEWEST_FIRST.replace(limitOf('@limit'), limitOf('@walkRows'))})`;

/**
 * The range plan's page, or undefined when it cannot tell. The mailbox is read newest first
 * (through its index, as a page without `q`), keeping each email that is a match stored from
 * `@from` on, and each email stored before `@from`, marked by a last column of 0. The matches
 * from `@from` on are read from the full-text index's rowid range alone (a cast: FTS5 narrows
 * its read to a rowid bound only when the bound is an integer, and a JavaScript number is bound
 * as a real). While no email stored before `@from` is among the rows, every email the read
 * passed was either kept or no match, so the rows are the page, whether full or the mailbox's
 * last; one such email means a match stored earlier may belong to the page: undefined, and the
 * page is read by the filter plan.
 */
function rangePage(
  sql: Statements,
  columns: string,
  filters: string,
  params: Record<string, string | number>,
  match: string,
  walkRows: number,
  shape: RowShape,
  rows: (sql: string, shape: RowShape, extra?: Record<string, string | number>) => unknown[],
): unknown[] | undefined {
  const from = sql
    .get(RANGE_START(filters))
    .pluck(true)
    .get({ ...params, walkRows });
  const FROM = 'CAST(@from AS INTEGER)';
  const found = rows(
    `SELECT ${columns}, e.seq >= ${FROM} AS in_range FROM emails e WHERE ${filters}
       AND (e.seq < ${FROM} OR e.seq IN (
         SELECT rowid FROM emails_fts WHERE emails_fts MATCH @match AND rowid >= ${FROM}))
       ${NEWEST_FIRST}`,
    // The first column alone is read as arrays: the last column says whether a row is in range.
    shape === 'first' ? true : shape,
    { match, from: from as number },
  );
  for (const row of found) {
    const inRange =
      shape !== false ? (row as unknown[]).pop() : (row as Record<string, unknown>).in_range;
    if (shape === false) delete (row as Record<string, unknown>).in_range;
    if (inRange !== 1) return undefined;
  }
  return shape === 'first' ? found.map((row) => (row as unknown[])[0]) : found;
}

/**
 * The newest plan's page, or undefined when it cannot tell (domain/search.ts): the newest
 * matches in the order mail was stored (the full-text index's rowid, descending; CROSS JOIN
 * keeps the index the outer loop), each email's row read and kept while it passes the page's
 * filters, up to the page's rows. While none of the rows is late (migration 015: stored after
 * an email of its mailbox newer than it), every email stored before the last row is older than
 * each row (an earlier one newer than a row would make that row late), so the rows are the
 * page, newest first: the newest-first order and the stored order agree among them. One late
 * row and the page is read by another plan.
 */
function newestPage(
  columns: string,
  filters: string,
  shape: RowShape,
  rows: (sql: string, shape: RowShape, extra?: Record<string, string | number>) => unknown[],
  match: string,
): unknown[] | undefined {
  const found = rows(
    `SELECT ${columns}, e.late FROM emails_fts f CROSS JOIN emails e ON e.seq = f.rowid
       WHERE f.emails_fts MATCH @match AND ${filters} ORDER BY f.rowid DESC ${limitOf('@limit')}`,
    // The first column alone is read as arrays: the last column says whether a row is late.
    shape === 'first' ? true : shape,
    { match },
  );
  return withoutLate(found, shape);
}

/**
 * The newest plan's rows (read with their late flag last; as arrays for the 'first' shape)
 * without that flag, or undefined when one of them is late: the page is another plan's.
 */
function withoutLate(found: unknown[], shape: RowShape): unknown[] | undefined {
  for (const row of found) {
    const late = shape !== false ? (row as unknown[]).pop() : (row as Record<string, unknown>).late;
    if (shape === false) delete (row as Record<string, unknown>).late;
    if (late !== 0) return undefined;
  }
  return shape === 'first' ? found.map((row) => (row as unknown[])[0]) : found;
}

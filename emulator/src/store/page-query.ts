/**
 * The page query of GET /emails (§4.2): newest first (receivedAt, then id; D-17), every filter
 * in one place, and with `q` (D-13) one of three plans that give the same rows: sort the
 * matches, walk the mailbox newest first, or filter by the index (domain/search.ts).
 */
import { searchPlan, SORT_BELOW, type MatchSample, type SearchPlan } from '../domain/search.ts';
import type { EmailFilter, ListPosition } from '../domain/types.ts';
import type { Statements } from './statements.ts';

/**
 * For tests: a search plan to use whatever the sample says, how many emails a walk reads at
 * most, and whether a walk that ends short gives way to the filter plan.
 */
export interface SearchTuning {
  plan?: SearchPlan;
  walkRows: number;
  fallBack: boolean;
}

/** A page's rows, up to limit + 1 (`raw`: as arrays), and the key its result is cached under. */
export interface PageQuery {
  key: string;
  run: (raw: boolean) => unknown[];
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
 * The page query with `columns`: `run` reads its rows (up to limit + 1), `key` names its
 * result. One place for every filter; with `q`, one of three plans that give the same rows
 * (domain/search.ts, searchPlan).
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
  if (filter.folder !== undefined) {
    where.push('e.folder = @folder');
    params.folder = filter.folder;
  }
  if (filter.read !== undefined) {
    where.push('e.read = @read');
    params.read = filter.read ? 1 : 0;
  }
  if (filter.starred !== undefined) {
    where.push('e.starred = @starred');
    params.starred = filter.starred ? 1 : 0;
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
  if (after !== undefined) {
    where.push('(e.received_at < @afterAt OR (e.received_at = @afterAt AND e.id < @afterId))');
    params.afterAt = after.receivedAt;
    params.afterId = after.id;
  }
  const filters = where.join(' AND ');
  const key = `${columns}\n${filters}\n${JSON.stringify([filter.match, params])}`;
  const rows = (query: string, raw: boolean, extra: Record<string, string | number> = {}) =>
    sql
      .get(query)
      .raw(raw)
      .all({ ...params, ...extra });
  const { match } = filter;
  if (match === undefined)
    return {
      key,
      run: (raw) => rows(`SELECT ${columns} FROM emails e WHERE ${filters} ${NEWEST_FIRST}`, raw),
    };
  return {
    key,
    run: (raw) => searchPage(sql, tuning, columns, filters, match, limit + 1, raw, rows),
  };
}

/** The rows of a page with `q`, by the plan searchPlan picks (or the tests force). */
function searchPage(
  sql: Statements,
  tuning: SearchTuning,
  columns: string,
  filters: string,
  match: string,
  pageRows: number,
  raw: boolean,
  rows: (sql: string, raw: boolean, extra?: Record<string, string | number>) => unknown[],
): unknown[] {
  const plan =
    tuning.plan ??
    searchPlan(sql.get(SAMPLE_MATCHES).get({ match, cap: SORT_BELOW }) as MatchSample, pageRows);
  if (plan === 'sort')
    // Sorts the matches' keys only, then reads the page's rows: a sort of whole rows copies
    // every match's summary.
    return rows(
      `SELECT ${columns} FROM emails e WHERE e.seq IN (
           SELECT e.seq FROM emails e NOT INDEXED WHERE ${filters} AND ${IS_MATCH}
           ${NEWEST_FIRST})
         ${NEWEST_FIRST}`,
      raw,
      { match },
    );
  if (plan === 'walk') {
    // The inner query yields the mailbox newest first, one row at a time, and stops the walk
    // after walkRows rows: a term common overall may still be rare in this mailbox.
    const walk = NEWEST_FIRST.replace(limitOf('@limit'), limitOf('@walkRows'));
    const walked = rows(
      `SELECT ${columns} FROM (SELECT * FROM emails e WHERE ${filters} ${walk}) e
         WHERE EXISTS (SELECT 1 FROM emails_fts WHERE emails_fts MATCH @match AND rowid = e.seq)
         ${NEWEST_FIRST}`,
      raw,
      { match, walkRows: tuning.walkRows },
    );
    // A full page is the answer; a short one may only mean the walk stopped early.
    if (walked.length === pageRows || !tuning.fallBack) return walked;
  }
  return rows(
    `SELECT ${columns} FROM emails e WHERE ${filters} AND ${IS_MATCH} ${NEWEST_FIRST}`,
    raw,
    { match },
  );
}

/**
 * D-13: `q` is split into words on anything that is not a letter or digit; every word must
 * match a whole word (case- and accent-insensitively, as FTS5's unicode61 tokenizer folds them);
 * a word written with a trailing `*` matches as a prefix. Each word is quoted in the FTS5
 * expression, so no input can inject FTS5 syntax.
 */
export interface SearchWord {
  word: string;
  prefix: boolean;
}

const WORD = /([\p{L}\p{N}\p{Co}]+)(\*)?/gu;

export function searchWords(q: string): SearchWord[] {
  return [...q.matchAll(WORD)].map((m) => ({ word: m[1] ?? '', prefix: m[2] === '*' }));
}

/** The FTS5 MATCH expression for the words (implicit AND), or undefined when there are none. */
export function ftsMatchExpression(q: string): string | undefined {
  const words = searchWords(q);
  if (words.length === 0) return undefined;
  return words.map(({ word, prefix }) => `"${word}"${prefix ? '*' : ''}`).join(' ');
}

/**
 * How the store finds a page of search results, newest first (page-query.ts):
 * - `sort`: few emails match at all, so all of them are read and sorted;
 * - `range`: the mailbox is read newest first through the matches among the newest emails
 *   only: those stored no earlier than the oldest of the `rangeRows` emails a page is expected
 *   to read. An email stored earlier that the read reaches shows that the guess fell short, and
 *   the page is read again by `filter`;
 * - `filter`: the mailbox is read newest first through the set of every match.
 * All three give the same rows; only their cost differs, so the choice may rest on estimates.
 */
export type SearchPlan = 'sort' | 'range' | 'filter';

/**
 * Fewer matches than this are sorted (about 2 µs each: a row read and a sort); the sample reads
 * at most this many, so a sample that finds fewer has found them all.
 */
export const SORT_BELOW = 100;

/**
 * The newest matches by rowid (the order mail was stored in, which the newest-first order
 * mostly follows), at most SORT_BELOW of them: how many, the lowest rowid among them, and the
 * highest rowid of any email, to tell how densely matches fall where a page is read.
 */
export interface MatchSample {
  found: number;
  oldestSampled: number;
  newestRowid: number;
}

/**
 * The plan for a page of `rows` rows (the page and the one after, which says whether more
 * follow) with this sample of the matches. The filter plan reads every match (about
 * density × newestRowid of them); the range plan reads the mailbox's index about
 * rows / density deep, twice, and a few matches: it pays when the matches are many,
 * matches² > RANGE_COST × rows × emails.
 */
export function searchPlan(sample: MatchSample, rows: number): SearchPlan {
  if (sample.found < SORT_BELOW) return 'sort';
  const emails = Math.max(1, sample.newestRowid);
  const matches = density(sample) * emails;
  return matches * matches > RANGE_COST * rows * emails ? 'range' : 'filter';
}

/**
 * How much dearer the range plan's read of an email of the index is than the filter plan's
 * read of a match: measured over the bench's 10,000-email mailbox and its client mix, pages
 * compared in pairs in one process (scratch harness; issue 31): a term in 2,000 of the 10,000
 * emails costs the two plans alike, at 26 rows.
 */
export const RANGE_COST = 15;

function density(sample: MatchSample): number {
  return sample.found / Math.max(1, sample.newestRowid - sample.oldestSampled + 1);
}

/**
 * How many of the (filtered) mailbox's newest emails the range plan takes its matches among,
 * for a page of `rows` rows (the page and the one after, which says whether more follow): the
 * emails expected to hold `rows` matches at the sampled density, with a margin, so that a
 * page rarely has to be read again. Reading an email of the mailbox's index costs about
 * 0.1 µs, against tens of µs for reading a page again.
 */
export function rangeRows(sample: MatchSample, rows: number): number {
  const sampled = density(sample);
  // No match sampled: the whole mailbox (a finite bound, as SQLite's LIMIT takes).
  if (sampled === 0) return 2 ** 31;
  return Math.ceil((rows * RANGE_MARGIN) / sampled) + rows;
}

/** How many times the expected matches the range plan's emails are to hold. */
export const RANGE_MARGIN = 1.5;

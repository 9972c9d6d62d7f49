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
 * - `newest`: the newest matches in the order mail was stored (the full-text index's rowid),
 *   each email's row read until the page is full: the page itself where none of its rows was
 *   stored after an email newer than it (a "late" email, migration 015); else another plan;
 * - `sort`: few emails match at all, so all of them are read and sorted;
 * - `range`: the mailbox is read newest first through the matches among the newest emails
 *   only: those stored no earlier than the oldest of the `rangeRows` emails a page is expected
 *   to read. An email stored earlier that the read reaches shows that the guess fell short, and
 *   the page is read again by `filter`;
 * - `filter`: the mailbox is read newest first through the set of every match.
 * All three give the same rows; only their cost differs, so the choice may rest on estimates.
 */
export type SearchPlan = 'newest' | 'sort' | 'range' | 'filter';

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
 * How a search's walk through the mailbox newest first goes: the share of the mailbox's emails
 * the index it walks holds (`within`: a folder's, as a folder has its own), and the share of
 * those that pass the page's other filters (`passing`: read, starred, sender, subject, dates).
 */
export interface WalkShare {
  within: number;
  passing: number;
  /**
   * The share of the newest emails stored (by rowid, all mailboxes) that are the mailbox's and
   * pass the page's other filters: the share of matches the newest plan keeps (1 if not known).
   */
  kept?: number;
}

/**
 * Whether the newest plan is expected to read a page more cheaply than the filter plan: it
 * reads a match's row (SORT_COST times a walked email) for each of the newest matches until
 * `rows` of them pass (rows / kept), or all of them; the filter plan reads every match
 * (MATCH_READ_COST each) and walks the mailbox until the page is full. With fewer than
 * SORT_BELOW matches it reads at most those rows, as the sort plan would, without the sort.
 */
export function readsNewest(
  sample: MatchSample,
  rows: number,
  walk: WalkShare = { within: 1, passing: 1 },
): boolean {
  if (sample.found < SORT_BELOW) return true;
  const emails = Math.max(1, sample.newestRowid);
  const matches = density(sample) * emails;
  const read = Math.min(matches, rows / Math.max(walk.kept ?? 1, 1 / emails));
  const passing = density(sample) * walk.passing;
  const walked = Math.min(emails * walk.within, rows / Math.max(passing, 1 / emails));
  return read * SORT_COST <= matches * MATCH_READ_COST + walked;
}

/**
 * How much dearer the filter plan's read of a match (FTS5's doclist, kept in the set the
 * mailbox is walked through) is than a walked email: about 0.1 µs against 0.035 µs over the
 * bench's 10,000-email mailbox (issue 31 item 1).
 */
export const MATCH_READ_COST = 3;

/**
 * The plan for a page of `rows` rows (the page and the one after, which says whether more
 * follow) with this sample of the matches and this walk (WalkShare). The filter plan reads
 * every match (about density × newestRowid of them) and walks the mailbox until the page is
 * full: rows / (density × passing) emails, or all the index holds; the sort plan reads each
 * match's row, SORT_COST times a walked email: it pays when the walk is long,
 * matches × SORT_COST < walked, as when few matches pass the other filters and the page never
 * fills. The range plan walks the (filtered) mailbox about rows / density deep, twice, and
 * reads a few matches: it pays when the matches are many, matches² > RANGE_COST × rows ×
 * emails (the other filters lengthen its walk and the filter plan's alike).
 */
export function searchPlan(
  sample: MatchSample,
  rows: number,
  walk: WalkShare = { within: 1, passing: 1 },
): SearchPlan {
  if (sample.found < SORT_BELOW) return 'sort';
  const emails = Math.max(1, sample.newestRowid);
  const matches = density(sample) * emails;
  const passing = density(sample) * walk.passing;
  const walked = Math.min(emails * walk.within, rows / Math.max(passing, 1 / emails));
  if (matches * SORT_COST < walked) return 'sort';
  return matches * matches > RANGE_COST * rows * emails ? 'range' : 'filter';
}

/**
 * How much dearer the sort plan's read of a match (its row looked up, kept, sorted) is than
 * the filter plan's walk over an email of the mailbox's index: measured over the bench's
 * 10,000-email mailbox, searches whose page never fills (a word in 900 emails, unread and
 * starred: sort 477 µs, filter 991 µs) and one that fills (a word in 2,322 emails, read and
 * starred: sort 892 µs, filter 540 µs), forced plans side by side (issue 31 item 1).
 */
export const SORT_COST = 8;

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

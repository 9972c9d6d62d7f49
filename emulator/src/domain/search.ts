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
 * How the store finds a page of search results, newest first (email-store.ts):
 * - `sort`: few emails match at all, so all of them are read and sorted;
 * - `walk`: most emails match, so the mailbox is read newest first and each email is looked up
 *   in the index until the page is full (the walk reads at most WALK_ROWS emails, then gives
 *   way to `filter`);
 * - `filter`: in between, the matches are gathered into a set and the mailbox read newest
 *   first through it.
 * All three give the same rows; only their cost differs, so the choice may rest on estimates.
 */
export type SearchPlan = 'sort' | 'walk' | 'filter';

/**
 * Fewer matches than this are sorted: reading and sorting them costs about 1 µs each, while
 * the filter plan, for matches this few, may read the whole mailbox (about 0.1 µs an email).
 */
export const SORT_BELOW = 500;

/** A walk looks up at most this many emails (a lookup costs tens of µs: one seek per segment). */
export const WALK_ROWS = 120;

/**
 * The newest matches by rowid (the order mail was stored in, which the walk's newest-first order
 * mostly follows), at most SORT_BELOW of them: how many, the lowest rowid among them, and the
 * highest rowid of any email, to tell how densely matches fall where a walk would read.
 */
export interface MatchSample {
  found: number;
  oldestSampled: number;
  newestRowid: number;
}

/** The plan for a page of `rows` rows (the page and the one after, which says whether more follow). */
export function searchPlan(sample: MatchSample, rows: number): SearchPlan {
  if (sample.found < SORT_BELOW) return 'sort';
  const density = sample.found / Math.max(1, sample.newestRowid - sample.oldestSampled + 1);
  // Expected lookups rows / density, at most three quarters of the walk's rows: the density is
  // measured among the newest emails, where the walk reads, and a wrong guess costs one walk.
  const lookups = rows / density;
  if (lookups > (WALK_ROWS * 3) / 4) return 'filter';
  // The filter reads every match of the index, about density × newestRowid of them: fewer than
  // the lookups are worth, and reading them all is the cheaper plan.
  return lookups * LOOKUP_COST_IN_MATCHES <= density * sample.newestRowid ? 'walk' : 'filter';
}

/**
 * What one lookup of the walk costs in matches the filter reads: about 25 µs against 0.3 µs
 * (measured on 10,000 emails, `npm run bench -- mix`'s corpus). Without it a term in a third of
 * a 10,000-email mailbox was walked, about 80 lookups (2 ms), where its 3,300 matches are read
 * in 1 ms; at 100,000 emails such a term has ten times the matches, and the walk stays.
 */
export const LOOKUP_COST_IN_MATCHES = 80;

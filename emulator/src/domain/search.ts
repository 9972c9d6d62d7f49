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

/**
 * How much of a text body the full-text index holds (D-68, issue 27 item 1). FTS5 indexes a
 * row in one statement, on the thread that holds the database, and its cost grows with the
 * words it is given, more than linearly for distinct ones (a 4.9 MB body held the event loop
 * 0.1 to 25 s while every other request waited). A body is indexed up to a bound, so storing
 * any email takes bounded time; a word past it is not found by `q`.
 */

/** The text body is searched in about its first 100,000 characters (UTF-16 code units). */
export const SEARCHED_TEXT_CHARACTERS = 100_000;

/**
 * The part of `text` the index holds: all of it when it is short enough; else the text up to
 * its last whitespace character within the bound, so that no word is cut into a shorter one
 * that would match other searches (whitespace always separates the tokenizer's words); with no
 * whitespace in the bound, the bound itself.
 */
export function searchedText(text: string, bound = SEARCHED_TEXT_CHARACTERS): string {
  if (text.length <= bound) return text;
  // The last whitespace among the first bound + 1 characters: the bound's own end, if that is one.
  const lastSpace = /\s\S*$/.exec(text.slice(0, bound + 1));
  return text.slice(0, lastSpace === null ? bound : lastSpace.index);
}

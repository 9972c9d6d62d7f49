/**
 * A model of listing and search, simpler than any implementation: plain arrays, written from
 * the service document and spec/DECISIONS.md alone (it shares no code with the emulator).
 * Checks compare what a deployment answers with what this model says it should.
 */

export interface ModelAddress {
  address: string;
  name: string | null;
}

export interface ModelEmail {
  id: string;
  mailbox: string;
  folder: string;
  read: boolean;
  starred: boolean;
  from: ModelAddress;
  to: ModelAddress[];
  cc: ModelAddress[];
  subject: string;
  text: string;
  receivedAt: string;
}

/** The filters of `GET /emails` (§4.2), as the query string carries them. */
export interface ModelQuery {
  folder?: string;
  q?: string;
  from?: string;
  subject?: string;
  read?: boolean;
  starred?: boolean;
  dateFrom?: string;
  dateTo?: string;
}

/** D-13: case- and accent-insensitive comparison form of a word. */
export function fold(word: string): string {
  return word.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
}

/** D-13: words are runs of letters and digits. */
export function wordsOf(text: string): string[] {
  return (text.match(/[\p{L}\p{N}\p{Co}]+/gu) ?? []).map(fold);
}

function searchableWords(email: ModelEmail): string[] {
  const addresses = [email.from, ...email.to, ...email.cc].map(
    (a) => `${a.name ?? ''} ${a.address}`,
  );
  return wordsOf([email.subject, email.text, ...addresses].join(' '));
}

/** D-13: every query word matches a whole word, or a prefix when written with a trailing `*`. */
export function matchesQ(email: ModelEmail, q: string): boolean {
  const terms = [...q.matchAll(/([\p{L}\p{N}\p{Co}]+)(\*)?/gu)].map((m) => ({
    word: fold(m[1] ?? ''),
    prefix: m[2] === '*',
  }));
  const words = searchableWords(email);
  return terms.every(({ word, prefix }) =>
    words.some((w) => (prefix ? w.startsWith(word) : w === word)),
  );
}

/** D-14: case-insensitive substring of the sender's address or display name. */
function matchesFrom(email: ModelEmail, needle: string): boolean {
  const n = needle.toLowerCase();
  return (
    email.from.address.toLowerCase().includes(n) ||
    (email.from.name ?? '').toLowerCase().includes(n)
  );
}

/** D-18: a date-only bound means midnight UTC; everything compares as an instant. */
function instant(bound: string): number {
  return Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(bound) ? `${bound}T00:00:00Z` : bound);
}

export function matches(email: ModelEmail, query: ModelQuery): boolean {
  const at = Date.parse(email.receivedAt);
  return (
    (query.folder === undefined || email.folder === query.folder) &&
    (query.read === undefined || email.read === query.read) &&
    (query.starred === undefined || email.starred === query.starred) &&
    (query.subject === undefined ||
      email.subject.toLowerCase().includes(query.subject.toLowerCase())) &&
    (query.from === undefined || matchesFrom(email, query.from)) &&
    (query.dateFrom === undefined || at >= instant(query.dateFrom)) &&
    (query.dateTo === undefined || at < instant(query.dateTo)) &&
    (query.q === undefined || matchesQ(email, query.q))
  );
}

/** D-17: newest first by receivedAt, ties by id descending (code-unit order). */
export function newestFirst(a: ModelEmail, b: ModelEmail): number {
  const byTime = Date.parse(b.receivedAt) - Date.parse(a.receivedAt);
  if (byTime !== 0) return byTime;
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}

/**
 * The rule that says how each filter selects: exact folder, read and starred filters are the
 * document's (§4.2); what q, from, subject and the date bounds match is decided (D-13, D-14,
 * D-18), and a deployment may have decided otherwise.
 */
export const FILTER_RULES: Record<keyof ModelQuery, string> = {
  folder: '4.2-R2',
  read: '4.2-R6',
  starred: '4.2-R7',
  q: 'D-13',
  from: 'D-14',
  subject: 'D-14',
  dateFrom: 'D-18',
  dateTo: 'D-18',
};

const filtersOf = (query: ModelQuery) =>
  (Object.keys(query) as (keyof ModelQuery)[]).filter((name) => query[name] !== undefined);

/**
 * The one rule a listing that differs from the model breaks, for an email it listed that the
 * model leaves out (`listed: true`) or left out that the model lists. One the model leaves out
 * fails some filters: a documented one among them if any (the deployment ignored it), else a
 * decided one. One the model lists passes every filter: if any filter's meaning is decided,
 * another deployment's meaning may leave it out; if none, the documented filter, or with no
 * filter at all the walk itself (4.2-R13), failed.
 */
export function ruleForDifference(email: ModelEmail, query: ModelQuery, listed: boolean): string {
  const names = filtersOf(query);
  const rules = listed
    ? names.filter((name) => !matches(email, { [name]: query[name] })).map((n) => FILTER_RULES[n])
    : names.map((n) => FILTER_RULES[n]);
  const documented = rules.find((r) => !r.startsWith('D-'));
  const decided = rules.find((r) => r.startsWith('D-'));
  if (listed) return documented ?? decided ?? '4.2-R13';
  return decided ?? documented ?? '4.2-R13';
}

/**
 * What a whole walk of `GET /emails` should return for this mailbox and query, in the order
 * D-17 fixes. The document fixes only newest-first across distinct times (§4.2): ties may come
 * in any order.
 */
export function expectedListing(
  emails: readonly ModelEmail[],
  mailbox: string,
  query: ModelQuery,
): ModelEmail[] {
  return emails.filter((e) => e.mailbox === mailbox && matches(e, query)).sort(newestFirst);
}

/** The query as `GET /emails` parameters. */
export function toParams(mailbox: string, query: ModelQuery): Record<string, string> {
  const params: Record<string, string> = { mailbox };
  for (const [name, value] of Object.entries(query))
    if (value !== undefined) params[name] = String(value);
  return params;
}

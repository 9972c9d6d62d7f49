import { createHash } from 'node:crypto';
import { ApiError, quoteForMessage } from '../errors.ts';
import { parseBooleanParam, parseTimestampParam } from './query-params.ts';
import { ftsMatchExpression } from './search.ts';
import { FOLDERS, type EmailFilter, type Folder, type ListPosition } from './types.ts';

export const DEFAULT_PAGE_SIZE = 25;
export const MAX_PAGE_SIZE = 100;

const KNOWN_PARAMS = new Set([
  'mailbox',
  'folder',
  'q',
  'from',
  'subject',
  'read',
  'starred',
  'dateFrom',
  'dateTo',
  'limit',
  'cursor',
]);

export interface ListQuery {
  filter: EmailFilter;
  limit: number;
  after: ListPosition | undefined;
  /** Binds cursors to the query they came from (D-16); computed when first read. */
  readonly fingerprint: string;
}

/**
 * The spec's `maxLength` of each parameter (D-53 to D-57), which the route checks first
 * (http/parameter-limits.ts); repeated here so the domain refuses them on its own too. `folder`
 * and `limit` have no `maxLength` in the spec: an enum and an integer, bounded here only so that
 * reading them stays cheap.
 */
const MAX_LENGTHS: Record<string, number> = {
  mailbox: 254,
  q: 500,
  from: 254,
  subject: 998,
  dateFrom: 35,
  dateTo: 35,
  cursor: 1024,
  folder: 32,
  limit: 64,
};

/**
 * Turns the query string of `GET /emails` (§4.2) into a validated filter, page size and
 * position. Every problem is a 400 naming the parameter (D-12).
 */
export function parseListQuery(params: Record<string, string[]>): ListQuery {
  for (const name in params) {
    if (!KNOWN_PARAMS.has(name)) {
      const shown = quoteForMessage(name);
      throw new ApiError('invalid_field', `Unknown query parameter "${shown}".`, name);
    }
    const values = params[name] as string[];
    if (values.length > 1) throw new ApiError('invalid_field', `Give "${name}" once.`, name);
    const max = MAX_LENGTHS[name] ?? 1024;
    // Characters are code points (D-9), as JSON Schema's maxLength counts them; a value of no
    // more UTF-16 units than that has no more code points either.
    const value = values[0] ?? '';
    if (value.length > max && [...value].length > max)
      throw new ApiError('invalid_field', `${name} is longer than ${max} characters.`, name);
  }
  const one = (name: string) => params[name]?.[0];

  const mailbox = one('mailbox');
  if (mailbox === undefined || mailbox === '')
    throw new ApiError('missing_field', 'mailbox is required.', 'mailbox');

  const filter: EmailFilter = { mailbox: mailbox.toLowerCase() };
  const folder = one('folder');
  if (folder !== undefined) {
    if (!(FOLDERS as readonly string[]).includes(folder)) {
      throw new ApiError(
        'invalid_folder',
        `Unknown folder "${quoteForMessage(folder)}"; use one of ${FOLDERS.join(', ')}.`,
        'folder',
      );
    }
    filter.folder = folder as Folder;
  }
  const q = one('q');
  if (q !== undefined) {
    const match = ftsMatchExpression(q);
    if (match === undefined)
      throw new ApiError('invalid_field', 'q has no word to search for.', 'q');
    filter.match = match;
  }
  for (const name of ['from', 'subject'] as const) {
    const value = one(name);
    if (value === undefined) continue;
    if (value === '') throw new ApiError('invalid_field', `${name} must not be empty.`, name);
    filter[name === 'from' ? 'fromContains' : 'subjectContains'] = value.toLowerCase();
  }
  for (const name of ['read', 'starred'] as const) {
    const value = one(name);
    if (value !== undefined) filter[name] = parseBooleanParam(name, value);
  }
  const dateFrom = one('dateFrom');
  const dateTo = one('dateTo');
  if (dateFrom !== undefined) filter.receivedFrom = parseTimestampParam('dateFrom', dateFrom);
  if (dateTo !== undefined) filter.receivedBefore = parseTimestampParam('dateTo', dateTo);
  if (
    filter.receivedFrom !== undefined &&
    filter.receivedBefore !== undefined &&
    filter.receivedBefore < filter.receivedFrom
  ) {
    throw new ApiError('invalid_field', 'dateTo must not be earlier than dateFrom.', 'dateTo');
  }

  const limit = parseLimit(one('limit'));
  // Hashed only when a cursor is read or made: most pages are read without one and have no next.
  const query = new ParsedListQuery(filter, limit);
  const cursor = one('cursor');
  query.after = cursor === undefined ? undefined : decodeCursor(cursor, query.fingerprint);
  return query;
}

/** A parsed query whose fingerprint is hashed only when a cursor is read or made for it. */
class ParsedListQuery implements ListQuery {
  after: ListPosition | undefined = undefined;
  private bound: string | undefined = undefined;

  constructor(
    readonly filter: EmailFilter,
    readonly limit: number,
  ) {}

  get fingerprint(): string {
    return (this.bound ??= fingerprintOf(this.filter));
  }
}

function parseLimit(raw: string | undefined): number {
  if (raw === undefined) return DEFAULT_PAGE_SIZE;
  if (!/^\d+$/.test(raw) || /^0+$/.test(raw)) {
    throw new ApiError('invalid_field', 'limit must be an integer from 1 to 100.', 'limit');
  }
  // Any integer above 100, however large, is the page-size limit's own refusal (D-15).
  const digits = raw.replace(/^0+/, '');
  if (digits.length > 3 || Number(digits) > MAX_PAGE_SIZE) {
    throw new ApiError('limit_too_large', `limit must be at most ${MAX_PAGE_SIZE}.`, 'limit');
  }
  return Number(digits);
}

/** Fingerprints of recent filters: a client pages and repeats a few, each hashed once. */
const fingerprints = new Map<string, string>();
const MAX_FINGERPRINTS = 1024;

function fingerprintOf(filter: EmailFilter): string {
  const canonical = JSON.stringify(Object.entries(filter).sort(([a], [b]) => (a < b ? -1 : 1)));
  let fingerprint = fingerprints.get(canonical);
  if (fingerprint === undefined) {
    fingerprint = createHash('sha256').update(canonical).digest('base64url').slice(0, 16);
    if (fingerprints.size >= MAX_FINGERPRINTS) fingerprints.clear();
    fingerprints.set(canonical, fingerprint);
  }
  return fingerprint;
}

/** An opaque cursor: the last item's position and the query's fingerprint (D-16). */
export function encodeCursor(position: ListPosition, fingerprint: string): string {
  return Buffer.from(
    JSON.stringify([position.receivedAt, position.id, fingerprint]),
    'utf8',
  ).toString('base64url');
}

function decodeCursor(cursor: string, fingerprint: string): ListPosition {
  const invalid = (why: string) =>
    new ApiError('invalid_cursor', `cursor is not valid: ${why}`, 'cursor');
  if (!/^[A-Za-z0-9_-]+$/.test(cursor)) throw invalid('pass back nextCursor unchanged.');
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalid('pass back nextCursor unchanged.');
  }
  const parts =
    Array.isArray(decoded) && decoded.every((p) => typeof p === 'string')
      ? (decoded as string[])
      : [];
  const [receivedAt, id, boundTo] = parts;
  if (
    parts.length !== 3 ||
    receivedAt === undefined ||
    id === undefined ||
    !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/.test(receivedAt)
  ) {
    throw invalid('pass back nextCursor unchanged.');
  }
  if (boundTo !== fingerprint)
    throw invalid('it belongs to a query with other mailbox or filters.');
  return { receivedAt, id };
}

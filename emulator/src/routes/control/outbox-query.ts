import { createHash } from 'node:crypto';
import { ApiError, quoteForMessage } from '../../errors.ts';
import type { OutboxFilter } from '../../store/outbox-store.ts';
import type { TenantService } from '../../services/tenant-service.ts';

/** The filters of the outbox's list and wait (D-71), each at most as long as its kind allows. */
const FILTERS = { tenant: 64, to: 254, from: 254, subject: 998, text: 500 } as const;

export interface OutboxQuery {
  filter: OutboxFilter;
  limit: number | undefined;
  afterSeq: number | undefined;
  fingerprint: string;
}

/**
 * Reads the query string of `GET /outbox` (and of `GET /wait/outbox`, whose `extra` names its
 * own parameters): `tenant` (the tenant's id: mail its mailboxes sent), `to`, `from`, `subject`,
 * `text` (case-insensitive substrings, as D-14), and for the list `limit` (1 to 100; every
 * entry when absent, as before) and `cursor` (bound to the filters, as D-16).
 */
export function parseOutboxQuery(
  params: Record<string, string[]>,
  tenants: TenantService,
  paging: boolean,
  extra: readonly string[] = [],
): OutboxQuery {
  const known = new Set<string>([...Object.keys(FILTERS), ...extra]);
  if (paging) known.add('limit').add('cursor');
  for (const [name, values] of Object.entries(params)) {
    if (!known.has(name))
      throw new ApiError(
        'invalid_field',
        `Unknown query parameter "${quoteForMessage(name)}".`,
        name,
      );
    if (values.length > 1) throw new ApiError('invalid_field', `Give "${name}" once.`, name);
  }
  const one = (name: string) => params[name]?.[0];
  const filter: OutboxFilter = {};
  // Every value is checked before the tenant is looked up: a bad value is a 400, never a 404.
  for (const [name, max] of Object.entries(FILTERS)) {
    const value = one(name);
    if (value === undefined) continue;
    if (value === '') throw new ApiError('invalid_field', `${name} must not be empty.`, name);
    if ([...value].length > max)
      throw new ApiError('invalid_field', `${name} is longer than ${max} characters.`, name);
  }
  for (const name of Object.keys(FILTERS)) {
    const value = one(name);
    if (value === undefined) continue;
    if (name === 'tenant') filter.senderDomain = tenants.get(value).domain;
    else filter[name as 'to' | 'from' | 'subject' | 'text'] = value.toLowerCase();
  }
  const fingerprint = createHash('sha256')
    .update(JSON.stringify(Object.entries(filter).sort(([a], [b]) => (a < b ? -1 : 1))))
    .digest('base64url')
    .slice(0, 16);
  let limit: number | undefined;
  const rawLimit = one('limit');
  if (rawLimit !== undefined) {
    if (!/^\d{1,3}$/.test(rawLimit) || Number(rawLimit) < 1 || Number(rawLimit) > 100)
      throw new ApiError('invalid_field', 'limit must be an integer from 1 to 100.', 'limit');
    limit = Number(rawLimit);
  }
  const cursor = one('cursor');
  let afterSeq: number | undefined;
  if (cursor !== undefined) {
    const invalid = (why: string) =>
      new ApiError('invalid_cursor', `cursor is not valid: ${why}`, 'cursor');
    let decoded: unknown;
    try {
      decoded = JSON.parse(Buffer.from(cursor.slice(0, 1024), 'base64url').toString('utf8'));
    } catch {
      throw invalid('pass back the next cursor unchanged.');
    }
    if (
      !Array.isArray(decoded) ||
      decoded.length !== 2 ||
      !Number.isSafeInteger(decoded[0]) ||
      typeof decoded[1] !== 'string'
    )
      throw invalid('pass back the next cursor unchanged.');
    if (decoded[1] !== fingerprint) throw invalid('it belongs to a query with other filters.');
    afterSeq = decoded[0] as number;
    limit ??= 100;
  }
  return { filter, limit, afterSeq, fingerprint };
}

export function encodeOutboxCursor(seq: number, fingerprint: string): string {
  return Buffer.from(JSON.stringify([seq, fingerprint]), 'utf8').toString('base64url');
}

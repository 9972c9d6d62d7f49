import { describe, expect, it } from 'vitest';
import { ApiError } from '../errors.ts';
import { encodeCursor, parseListQuery } from './list-query.ts';
import { parseTimestampParam } from './query-params.ts';
import { ftsMatchExpression, searchWords } from './search.ts';

const q = (params: Record<string, string>) =>
  parseListQuery(Object.fromEntries(Object.entries(params).map(([k, v]) => [k, [v]])));

function refusal(run: () => unknown): { code: string; field?: string } {
  try {
    run();
  } catch (error) {
    if (error instanceof ApiError)
      return { code: error.code, ...(error.field ? { field: error.field } : {}) };
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('GET /emails query parsing', () => {
  it('defaults to 25 per page and lower-cases the mailbox and substring filters', () => {
    const query = q({ mailbox: 'Alice@Acme.TEST', from: 'BOB', subject: 'Invoice' });
    expect(query.limit).toBe(25);
    expect(query.filter).toEqual({
      mailbox: 'alice@acme.test',
      fromContains: 'bob',
      subjectContains: 'invoice',
    });
  });

  it.each([
    [{}, 'missing_field', 'mailbox'],
    [{ mailbox: 'a@b.test', limit: '101' }, 'limit_too_large', 'limit'],
    [{ mailbox: 'a@b.test', limit: '0' }, 'invalid_field', 'limit'],
    [{ mailbox: 'a@b.test', limit: '2.5' }, 'invalid_field', 'limit'],
    [{ mailbox: 'a@b.test', folder: 'Inbox' }, 'invalid_folder', 'folder'],
    [{ mailbox: 'a@b.test', read: 'yes' }, 'invalid_field', 'read'],
    [{ mailbox: 'a@b.test', q: '*** ---' }, 'invalid_field', 'q'],
    [{ mailbox: 'a@b.test', dateFrom: '2026-02-30' }, 'invalid_field', 'dateFrom'],
    [
      { mailbox: 'a@b.test', dateFrom: '2026-10-02', dateTo: '2026-10-01' },
      'invalid_field',
      'dateTo',
    ],
    [{ mailbox: 'a@b.test', cursor: 'abc' }, 'invalid_cursor', 'cursor'],
    [{ mailbox: 'a@b.test', colour: 'red' }, 'invalid_field', 'colour'],
  ])('refuses %j with %s naming %s', (params, code, field) => {
    expect(refusal(() => q(params as Record<string, string>))).toEqual({ code, field });
  });

  it('accepts a cursor only with the filters it was made for (D-16)', () => {
    const first = q({ mailbox: 'a@b.test', folder: 'inbox' });
    const cursor = encodeCursor(
      { receivedAt: '2026-10-01T00:00:00.000Z', id: 'X' },
      first.fingerprint,
    );
    expect(q({ mailbox: 'a@b.test', folder: 'inbox', cursor, limit: '5' }).after).toEqual({
      receivedAt: '2026-10-01T00:00:00.000Z',
      id: 'X',
    });
    expect(refusal(() => q({ mailbox: 'a@b.test', folder: 'trash', cursor }))).toEqual({
      code: 'invalid_cursor',
      field: 'cursor',
    });
  });
});

describe('timestamps in query parameters (D-18)', () => {
  it.each([
    ['2026-10-01', '2026-10-01T00:00:00.000Z'],
    ['2026-10-01T10:00:00Z', '2026-10-01T10:00:00.000Z'],
    ['2026-10-01T12:00:00.123456+02:00', '2026-10-01T10:00:00.123Z'],
    ['2024-02-29', '2024-02-29T00:00:00.000Z'],
  ])('normalizes %s to %s', (raw, iso) => {
    expect(parseTimestampParam('dateFrom', raw)).toBe(iso);
  });

  it.each(['2026-10-01T10:00:00', '2023-02-29', '2026-13-01', 'yesterday', '2026-10-01T24:00:00Z'])(
    'refuses %s',
    (raw) => {
      expect(refusal(() => parseTimestampParam('dateTo', raw))).toEqual({
        code: 'invalid_field',
        field: 'dateTo',
      });
    },
  );
});

describe('free-text search (D-13)', () => {
  it('splits on anything but letters and digits, keeping a trailing * as a prefix', () => {
    expect(searchWords('café, "naïve"* naïv* q3-report*')).toEqual([
      { word: 'café', prefix: false },
      { word: 'naïve', prefix: false },
      { word: 'naïv', prefix: true },
      { word: 'q3', prefix: false },
      { word: 'report', prefix: true },
    ]);
  });

  it('quotes every word so input cannot inject FTS5 syntax', () => {
    expect(ftsMatchExpression('a OR b NEAR(c)')).toBe('"a" "OR" "b" "NEAR" "c"');
    expect(ftsMatchExpression('"')).toBeUndefined();
  });
});

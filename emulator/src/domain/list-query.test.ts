import { describe, expect, it } from 'vitest';
import { refusal } from '../test-helpers/refusal.ts';
import { encodeCursor, parseListQuery } from './list-query.ts';
import { parseTimestampParam } from './query-params.ts';
import { ftsMatchExpression, searchWords } from './search.ts';

const q = (params: Record<string, string>) =>
  parseListQuery(Object.fromEntries(Object.entries(params).map(([k, v]) => [k, [v]])));

/** Any JSON content, encoded as base64url like a nextCursor. */
const encodedLikeCursor = (content: unknown) =>
  Buffer.from(JSON.stringify(content), 'utf8').toString('base64url');

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
    [{ mailbox: '' }, 'missing_field', 'mailbox'],
    [{ mailbox: 'a@b.test', from: '' }, 'invalid_field', 'from'],
    [{ mailbox: 'a@b.test', subject: '' }, 'invalid_field', 'subject'],
    [{ mailbox: 'a@b.test', dateTo: 'yesterday' }, 'invalid_field', 'dateTo'],
    [{ mailbox: 'a@b.test', limit: '00' }, 'invalid_field', 'limit'],
    [{ mailbox: 'a@b.test', limit: '1000' }, 'limit_too_large', 'limit'],
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

  it('names the unknown folder and the five folders in the invalid_folder message, as the spec example shows', () => {
    expect(() => q({ mailbox: 'a@b.test', folder: 'later' })).toThrow(
      'Unknown folder "later"; use one of inbox, sent, archive, spam, trash.',
    );
  });

  it('refuses a parameter given twice (limit=5&limit=6) with invalid_field naming it', () => {
    expect(refusal(() => parseListQuery({ mailbox: ['a@b.test'], limit: ['5', '6'] }))).toEqual({
      code: 'invalid_field',
      field: 'limit',
    });
  });

  it.each([
    ['mailbox', 254, '😀'],
    ['q', 500, 'é'],
    ['from', 254, 'b'],
    ['subject', 998, '😀'],
  ])(
    'accepts %s of %i code points (D-9) and refuses one more with invalid_field naming it',
    (name, max, char) => {
      const params = (length: number) => ({ mailbox: 'a@b.test', [name]: char.repeat(length) });
      expect(() => q(params(max))).not.toThrow();
      expect(refusal(() => q(params(max + 1)))).toEqual({ code: 'invalid_field', field: name });
    },
  );

  it('accepts the longest date D-18 allows (35 code points, 9 fraction digits) and refuses a longer one for its length (D-56)', () => {
    const longest = '2026-11-01T00:00:00.123456789+01:00';
    expect(longest).toHaveLength(35);
    expect(q({ mailbox: 'a@b.test', dateFrom: longest, dateTo: longest }).filter).toMatchObject({
      receivedFrom: '2026-10-31T23:00:00.123Z',
    });
    for (const name of ['dateFrom', 'dateTo']) {
      expect(() => q({ mailbox: 'a@b.test', [name]: `${longest} ` })).toThrow(
        `${name} is longer than 35 characters.`,
      );
    }
  });

  it('refuses folder and cursor values over their maxLength as invalid_field, before reading them', () => {
    expect(refusal(() => q({ mailbox: 'a@b.test', folder: 'x'.repeat(33) }))).toEqual({
      code: 'invalid_field',
      field: 'folder',
    });
    expect(refusal(() => q({ mailbox: 'a@b.test', cursor: 'A'.repeat(1025) }))).toEqual({
      code: 'invalid_field',
      field: 'cursor',
    });
  });

  it('reads limit with leading zeros as its integer (007 is 7, 000100 is 100), up to 64 characters', () => {
    expect(q({ mailbox: 'a@b.test', limit: '007' }).limit).toBe(7);
    expect(q({ mailbox: 'a@b.test', limit: '05' }).limit).toBe(5);
    expect(q({ mailbox: 'a@b.test', limit: '000100' }).limit).toBe(100);
    expect(q({ mailbox: 'a@b.test', limit: `${'0'.repeat(63)}5` }).limit).toBe(5);
    expect(refusal(() => q({ mailbox: 'a@b.test', limit: `${'0'.repeat(64)}5` }))).toEqual({
      code: 'invalid_field',
      field: 'limit',
    });
  });

  it('filters on read and starred, each exactly true or false (D-19)', () => {
    expect(q({ mailbox: 'a@b.test', read: 'true', starred: 'false' }).filter).toEqual({
      mailbox: 'a@b.test',
      read: true,
      starred: false,
    });
  });

  it('accepts dateTo equal to dateFrom: an empty half-open range, not dateTo before dateFrom (D-18)', () => {
    expect(q({ mailbox: 'a@b.test', dateFrom: '2026-10-01', dateTo: '2026-10-01' }).filter).toEqual(
      {
        mailbox: 'a@b.test',
        receivedFrom: '2026-10-01T00:00:00.000Z',
        receivedBefore: '2026-10-01T00:00:00.000Z',
      },
    );
  });
});

describe('cursors (D-16)', () => {
  const query = { mailbox: 'a@b.test', folder: 'inbox' };
  const at = '2026-10-01T00:00:00.000Z';
  const cursor = encodeCursor({ receivedAt: at, id: 'X' }, q(query).fingerprint);
  /** The cursor's decoded content, changed by `edit`, encoded again the way it came. */
  const tampered = (edit: (content: unknown[]) => unknown) =>
    encodedLikeCursor(edit(JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'))));

  it('gives back the position of an unchanged cursor', () => {
    expect(q({ ...query, cursor }).after).toEqual({ receivedAt: at, id: 'X' });
  });

  it.each([
    ['after', `${cursor}!`],
    ['before', `!${cursor}`],
    ['(a space) after', `${cursor} `],
  ])(
    'refuses a cursor with a character outside base64url %s it: invalid_cursor naming cursor',
    (_, altered) => {
      expect(refusal(() => q({ ...query, cursor: altered }))).toEqual({
        code: 'invalid_cursor',
        field: 'cursor',
      });
    },
  );

  it.each([
    ['bytes that are not JSON', 'abc'],
    ['a JSON object', encodedLikeCursor({ receivedAt: at, id: 'X' })],
    ['JSON null', encodedLikeCursor(null)],
    ['a JSON number', encodedLikeCursor(42)],
    ['a non-string part', tampered(([t, , f]) => [t, 7, f])],
    ['a part added', tampered((parts) => [...parts, 'more'])],
    ['a part removed', tampered((parts) => parts.slice(0, 2))],
    ['text before the timestamp', tampered(([t, i, f]) => [`x${String(t)}`, i, f])],
    ['text after the timestamp', tampered(([t, i, f]) => [`${String(t)}x`, i, f])],
  ])('refuses a cursor altered to hold %s with invalid_cursor naming cursor', (_, altered) => {
    expect(refusal(() => q({ ...query, cursor: altered }))).toEqual({
      code: 'invalid_cursor',
      field: 'cursor',
    });
  });

  it.each([
    ['outside base64url', `${cursor}!`],
    ['not JSON', 'abc'],
    ['with a part added', tampered((parts) => [...parts, 'more'])],
  ])(
    'tells the client to pass back nextCursor unchanged when the cursor is %s (§4.2)',
    (_, altered) => {
      expect(() => q({ ...query, cursor: altered })).toThrow(/pass back nextCursor unchanged/);
    },
  );

  it('tells the client a cursor of other filters belongs to another query', () => {
    expect(() => q({ ...query, folder: 'trash', cursor })).toThrow(
      /belongs to a query with other mailbox or filters/,
    );
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

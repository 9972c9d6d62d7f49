import { describe, expect, it } from 'vitest';
import { refusal, refusalMessage } from '../test-helpers/refusal.ts';
import { parseBooleanParam, parseTimestampParam } from './query-params.ts';

describe('dateFrom and dateTo (D-18)', () => {
  it.each([
    ['2026-10-31', '2026-10-31T00:00:00.000Z'],
    ['2026-10-01T23:59:59Z', '2026-10-01T23:59:59.000Z'],
    ['2026-10-01t10:00:00z', '2026-10-01T10:00:00.000Z'],
    ['2026-10-01T00:30:00+01:00', '2026-09-30T23:30:00.000Z'],
    ['2026-10-01T10:00:00.9999999Z', '2026-10-01T10:00:00.999Z'],
    ['2000-02-29', '2000-02-29T00:00:00.000Z'],
    ['2024-10-31', '2024-10-31T00:00:00.000Z'],
    ['2026-01-31', '2026-01-31T00:00:00.000Z'],
    ['0001-01-01T00:00:00Z', '0001-01-01T00:00:00.000Z'],
    ['9999-12-31T23:59:59Z', '9999-12-31T23:59:59.000Z'],
  ])('takes %s as %s (sub-millisecond digits truncated, never rounded up)', (raw, iso) => {
    expect(parseTimestampParam('dateFrom', raw)).toBe(iso);
  });

  it.each([
    ['2026-10-00', 'day 0'],
    ['2026-00-10', 'month 0'],
    ['2026-04-31', 'April 31'],
    ['1900-02-29', 'February 29 of a century year that is not a leap year'],
    ['2023-02-29', 'February 29 of a common year'],
    ['2026-10-01T10:60:00Z', 'minute 60'],
    ['2026-10-01T10:00:60Z', 'second 60'],
    ['2026-10-01T10:00:00+24:00', 'an offset of 24 hours'],
    ['2026-10-01T10:00:00+05:60', 'an offset of 60 minutes'],
    ['+002026-10-01T10:00:00Z', 'an expanded year, which JavaScript reads but RFC 3339 has not'],
    ['+002026-10-01', 'an expanded year in a date'],
    ['2026-10-01T10:00Z', 'no seconds'],
    [' 2026-10-01', 'leading space'],
    ['2026-10-01T10:00:00Z ', 'trailing space'],
    ['0000-01-01T00:00:00+01:00', 'an instant before year 0000'],
    ['9999-12-31T23:59:59-01:00', 'an instant after year 9999'],
  ])('refuses %s (%s) with invalid_field naming the parameter and the accepted forms', (raw) => {
    const run = () => parseTimestampParam('dateTo', raw);
    expect(refusal(run)).toEqual({ code: 'invalid_field', field: 'dateTo' });
    expect(refusalMessage(run)).toBe(
      'dateTo must be an RFC 3339 date-time with a time zone (2026-11-01T00:00:00Z) or a date (2026-11-01).',
    );
  });
});

describe('read and starred (D-19)', () => {
  it('take exactly true and false', () => {
    expect(parseBooleanParam('read', 'true')).toBe(true);
    expect(parseBooleanParam('read', 'false')).toBe(false);
    expect(refusal(() => parseBooleanParam('starred', 'TRUE'))).toEqual({
      code: 'invalid_field',
      field: 'starred',
    });
    expect(refusalMessage(() => parseBooleanParam('starred', 'TRUE'))).toBe(
      'starred must be true or false.',
    );
  });
});

import { ApiError } from '../errors.ts';

/** D-19: exactly `true` or `false`. */
export function parseBooleanParam(name: string, raw: string): boolean {
  if (raw === 'true') return true;
  if (raw === 'false') return false;
  throw new ApiError('invalid_field', `${name} must be true or false.`, name);
}

const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?([Zz]|[+-]\d{2}:\d{2})$/;
const FULL_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/**
 * D-18: an RFC 3339 date-time with `Z` or an offset, or a full date (midnight UTC), returned
 * as ISO 8601 UTC with milliseconds so it compares as text with stored timestamps.
 */
export function parseTimestampParam(name: string, raw: string): string {
  const invalid = new ApiError(
    'invalid_field',
    `${name} must be an RFC 3339 date-time with a time zone (2026-11-01T00:00:00Z) or a date (2026-11-01).`,
    name,
  );
  const dateTime = DATE_TIME.exec(raw);
  const date = dateTime ?? FULL_DATE.exec(raw);
  if (date === null) throw invalid;
  // A full date has no time fields: Number(undefined) is NaN, which no bound below rejects.
  const [, y, mo, d, h, mi, s] = date;
  if (
    !validCalendarDate(Number(y), Number(mo), Number(d)) ||
    Number(h) > 23 ||
    Number(mi) > 59 ||
    Number(s) > 59
  ) {
    throw invalid;
  }
  const normalized = dateTime === null ? `${raw}T00:00:00Z` : raw;
  // Sub-millisecond digits are truncated, not rounded, so a bound never moves past a stored instant.
  const truncated = normalized.replace(/(\.\d{3})\d+/, '$1');
  const ms = Date.parse(truncated);
  if (Number.isNaN(ms)) throw invalid;
  const iso = new Date(ms).toISOString();
  if (!/^\d{4}-/.test(iso)) throw invalid; // outside years 0000-9999
  return iso;
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function validCalendarDate(year: number, month: number, day: number): boolean {
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  // A month outside 1-12 has no entry, so no day is valid in it.
  const days = month === 2 && leap ? 29 : (DAYS_IN_MONTH[month - 1] ?? 0);
  return day >= 1 && day <= days;
}

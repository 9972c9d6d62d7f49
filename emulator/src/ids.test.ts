import { describe, expect, it } from 'vitest';
import { cryptoIds } from './ids.ts';

const CROCKFORD = /^[0-9A-HJKMNP-TV-Z]+$/;
const BASE62 = /^[0-9A-Za-z]+$/;

describe('cryptoIds', () => {
  it('makes email ids of 10 characters of time and 16 random ones, sortable by time', () => {
    const early = cryptoIds.emailId(new Date('2026-01-01T00:00:00Z'));
    const late = cryptoIds.emailId(new Date('2026-01-01T00:00:00.001Z'));
    expect(early).toMatch(CROCKFORD);
    expect(early).toHaveLength(26);
    expect(early < late).toBe(true);
    const sameTime = cryptoIds.emailId(new Date('2026-01-01T00:00:00Z'));
    expect(sameTime.slice(0, 10)).toBe(early.slice(0, 10));
    expect(sameTime.slice(10)).not.toBe(early.slice(10));
  });

  it('makes prefixed ids and secrets of base62, of the length asked, however long', () => {
    expect(cryptoIds.prefixed('key')).toMatch(/^key_[0-9A-Za-z]{16}$/);
    for (const length of [1, 32, 4096, 10_000]) {
      const secret = cryptoIds.secret(length);
      expect(secret).toHaveLength(length);
      expect(secret).toMatch(BASE62);
    }
  });

  it('never hands out the same random bytes twice: 20,000 secrets of 16 characters are distinct', () => {
    const secrets = new Set(Array.from({ length: 20_000 }, () => cryptoIds.secret(16)));
    expect(secrets.size).toBe(20_000);
  });

  it('uses every character of the alphabet about equally (rejection sampling, no modulo bias)', () => {
    const counts = new Map<string, number>();
    for (const char of cryptoIds.secret(124_000)) counts.set(char, (counts.get(char) ?? 0) + 1);
    expect(counts.size).toBe(62);
    // 2,000 expected each; a bias of 256 % 62 would give the first 8 characters 25% more.
    for (const [char, count] of counts) expect(count, char).toBeGreaterThan(1_700);
    for (const [char, count] of counts) expect(count, char).toBeLessThan(2_300);
  });
});

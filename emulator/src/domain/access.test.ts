import { describe, expect, it } from 'vitest';
import { mailboxesKeyMayTouch } from './access.ts';
import { composeKeySecret, hashSecret, lookupOf, secretMatches } from './api-key-secrets.ts';

const grants = [
  { address: 'a@one.test', domain: 'one.test' },
  { address: 'b@one.test', domain: 'one.test' },
  { address: 'c@two.test', domain: 'two.test' },
];

describe('what a key may touch (§2.1, §5 rule 3)', () => {
  it('follow-owner: every granted mailbox', () => {
    expect([
      ...mailboxesKeyMayTouch({ scope: 'follow-owner', domain: null, mailboxes: [] }, grants),
    ]).toEqual(['a@one.test', 'b@one.test', 'c@two.test']);
  });

  it('one-domain: the grants in its domain only', () => {
    expect([
      ...mailboxesKeyMayTouch({ scope: 'one-domain', domain: 'one.test', mailboxes: [] }, grants),
    ]).toEqual(['a@one.test', 'b@one.test']);
  });

  it('selected-mailbox: listed mailboxes that are also still granted', () => {
    const key = {
      scope: 'selected-mailbox' as const,
      domain: null,
      mailboxes: ['b@one.test', 'z@gone.test'],
    };
    expect([...mailboxesKeyMayTouch(key, grants)]).toEqual(['b@one.test']);
  });
});

describe('API key secrets (§2.1)', () => {
  const secret = composeKeySecret('abcdefABCDEF', '0123456789abcdefghijABCDEFGHIJkl');

  it('are composed as sk-<12-character lookup>_<32-character secret>', () => {
    expect(composeKeySecret('abcdefABCDEF', '0123456789abcdefghijABCDEFGHIJkl')).toBe(
      'sk-abcdefABCDEF_0123456789abcdefghijABCDEFGHIJkl',
    );
  });

  it('begin with sk- and carry a public lookup part', () => {
    expect(secret.startsWith('sk-')).toBe(true);
    expect(lookupOf(secret)).toBe('abcdefABCDEF');
    expect(lookupOf('sk-short')).toBeUndefined();
  });

  it('are exactly sk-, 12 lookup and 32 secret characters: nothing before or after is taken', () => {
    expect(lookupOf(` ${secret}`)).toBeUndefined();
    expect(lookupOf(`x${secret}`)).toBeUndefined();
    expect(lookupOf(`${secret}x`)).toBeUndefined();
    expect(lookupOf(`${secret}\n`)).toBeUndefined();
    expect(() => composeKeySecret('short', '0123456789abcdefghijABCDEFGHIJkl')).toThrow(
      /lookup must be 12 and random 32 base62 characters/,
    );
    expect(() => composeKeySecret('abcdefABCDEF', 'not-base62-not-base62-not-base62')).toThrow();
  });

  it('match only their own hash, and the dummy hash compared for an unknown key never matches', () => {
    // An unknown lookup is compared against a dummy hash so timing does not tell; even the
    // dummy's own secret must not pass.
    expect(secretMatches('sk-000000000000_00000000000000000000000000000000', undefined)).toBe(
      false,
    );
    expect(secretMatches(secret, hashSecret(secret))).toBe(true);
    expect(secretMatches(`${secret.slice(0, -1)}m`, hashSecret(secret))).toBe(false);
    expect(secretMatches(secret, undefined)).toBe(false);
  });
});

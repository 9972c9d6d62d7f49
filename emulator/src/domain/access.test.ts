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

  it('begin with sk- and carry a public lookup part', () => {
    expect(secret.startsWith('sk-')).toBe(true);
    expect(lookupOf(secret)).toBe('abcdefABCDEF');
    expect(lookupOf('sk-short')).toBeUndefined();
  });

  it('match only their own hash', () => {
    expect(secretMatches(secret, hashSecret(secret))).toBe(true);
    expect(secretMatches(`${secret.slice(0, -1)}m`, hashSecret(secret))).toBe(false);
    expect(secretMatches(secret, undefined)).toBe(false);
  });
});

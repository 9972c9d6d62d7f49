import { describe, expect, it } from 'vitest';
import { domainOf, isValidAddress, parseAddress } from './addresses.ts';

describe('email addresses (D-11)', () => {
  const local64 = 'l'.repeat(64);
  /** An address of exactly `length` characters with a 64-character local part. */
  const addressOfLength = (length: number) => {
    const domainLength = length - 65; // local part and @
    const labels = [];
    let left = domainLength - 5; // room for the final ".test"
    while (left > 0) {
      const size = Math.min(left === 1 ? 1 : 63, left - (left > 63 ? 1 : 0));
      labels.push('d'.repeat(size));
      left -= size + (left - size > 0 ? 1 : 0);
    }
    return `${local64}@${labels.join('.')}.test`;
  };

  it('accepts up to 254 characters and a local part up to 64, and refuses one more of either', () => {
    expect(addressOfLength(254)).toHaveLength(254);
    expect(isValidAddress(addressOfLength(254))).toBe(true);
    expect(addressOfLength(255)).toHaveLength(255);
    expect(isValidAddress(addressOfLength(255))).toBe(false);
    expect(isValidAddress(`${local64}@acme.test`)).toBe(true);
    expect(isValidAddress(`${local64}x@acme.test`)).toBe(false);
  });

  it.each([
    ['bob@acme.test', { address: 'bob@acme.test', name: null }],
    ['Bob.Stone@ACME.test', { address: 'bob.stone@acme.test', name: null }],
    ['Bob Stone <bob@acme.test>', { address: 'bob@acme.test', name: 'Bob Stone' }],
    ['Bob Stone<bob@acme.test>', { address: 'bob@acme.test', name: 'Bob Stone' }],
    ['  Bob Stone   <bob@acme.test>  ', { address: 'bob@acme.test', name: 'Bob Stone' }],
    ['Bob < bob@acme.test >', { address: 'bob@acme.test', name: 'Bob' }],
    ['<bob@acme.test>', { address: 'bob@acme.test', name: null }],
    ['"Stone, Bob" <bob@acme.test>', { address: 'bob@acme.test', name: 'Stone, Bob' }],
    ['"Bob \\"B\\" Stone" <bob@acme.test>', { address: 'bob@acme.test', name: 'Bob "B" Stone' }],
    ['"" <bob@acme.test>', { address: 'bob@acme.test', name: null }],
    ['" <bob@acme.test>', { address: 'bob@acme.test', name: '"' }],
    ['Bob" <bob@acme.test>', { address: 'bob@acme.test', name: 'Bob"' }],
    ['"Bob <bob@acme.test>', { address: 'bob@acme.test', name: '"Bob' }],
  ])('parses %j', (input, expected) => {
    expect(parseAddress(input)).toEqual(expected);
  });

  it.each([
    ['Bob <bob@acme.test> trailing', 'text after the address'],
    ['Bob\r\nBcc: eve@evil.test <bob@acme.test>', 'a line break in the name (header injection)'],
    ['bob@localhost', 'a domain without a dot'],
    ['Bob <bob@acme>', 'a named address whose domain has no dot'],
  ])('refuses %j (%s)', (input) => {
    expect(parseAddress(input)).toBeUndefined();
  });

  it('reads the domain of an address, lower case', () => {
    expect(domainOf('Bob@Sub.ACME.test')).toBe('sub.acme.test');
  });
});

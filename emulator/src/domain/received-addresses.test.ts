import { describe, expect, it } from 'vitest';
import { canonicalReceivedAddress } from './addresses.ts';

describe('addresses of received mail, in their one canonical form (D-50)', () => {
  it.each([
    ['Bob@ACME.test', 'bob@acme.test', 'lower case'],
    ['  bob@acme.test  ', 'bob@acme.test', 'without surrounding space'],
    ['"Alice"@x.test', 'alice@x.test', 'a quoted dot-atom unquoted'],
    ['"John Doe"@x.test', '"john doe"@x.test', 'quoted only when not a dot-atom'],
    ['"a\\"b"@x.test', '"a\\"b"@x.test', 'a quote inside escaped'],
    ['"a\\\\b"@x.test', '"a\\\\b"@x.test', 'a backslash inside escaped'],
    ['"a\\bc"@x.test', 'abc@x.test', 'a needless quoted-pair dropped'],
    ['"a@b"@x.test', '"a@b"@x.test', 'an @ inside quotes, the domain after the last @'],
    ['root@localhost', 'root@localhost', 'a single-label domain kept'],
    ['ZOË@x.test', 'zoë@x.test', 'a non-ASCII local part, lower case'],
    ['zoe\u0308@x.test', 'zoë@x.test', 'a local part in NFC'],
    ['juergen@xn--bcher-kva.example', 'juergen@bücher.example', 'an xn-- label decoded'],
    [
      'juergen@XN--BCHER-KVA.example',
      'juergen@bücher.example',
      'an xn-- label in capitals decoded',
    ],
    ['juergen@mail.xn--bcher-kva.example', 'juergen@mail.bücher.example', 'an inner xn-- label'],
    ['juergen@BÜCHER.example', 'juergen@bücher.example', 'a Unicode domain UTS-46 mapped'],
    ['user@[192.0.2.1]', 'user@[192.0.2.1]', 'an IPv4 literal as given'],
    ['user@[IPv6:2001:DB8:0:0:0:0:0:1]', 'user@[IPv6:2001:db8::1]', 'IPv6 in RFC 5952 form'],
    ['user@[ipv6:2001:db8::1]', 'user@[IPv6:2001:db8::1]', 'the IPv6 tag in its usual case'],
    ['a-b@my-host.x.test', 'a-b@my-host.x.test', 'inner hyphens kept'],
    ['ab"@x.test', '"ab\\""@x.test', 'a stray closing quote escaped inside quotes'],
    ['"@x.test', '"\\""@x.test', 'a lone quote, quoted and escaped'],
    ['"ab@x.test', '"\\"ab"@x.test', 'a stray opening quote escaped inside quotes'],
    ['a\u00a0b@x.test', '"a\u00a0b"@x.test', 'a no-break space, not atext, quoted'],
  ])('reads %j as %j (%s)', (raw, canonical) => {
    expect(canonicalReceivedAddress(raw)).toBe(canonical);
  });

  it.each([
    ['@x.test', 'no local part'],
    ['bob', 'no @'],
    ['bob@', 'no domain'],
    ['""@x.test', 'an empty quoted local part'],
    ['b\u0001ob@x.test', 'a control character in the local part'],
    ['"b\u0001ob"@x.test', 'a control character even inside quotes'],
    ['bob@-x.test', 'a label beginning with a hyphen'],
    ['bob@x-.test', 'a label ending with a hyphen'],
    ['bob@x_y.test', 'a label with an underscore'],
    ['bob@x..test', 'an empty label'],
    ['bob@[300.1.1.1]', 'an invalid IPv4 literal'],
    ['bob@[IPv6:2001:db8::g]', 'an invalid IPv6 literal'],
    ['bob@[2001:db8::1]', 'an IPv6 literal without its tag'],
    ['bob@[IPv6:2001:db8::1', 'a literal left open'],
    ['bob@2001:db8::1]', 'a literal never opened'],
    ['bob@[x.test]', 'a domain name in brackets'],
    ['bob@x192.0.2.1]', 'a closing bracket without its opening one'],
    ['bob@[xIPv6:2001:db8::1]', 'text before the IPv6 tag'],
    ['bob@[IPv6:1:2:3]', 'an IPv6 literal of too few groups'],
  ])('drops %j (%s)', (raw) => {
    expect(canonicalReceivedAddress(raw)).toBeUndefined();
  });

  it('keeps an address of 254 octets of UTF-8 and drops one of 255', () => {
    const domain = `${'d'.repeat(63)}.${'d'.repeat(63)}.${'d'.repeat(63)}.test`; // 196 octets
    const fits = `${'é'.repeat(28)}l@${domain}`; // 57 + 1 + 196
    expect(Buffer.byteLength(fits, 'utf8')).toBe(254);
    expect(canonicalReceivedAddress(fits)).toBe(fits);
    expect(canonicalReceivedAddress(`l${fits}`)).toBeUndefined();
  });
});

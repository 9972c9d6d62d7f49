import { describe, expect, it } from 'vitest';
import { disallowedRecipients, isWrite } from './safety.ts';

const MAILBOXES = ['ops@vendor.example'];
const send = (json: unknown, path = '/emails/send') =>
  disallowedRecipients('POST', path, { json }, MAILBOXES);

describe('isWrite', () => {
  it('counts every method but GET, HEAD and OPTIONS as a write', () => {
    expect(['GET', 'head', 'OPTIONS'].map(isWrite)).toEqual([false, false, false]);
    expect(['POST', 'PUT', 'PATCH', 'DELETE', 'patch'].map(isWrite)).toEqual([
      true,
      true,
      true,
      true,
      true,
    ]);
  });
});

describe('disallowedRecipients', () => {
  it('allows the given mailboxes, in any case, and the suite’s own domain and its subdomains', () => {
    expect(
      send({
        from: 'ops@vendor.example',
        to: 'OPS@Vendor.Example',
        cc: ['x@conformance.test', 'Cy <y@external.conformance.test>'],
        bcc: ['box0@t1a2b.conformance.test'],
      }),
    ).toEqual([]);
  });

  it('names every other address in to, cc and bcc, display names included', () => {
    expect(
      send({
        to: 'Ann <ann@customer.example>',
        cc: ['bob@customer.example', 'ops@vendor.example'],
        bcc: ['carol@conformance.test.evil.example'],
      }),
    ).toEqual([
      'ann@customer.example',
      'bob@customer.example',
      'carol@conformance.test.evil.example',
    ]);
  });

  it('reads recipients of any shape a check may send on purpose', () => {
    expect(send({ to: ['a@x.example', { nested: 'b@y.example' }] })).toEqual([
      'a@x.example',
      'b@y.example',
    ]);
    expect(send({ to: 'ops@vendor.example, c@z.example' })).toEqual(['c@z.example']);
  });

  it('treats a dotless domain as an address (someone@localhost reaches the host itself)', () => {
    expect(send({ to: 'someone@localhost' })).toEqual(['someone@localhost']);
  });

  it('ignores values that hold no address', () => {
    expect(send({ to: 'someone', cc: ['bad@', ''], bcc: [] })).toEqual([]);
  });

  it('ignores the sender, the subject and the body', () => {
    expect(
      send({ from: 'x@other.example', to: 'ops@vendor.example', text: 'write to y@other.example' }),
    ).toEqual([]);
  });

  it('checks replies and forwards too', () => {
    expect(send({ to: 'z@other.example' }, '/emails/abc/forward')).toEqual(['z@other.example']);
    expect(send({ cc: ['z@other.example'] }, '/emails/abc/reply')).toEqual(['z@other.example']);
  });

  it('scans a body that is not JSON whole', () => {
    expect(
      disallowedRecipients(
        'POST',
        '/emails/send',
        { text: '{"to": "q@other.example",' },
        MAILBOXES,
      ),
    ).toEqual(['q@other.example']);
  });

  it('looks only at sends: other paths and methods carry no recipients', () => {
    const json = { to: 'z@other.example' };
    expect(disallowedRecipients('POST', '/attachments', { json }, MAILBOXES)).toEqual([]);
    expect(disallowedRecipients('PATCH', '/emails/send', { json }, MAILBOXES)).toEqual([]);
    expect(disallowedRecipients('POST', '/emails/a/b/reply', { json }, MAILBOXES)).toEqual([]);
  });
});

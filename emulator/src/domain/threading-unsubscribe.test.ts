import { describe, expect, it } from 'vitest';
import { forwardSubject, replySubject, replyThreading } from './threading.ts';
import { addressOfUnsubscribeToken, unsubscribeToken } from './unsubscribe.ts';

describe('subject prefixes (D-22, D-23)', () => {
  it.each([
    ['  re: Plan', '  re: Plan'],
    ['Re : Plan', 'Re : Plan'],
    ['Rex: Plan', 'Re: Rex: Plan'],
    ['About Re: Plan', 'Re: About Re: Plan'],
  ])('replying to %j gives %j', (subject, expected) => {
    expect(replySubject(subject)).toBe(expected);
  });

  it.each([
    ['Fw: Plan', 'Fw: Plan'],
    [' FWD : Plan', ' FWD : Plan'],
    ['Fwdx: Plan', 'Fwd: Fwdx: Plan'],
    ['Plan fwd: x', 'Fwd: Plan fwd: x'],
  ])('forwarding %j gives %j', (subject, expected) => {
    expect(forwardSubject(subject)).toBe(expected);
  });

  it('lists the original Message-ID once at the end of References', () => {
    expect(replyThreading({ messageId: '<b@x>', references: ['<a@x>', '<b@x>'] })).toEqual({
      inReplyTo: '<b@x>',
      references: ['<a@x>', '<b@x>'],
    });
  });
});

describe('unsubscribe links (D-24)', () => {
  it('carry the address, readable only with the key that signed them', () => {
    const token = unsubscribeToken('key-1', 'bob@partner.test');
    expect(addressOfUnsubscribeToken('key-1', token)).toBe('bob@partner.test');
    expect(addressOfUnsubscribeToken('key-2', token)).toBeUndefined();
  });

  it.each([
    '',
    'nodot',
    '.sig',
    'Ym9i.',
    'bad chars!.abc',
    `${Buffer.from('eve@x.test').toString('base64url')}.forgedsignature00000000`,
  ])('refuse the malformed or forged token %j', (token) => {
    expect(addressOfUnsubscribeToken('key-1', token)).toBeUndefined();
  });

  it('refuse a token whose address part carries characters outside base64url, though it decodes the same', () => {
    const [encoded, signature] = unsubscribeToken('key-1', 'bob@partner.test').split('.');
    for (const altered of [
      `!${encoded}`,
      `${encoded}!`,
      `${encoded}=`,
      `${encoded!.slice(0, 3)}!${encoded!.slice(3)}`,
    ]) {
      expect(
        addressOfUnsubscribeToken('key-1', `${altered}.${signature}`),
        altered,
      ).toBeUndefined();
    }
  });

  // The key is kept with the data (app.ts), so a link in mail sent before a restart or an
  // upgrade on the same --db must still be accepted: the token format cannot drift.
  it.each([
    ['bob@partner.test', 'Ym9iQHBhcnRuZXIudGVzdA.hOHMcU9wNggrSk5-qIuSMr'],
    ['zoë@partner.test', 'em_Dq0BwYXJ0bmVyLnRlc3Q.vlCmGka6pqd_iyd2Fp3XeO'],
  ])('issued earlier for %s with the same key, still unsubscribe it', (address, issued) => {
    expect(unsubscribeToken('key-1', address)).toBe(issued);
    expect(addressOfUnsubscribeToken('key-1', issued)).toBe(address);
  });

  it('cannot be moved to another address by editing the address part', () => {
    const [, signature] = unsubscribeToken('key-1', 'bob@partner.test').split('.');
    const forged = `${Buffer.from('eve@partner.test').toString('base64url')}.${signature}`;
    expect(addressOfUnsubscribeToken('key-1', forged)).toBeUndefined();
  });
});

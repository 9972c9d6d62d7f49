import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { refusal, refusalMessage } from '../test-helpers/refusal.ts';
import { pickBody } from './message-body.ts';
import { checkRecipientCount, requireAddress } from './recipients.ts';
import {
  checkCallerVariables,
  checkVariablesSupplied,
  renderTemplate,
  variablesUsed,
} from './templates.ts';
import { forwardSubject, replyRecipients, replySubject, replyThreading } from './threading.ts';

describe('templates (§2.6, D-24)', () => {
  it('finds {{name}} with or without inner spaces, in order of first use', () => {
    expect(variablesUsed('Hi {{ first }}, {{last}} and {{first}} {{ 9bad }} {{email}}')).toEqual([
      'first',
      'last',
      'email',
    ]);
  });

  it('renders strings, numbers and booleans and leaves unknown placeholders alone', () => {
    expect(renderTemplate('{{a}}/{{ b }}/{{c}}/{{d}}', { a: 'x', b: 42.5, c: false })).toBe(
      'x/42.5/false/{{d}}',
    );
  });

  it('refuses a used but missing variable, naming it, and accepts reserved ones as supplied', () => {
    expect(
      refusal(() =>
        checkVariablesSupplied(['Hi {{name}}', undefined, '{{email}} {{other}}'], { name: 'x' }),
      ),
    ).toEqual({
      code: 'missing_variable',
      field: 'variables.other',
    });
    expect(() => checkVariablesSupplied(['{{email}} {{unsubscribe_url}}'], {})).not.toThrow();
  });

  it('refuses email and unsubscribe_url supplied by the caller', () => {
    expect(refusal(() => checkCallerVariables({ unsubscribe_url: 'x' }))).toEqual({
      code: 'reserved_variable',
      field: 'variables.unsubscribe_url',
    });
  });

  it('renders exactly like a plain replacement for any safe names and values', () => {
    fc.assert(
      fc.property(
        fc.dictionary(
          fc.stringMatching(/^[a-z_][a-z0-9_]{0,8}$/),
          fc.stringMatching(/^[^{}]{0,12}$/),
        ),
        (vars) => {
          const names = Object.keys(vars);
          const template = names.map((n) => `[{{${n}}}]`).join('');
          expect(renderTemplate(template, vars)).toBe(names.map((n) => `[${vars[n]}]`).join(''));
        },
      ),
    );
  });
});

describe('recipients and bodies (§4.3 rules 1-2, D-10)', () => {
  it('accepts 50 combined recipients and refuses 51 at the list where the count passed 50', () => {
    expect(() =>
      checkRecipientCount([
        ['to', 1],
        ['cc', 24],
        ['bcc', 25],
      ]),
    ).not.toThrow();
    expect(
      refusal(() =>
        checkRecipientCount([
          ['to', 1],
          ['cc', 24],
          ['bcc', 26],
        ]),
      ),
    ).toEqual({ code: 'too_many_recipients', field: 'bcc' });
    expect(
      refusal(() =>
        checkRecipientCount([
          ['to', 1],
          ['cc', 50],
          ['bcc', 0],
        ]),
      ),
    ).toEqual({ code: 'too_many_recipients', field: 'cc' });
  });

  it('needs exactly one of markdown, html and text', () => {
    expect(pickBody({ html: '<p>x</p>' })).toEqual({ kind: 'html', source: '<p>x</p>' });
    expect(refusal(() => pickBody({}))).toEqual({ code: 'body_required', field: 'text' });
    expect(refusal(() => pickBody({ markdown: 'a', text: 'b' }))).toEqual({
      code: 'body_conflict',
      field: 'text',
    });
    expect(pickBody({}, { optional: true })).toBeUndefined();
  });

  it('says in the message what was counted or given, and quotes at most 100 characters of a bad address', () => {
    const lists: [string, number][] = [
      ['to', 1],
      ['cc', 30],
      ['bcc', 40],
    ];
    expect(refusalMessage(() => checkRecipientCount(lists))).toBe(
      'At most 50 combined recipients (to, cc, bcc); got 71.',
    );
    expect(refusalMessage(() => pickBody({ markdown: 'a', html: 'b', text: 'c' }))).toBe(
      'Give exactly one of markdown, html or text; got markdown and html and text.',
    );
    const long = 'x'.repeat(300);
    expect(refusal(() => requireAddress(long, 'cc[2]'))).toEqual({
      code: 'invalid_address',
      field: 'cc[2]',
    });
    expect(refusalMessage(() => requireAddress(long, 'cc[2]'))).toBe(
      `cc[2] is not an email address: ${'x'.repeat(100)}…`,
    );
  });
});

describe('reply and forward (D-22, D-23)', () => {
  const original = {
    from: { address: 'bob@partner.test', name: 'Bob' },
    to: [
      { address: 'alice@acme.test', name: null },
      { address: 'dan@partner.test', name: null },
    ],
    cc: [
      { address: 'carol@partner.test', name: null },
      { address: 'bob@partner.test', name: null },
    ],
    replyTo: [],
    messageId: '<m2@partner.test>',
    references: ['<m1@partner.test>'],
  };

  it('adds Re: and Fwd: once, whatever the case', () => {
    expect(replySubject('Invoice')).toBe('Re: Invoice');
    expect(replySubject('RE: Invoice')).toBe('RE: Invoice');
    expect(forwardSubject('Fw: Invoice')).toBe('Fw: Invoice');
    expect(forwardSubject('Invoice')).toBe('Fwd: Invoice');
  });

  it('threads with In-Reply-To and References', () => {
    expect(replyThreading(original)).toEqual({
      inReplyTo: '<m2@partner.test>',
      references: ['<m1@partner.test>', '<m2@partner.test>'],
    });
  });

  it('replies to the sender only by default, and to everyone but itself, once each, with replyAll', () => {
    expect(replyRecipients(original, 'alice@acme.test', false)).toEqual({
      to: [original.from],
      cc: [],
    });
    expect(replyRecipients(original, 'alice@acme.test', true)).toEqual({
      to: [original.from, { address: 'dan@partner.test', name: null }],
      cc: [{ address: 'carol@partner.test', name: null }],
    });
  });

  it('replies to the recipients when replying to its own sent message, and prefers Reply-To', () => {
    const sent = {
      ...original,
      from: { address: 'alice@acme.test', name: null },
      to: [{ address: 'zed@x.test', name: null }],
    };
    expect(replyRecipients(sent, 'alice@acme.test', false).to).toEqual([
      { address: 'zed@x.test', name: null },
    ]);
    const withReplyTo = {
      ...original,
      replyTo: [{ address: 'noreply-handler@partner.test', name: null }],
    };
    expect(replyRecipients(withReplyTo, 'alice@acme.test', false).to).toEqual(withReplyTo.replyTo);
  });

  it('replies to every recipient of its own sent message, and to itself for a note it sent itself', () => {
    const me = { address: 'alice@acme.test', name: null };
    const zed = { address: 'zed@x.test', name: null };
    const yan = { address: 'yan@x.test', name: null };
    const sent = { ...original, from: me, to: [zed, yan], cc: [] };
    expect(replyRecipients(sent, me.address, false)).toEqual({ to: [zed, yan], cc: [] });
    const note = { ...original, from: me, to: [me], cc: [] };
    expect(replyRecipients(note, me.address, false)).toEqual({ to: [me], cc: [] });
    const twice = { ...original, from: me, to: [me, { address: me.address, name: 'Me' }], cc: [] };
    expect(replyRecipients(twice, me.address, false), 'itself once').toEqual({ to: [me], cc: [] });
  });

  it('replies to the mailbox itself when nobody else is left to answer (D-49)', () => {
    const me = { address: 'alice@acme.test', name: 'Alice' };
    const carol = { address: 'carol@partner.test', name: null };
    // Mail from oneself to undisclosed recipients: no To at all.
    const undisclosed = { ...original, from: me, replyTo: [], to: [], cc: [] };
    for (const replyAll of [false, true]) {
      expect(replyRecipients(undisclosed, me.address, replyAll)).toEqual({ to: [me], cc: [] });
    }
    // Its Cc stays a Cc with replyAll; the mailbox is still the one To.
    const withCc = { ...undisclosed, cc: [carol] };
    expect(replyRecipients(withCc, me.address, true)).toEqual({ to: [me], cc: [carol] });
    expect(replyRecipients(withCc, me.address, false)).toEqual({ to: [me], cc: [] });
    // Someone else's message whose Reply-To is this mailbox: nobody else to answer.
    const bounced = { ...original, replyTo: [{ ...me, name: null }], to: [me], cc: [] };
    expect(replyRecipients(bounced, me.address, false)).toEqual({
      to: [{ ...me, name: null }],
      cc: [],
    });
    // A mailbox the original never names at all is addressed bare.
    const unnamed = { ...original, from: { ...me, name: null }, to: [], cc: [], replyTo: [] };
    expect(replyRecipients(unnamed, me.address, false).to).toEqual([{ ...me, name: null }]);
  });
});

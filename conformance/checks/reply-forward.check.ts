/**
 * §4.7 reply and §4.8 forward: the service derives sender, recipients, subject and threading
 * from the email (D-22); a forward needs a recipient and reuses the original's body, subject
 * and attachments unless replaced (D-23); neither is idempotent; both answer with the sent
 * copy (D-21) and obey the recipient limit (§8).
 */
import { simpleParser } from 'mailparser';
import { expect } from 'vitest';
import { rule } from '../src/check.ts';
import { expectEmailsMade, expectSameOrNewEmail } from '../src/identical-requests.ts';
import {
  addresses,
  expectCreated,
  expectError,
  expectLocation,
  external,
  randomTag,
  world,
  type World,
} from '../src/send-world.ts';

const REPORT_BYTES = Buffer.from('id,amount\n1,120.50\n2,7.25\n\u00e9\u0000\u00ff', 'latin1');

/** An inbound email in box0 from Bob, to box0 and Carol, cc Dave, box1, Bob and Carol again. */
async function conversation(w: World, subject = 'Plan') {
  const [box0, box1] = w.box as [string, string];
  const people = { bob: external('bob'), carol: external('carol'), dave: external('dave') };
  const id = randomTag();
  const messageId = `<orig-${id}@external.conformance.test>`;
  const root = `<root-${id}@external.conformance.test>`;
  const originalId = await w.inject({
    mailbox: box0,
    from: `Bob Stone <${people.bob}>`,
    to: [box0, `Carol <${people.carol}>`],
    cc: [people.dave, box1, people.bob, people.carol],
    subject,
    text: 'Original text',
    messageId,
    references: [root],
  });
  return { ...people, box0, box1, originalId, messageId, root };
}

async function withReport(w: World, subject = 'Report') {
  const [box0] = w.box as [string];
  const from = external('sender');
  const originalId = await w.inject({
    mailbox: box0,
    from: `Sender <${from}>`,
    to: [box0],
    subject,
    text: 'See the attached report.',
    html: '<p>See the <b>attached</b> report.</p>',
    attachments: [
      {
        name: 'report.csv',
        contentType: 'text/csv',
        contentBase64: REPORT_BYTES.toString('base64'),
      },
    ],
  });
  return { originalId, original: await w.get(originalId), from };
}

rule(
  ['4.7-R1', '4.7-R2', 'D-22', 'D-21'],
  'replies from the mailbox to the original sender only, with Re: and In-Reply-To/References threading, answering 201 with the sent copy',
  async (context) => {
    const w = await world(context);
    const c = await conversation(w);
    const response = await w.reply(c.originalId, { text: 'Thanks' });
    const sent = expectCreated(response);
    expect(sent).toMatchObject({
      mailbox: c.box0,
      folder: 'sent',
      subject: 'Re: Plan',
      text: 'Thanks',
      inReplyTo: c.messageId,
      references: [c.root, c.messageId],
      bcc: [],
    });
    expect(sent.from.address, 'sent from the mailbox the email is in').toBe(c.box0);
    expect(addresses(sent.to), 'to the original sender only (replyAll defaults to false)').toEqual([
      c.bob,
    ]);
    expect(sent.cc).toEqual([]);
    await expectLocation(w, response, sent);
    expect((await w.listed(c.box0, 'sent')).map((e) => e.id)).toEqual([sent.id]);
    expect(await w.listed(c.box1, 'inbox'), 'box1 was only cc of the original').toEqual([]);
    const entries = (await w.outbox()).filter((e) => e.sentEmailId === sent.id);
    expect(entries.flatMap((e) => e.recipients)).toEqual([c.bob]);
    const parsed = await simpleParser(Buffer.from(await w.control.outboxEml(entries[0]!.id)));
    expect(parsed.subject).toBe('Re: Plan');
    expect(parsed.inReplyTo, 'the In-Reply-To header').toBe(c.messageId);
    expect([parsed.references ?? []].flat(), 'the References header').toEqual([
      c.root,
      c.messageId,
    ]);
    const explicit = expectCreated(
      await w.reply(c.originalId, { replyAll: false, markdown: 'Again' }),
    );
    expect(addresses(explicit.to)).toEqual([c.bob]);
    expect(explicit.cc).toEqual([]);
  },
  { needs: ['control-plane', 'destructive'] },
);

rule(
  ['D-22'],
  'adds Re: to the subject once: a subject already starting with Re: in any case is kept as it is',
  async (context) => {
    const w = await world(context);
    const cases: [string, string][] = [
      ['Re: Plan', 'Re: Plan'],
      ['RE: Plan', 'RE: Plan'],
      ['re:Plan', 're:Plan'],
      ['Re: Re: Plan', 'Re: Re: Plan'],
      ['Regarding the plan', 'Re: Regarding the plan'],
      ['Fwd: Plan', 'Re: Fwd: Plan'],
      ['Plan Re: x', 'Re: Plan Re: x'],
    ];
    for (const [original, expected] of cases) {
      const { originalId } = await conversation(w, original);
      const sent = expectCreated(await w.reply(originalId, { text: 'x' }), original);
      expect(sent.subject, `reply to "${original}"`).toBe(expected);
      const again = expectCreated(await w.reply(sent.id, { text: 'y' }), `reply to the reply`);
      expect(again.subject, `reply to the reply of "${original}"`).toBe(expected);
    }
  },
  { needs: ['control-plane', 'destructive'] },
);

rule(
  ['4.7-R2', 'D-22'],
  'with replyAll adds every other original To and Cc address, each once, never the replying mailbox',
  async (context) => {
    const w = await world(context);
    const c = await conversation(w);
    const sent = expectCreated(await w.reply(c.originalId, { replyAll: true, text: 'All' }));
    expect(sent.to[0]?.address, 'the original sender comes first, in to').toBe(c.bob);
    const everyone = addresses([...sent.to, ...sent.cc]);
    expect([...everyone].sort(), 'each other address exactly once').toEqual(
      [c.bob, c.carol, c.dave, c.box1].sort(),
    );
    expect(everyone.includes(c.box0), 'the replying mailbox is not a recipient').toBe(false);
    const copy = await w.listed(c.box1, 'inbox');
    expect(copy, 'box1, a mailbox here, receives the reply-all').toHaveLength(1);
    expect(copy[0]!.subject).toBe('Re: Plan');
    const entries = (await w.outbox()).filter((e) => e.sentEmailId === sent.id);
    expect(entries.flatMap((e) => e.recipients).sort()).toEqual([c.bob, c.carol, c.dave].sort());
    const extra = external('extra');
    const withCc = expectCreated(
      await w.reply(c.originalId, { replyAll: true, cc: [extra], text: 'More' }),
    );
    expect(addresses([...withCc.to, ...withCc.cc]).sort()).toEqual(
      [c.bob, c.carol, c.dave, c.box1, extra].sort(),
    );
  },
  { needs: ['control-plane', 'destructive'] },
);

rule(
  ['D-22', '4.7-R1'],
  'replies to the mailbox’s own sent message by writing to its recipients again, threaded on it',
  async (context) => {
    const w = await world(context);
    const [box0, box1] = w.box as [string, string];
    const carol = external('carol');
    const dave = external('dave');
    const first = expectCreated(
      await w.send({ from: box0, to: carol, cc: [dave, box1], subject: 'Re: Plan', text: 'Hi' }),
      'the first message',
    );
    const followUp = expectCreated(await w.reply(first.id, { text: 'Any news?' }));
    expect(followUp.from.address).toBe(box0);
    expect(addresses(followUp.to), 'to the original to').toEqual([carol]);
    expect(followUp.cc).toEqual([]);
    expect(followUp.subject).toBe('Re: Plan');
    expect(followUp.inReplyTo).toBe(first.messageId);
    expect(followUp.references).toEqual([first.messageId]);
    const all = expectCreated(await w.reply(first.id, { replyAll: true, text: 'All' }));
    expect(addresses([...all.to, ...all.cc]).sort()).toEqual([carol, dave, box1].sort());
  },
  { needs: ['control-plane', 'destructive'] },
);

rule(
  ['4.7-R3'],
  'attaches uploads given as attachmentIds to a reply, and refuses an unknown one with 404 attachment_not_found',
  async (context) => {
    const w = await world(context);
    const c = await conversation(w);
    const bytes = Buffer.from('reply attachment \u00e9', 'utf8');
    const uploaded = await w.upload('notes.txt', bytes, 'text/plain');
    const missing = '00000000-0000-4000-8000-000000000000';
    expectError(
      await w.reply(c.originalId, { text: 'x', attachmentIds: [missing] }),
      404,
      'attachment_not_found',
      'attachmentIds[0]',
      'an unknown upload',
    );
    expectError(
      await w.reply(c.originalId, { text: 'x', attachmentIds: [uploaded.id, missing] }),
      404,
      'attachment_not_found',
      'attachmentIds[1]',
      'a known then an unknown upload',
    );
    expect(await w.listed(c.box0, 'sent'), 'nothing stored for the refused replies').toEqual([]);
    const sent = expectCreated(
      await w.reply(c.originalId, { text: 'Attached', attachmentIds: [uploaded.id] }),
    );
    expect(sent.attachments).toHaveLength(1);
    expect(sent.attachments[0]).toMatchObject({ name: 'notes.txt', size: bytes.length });
    expect((await w.download(sent.attachments[0]!.id)).equals(bytes), 'downloaded bytes').toBe(
      true,
    );
    const entry = (await w.outbox()).find((e) => e.sentEmailId === sent.id);
    const parsed = await simpleParser(Buffer.from(await w.control.outboxEml(entry!.id)));
    expect(parsed.attachments.map((a) => a.filename)).toEqual(['notes.txt']);
    expect(parsed.attachments[0]!.content.equals(bytes), 'the attachment as sent').toBe(true);
  },
  { needs: ['control-plane', 'destructive'] },
);

rule(
  ['D-22', '4.7-R1', '4.3-R1'],
  'requires exactly one reply body, and takes no recipient or subject of its own: the service derives them',
  async (context) => {
    const w = await world(context);
    const c = await conversation(w);
    expectError(await w.reply(c.originalId, {}), 400, 'body_required', undefined, 'no body');
    expectError(
      await w.reply(c.originalId, { replyAll: true }),
      400,
      'body_required',
      undefined,
      'replyAll only',
    );
    expectError(
      await w.reply(c.originalId, { text: 'a', html: '<p>b</p>' }),
      400,
      'body_conflict',
      undefined,
      'two bodies',
    );
    expectError(
      await w.reply(c.originalId, { text: 'a', to: external('x') }),
      400,
      'unknown_field',
      'to',
      'a to',
    );
    expectError(
      await w.reply(c.originalId, { text: 'a', subject: 'Mine' }),
      400,
      'unknown_field',
      'subject',
      'a subject',
    );
    expectError(
      await w.reply(c.originalId, { text: 'a', replyall: true }),
      400,
      'unknown_field',
      'replyall',
      'a misspelt replyAll',
    );
    expectError(
      await w.reply(c.originalId, { text: 'a', replyAll: 'yes' }),
      400,
      'invalid_field',
      'replyAll',
      'a non-boolean replyAll',
    );
    const unknownId = `${c.originalId.slice(0, -1)}${c.originalId.endsWith('Z') ? 'Y' : 'Z'}`;
    expectError(
      await w.reply(unknownId, { text: 'a' }),
      404,
      'email_not_found',
      undefined,
      'no such email',
    );
    expect(await w.listed(c.box0, 'sent')).toEqual([]);
    expect(await w.outbox()).toEqual([]);
  },
  { needs: ['control-plane', 'destructive'] },
);

rule(
  ['4.7-R4'],
  'answers an identical reply again with 201, making one reply or two, never more, and after an ambiguous 504 the reply exists',
  async (context) => {
    const w = await world(context);
    const c = await conversation(w);
    const first = expectCreated(await w.reply(c.originalId, { text: 'Same' }), 'first');
    const second = expectCreated(await w.reply(c.originalId, { text: 'Same' }), 'second');
    expectSameOrNewEmail(first, second);
    expect(second.inReplyTo).toBe(first.inReplyTo);
    const made = await expectEmailsMade(w, [first.id, second.id], {
      sender: c.box0,
      outbox: true,
    });
    try {
      // Another body, so the 504's reply is new whether or not identical replies are merged.
      await w.control.armFault({ operations: ['reply'], mode: 'timeout-after-commit' });
      expectError(
        await w.reply(c.originalId, { text: 'After the fault' }),
        504,
        'gateway_timeout',
        undefined,
        'the ambiguous reply',
      );
      expect(await w.listed(c.box0, 'sent'), 'the reply exists despite the 504').toHaveLength(
        made + 1,
      );
      await w.control.armFault({ operations: ['reply'], mode: 'error', status: 503 });
      expectError(
        await w.reply(c.originalId, { text: 'Refused' }),
        503,
        'service_unavailable',
        undefined,
        'an armed 503',
      );
      expect(await w.listed(c.box0, 'sent'), 'a 503 stores nothing').toHaveLength(made + 1);
      expect(await w.outbox(), 'every stored reply reached the transport').toHaveLength(made + 1);
    } finally {
      await w.control.clearFaults();
    }
  },
  { needs: ['control-plane', 'destructive'] },
);

rule(
  ['4.8-R1', 'D-23'],
  'requires one forward recipient in to, refusing a missing, listed or malformed one with the field named',
  async (context) => {
    const w = await world(context);
    const { originalId } = await withReport(w);
    const x = external('x');
    const cases: [string, unknown, string, string][] = [
      ['no body at all', {}, 'missing_field', 'to'],
      ['a text but no to', { text: 'x' }, 'missing_field', 'to'],
      ['cc but no to', { cc: [x] }, 'missing_field', 'to'],
      ['to as an array', { to: [x] }, 'invalid_field', 'to'],
      ['a malformed to', { to: 'not an address' }, 'invalid_address', 'to'],
      ['a malformed cc', { to: x, cc: ['bad@'] }, 'invalid_address', 'cc[0]'],
      ['replyAll', { to: x, replyAll: true }, 'unknown_field', 'replyAll'],
      ['two bodies', { to: x, text: 'a', markdown: 'b' }, 'body_conflict', ''],
    ];
    for (const [label, json, code, field] of cases)
      expectError(await w.forward(originalId, json), 400, code, field || undefined, label);
    const [box0] = w.box as [string];
    expect(await w.listed(box0, 'sent')).toEqual([]);
    expect(await w.outbox()).toEqual([]);
  },
  { needs: ['control-plane', 'destructive'] },
);

rule(
  ['4.8-R2', 'D-23', 'D-21', '4.8-R1'],
  'forwards the original body, subject (Fwd: once) and attachments when no replacement is given',
  async (context) => {
    const w = await world(context);
    const [, box1] = w.box as [string, string];
    const { originalId, original } = await withReport(w);
    const out = external('out');
    const response = await w.forward(originalId, { to: box1, cc: [out] });
    const sent = expectCreated(response);
    await expectLocation(w, response, sent);
    expect(sent).toMatchObject({
      folder: 'sent',
      subject: 'Fwd: Report',
      text: original.text,
      html: original.html,
    });
    expect(addresses(sent.to)).toEqual([box1]);
    expect(addresses(sent.cc)).toEqual([out]);
    expect(sent.attachments).toHaveLength(1);
    const [attachment] = sent.attachments;
    expect(attachment).toMatchObject({
      name: 'report.csv',
      contentType: original.attachments[0]!.contentType,
      size: REPORT_BYTES.length,
    });
    expect(attachment!.id, 'the forward has its own attachment id').not.toBe(
      original.attachments[0]!.id,
    );
    expect((await w.download(attachment!.id)).equals(REPORT_BYTES), 'forwarded bytes').toBe(true);

    const inbox = await w.listed(box1, 'inbox');
    expect(inbox, 'box1 receives the forward').toHaveLength(1);
    const copy = await w.get(inbox[0]!.id);
    expect(copy).toMatchObject({
      subject: 'Fwd: Report',
      text: original.text,
      html: original.html,
    });
    expect(copy.attachments.map((a) => [a.name, a.size])).toEqual([
      ['report.csv', REPORT_BYTES.length],
    ]);
    expect((await w.download(copy.attachments[0]!.id)).equals(REPORT_BYTES)).toBe(true);

    const entry = (await w.outbox()).find((e) => e.sentEmailId === sent.id);
    expect(entry?.recipients).toEqual([out]);
    const parsed = await simpleParser(Buffer.from(await w.control.outboxEml(entry!.id)));
    expect(parsed.subject).toBe('Fwd: Report');
    expect(parsed.attachments.map((a) => a.filename)).toEqual(['report.csv']);
    expect(parsed.attachments[0]!.content.equals(REPORT_BYTES), 'bytes as sent').toBe(true);

    const again = expectCreated(await w.forward(sent.id, { to: out }), 'forward of the forward');
    expect(again.subject, 'Fwd: is not doubled').toBe('Fwd: Report');
    const { originalId: reId } = await withReport(w, 'Re: Report');
    expect(expectCreated(await w.forward(reId, { to: out })).subject).toBe('Fwd: Re: Report');
  },
  { needs: ['control-plane', 'destructive'] },
);

rule(
  ['4.8-R2', '4.8-R3', 'D-23'],
  'replaces only what is given: text replaces the body, subject the subject, attachmentIds the attachments ([] for none)',
  async (context) => {
    const w = await world(context);
    const { originalId, original } = await withReport(w);
    const to = external('to');
    const text = expectCreated(await w.forward(originalId, { to, text: 'New text' }), 'text');
    expect(text).toMatchObject({ text: 'New text', html: null, subject: 'Fwd: Report' });
    expect(
      text.attachments.map((a) => a.name),
      'attachments still reused',
    ).toEqual(['report.csv']);
    const markdown = expectCreated(
      await w.forward(originalId, { to, markdown: '**Look**' }),
      'markdown',
    );
    expect(markdown.html ?? '').toMatch(/<strong>Look<\/strong>/);
    expect(markdown.html ?? '').not.toContain('attached');
    const subject = expectCreated(
      await w.forward(originalId, { to, subject: 'Other subject' }),
      'subject',
    );
    expect(subject).toMatchObject({
      subject: 'Other subject',
      text: original.text,
      html: original.html,
    });
    const none = expectCreated(await w.forward(originalId, { to, attachmentIds: [] }), '[]');
    expect(none.attachments, 'attachmentIds: [] forwards none').toEqual([]);
    expect(none.text).toBe(original.text);
    const extraBytes = Uint8Array.from([0, 1, 2, 3, 254, 255]);
    const extra = await w.upload('extra.bin', extraBytes, 'application/octet-stream');
    const replaced = expectCreated(
      await w.forward(originalId, { to, attachmentIds: [extra.id] }),
      'an upload',
    );
    expect(replaced.attachments.map((a) => [a.name, a.size])).toEqual([['extra.bin', 6]]);
    expect((await w.download(replaced.attachments[0]!.id)).equals(Buffer.from(extraBytes))).toBe(
      true,
    );
    expectError(
      await w.forward(originalId, {
        to,
        attachmentIds: ['00000000-0000-4000-8000-000000000000'],
      }),
      404,
      'attachment_not_found',
      'attachmentIds[0]',
      'an unknown upload',
    );
  },
  { needs: ['control-plane', 'destructive'] },
);

rule(
  ['4.8-R4'],
  'answers an identical forward again with 201, making one forward or two, never more, and after an ambiguous 504 the forward exists',
  async (context) => {
    const w = await world(context);
    const [box0, box1] = w.box as [string, string];
    const { originalId } = await withReport(w);
    const first = expectCreated(await w.forward(originalId, { to: box1 }), 'first');
    const second = expectCreated(await w.forward(originalId, { to: box1 }), 'second');
    expectSameOrNewEmail(first, second);
    const made = await expectEmailsMade(w, [first.id, second.id], {
      sender: box0,
      inboxes: [box1],
    });
    try {
      // Another subject, so the 504's forward is new whether or not identical ones are merged.
      await w.control.armFault({ operations: ['forward'], mode: 'timeout-after-commit' });
      expectError(
        await w.forward(originalId, { to: box1, subject: 'After the fault' }),
        504,
        'gateway_timeout',
        undefined,
        'the ambiguous forward',
      );
      expect(await w.listed(box0, 'sent'), 'the forward exists despite the 504').toHaveLength(
        made + 1,
      );
      expect(await w.listed(box1, 'inbox')).toHaveLength(made + 1);
      await w.control.armFault({ operations: ['forward'], mode: 'error', status: 502 });
      expectError(
        await w.forward(originalId, { to: box1, subject: 'Refused' }),
        502,
        'bad_gateway',
        undefined,
        'an armed 502',
      );
      expect(await w.listed(box0, 'sent'), 'a 502 stores nothing').toHaveLength(made + 1);
      expect(await w.listed(box1, 'inbox')).toHaveLength(made + 1);
    } finally {
      await w.control.clearFaults();
    }
  },
  { needs: ['control-plane', 'destructive'] },
);

rule(
  ['8-R1', 'D-10', 'D-25'],
  'holds replies and forwards to 50 combined recipients and refuses suppressed recipients, storing nothing',
  async (context) => {
    const w = await world(context);
    const c = await conversation(w);
    const { originalId } = await withReport(w);
    const many = Array.from({ length: 50 }, (_, i) => external(`m${i}`));
    // Reply: the original sender + 49 cc is 50; + 50 cc is 51.
    expectCreated(await w.reply(c.originalId, { text: 'x', cc: many.slice(0, 49) }), 'reply, 50');
    expectError(
      await w.reply(c.originalId, { text: 'x', cc: many }),
      400,
      'too_many_recipients',
      'cc',
      'reply, 51',
    );
    // Reply-all brings 4 more (Bob, Carol, Dave, box1): + 46 bcc is 50, + 47 is 51.
    expectCreated(
      await w.reply(c.originalId, { replyAll: true, text: 'x', bcc: many.slice(0, 46) }),
      'reply-all, 50',
    );
    expectError(
      await w.reply(c.originalId, { replyAll: true, text: 'x', bcc: many.slice(0, 47) }),
      400,
      'too_many_recipients',
      'bcc',
      'reply-all, 51',
    );
    const to = external('to');
    expectCreated(await w.forward(originalId, { to, cc: many.slice(0, 49) }), 'forward, 50');
    expectError(
      await w.forward(originalId, { to, cc: many.slice(0, 25), bcc: many.slice(25, 50) }),
      400,
      'too_many_recipients',
      'bcc',
      'forward, 51',
    );
    expect(await w.listed(c.box0, 'sent'), 'only the accepted three are stored').toHaveLength(3);

    const blocked = external('blocked');
    const suppressed: string[] = [];
    const suppress = async (address: string) => {
      await w.control.suppress(address);
      suppressed.push(address);
    };
    await suppress(blocked);
    try {
      expectError(
        await w.forward(originalId, { to: blocked }),
        422,
        'recipient_suppressed',
        'to',
        'forward to a suppressed address',
      );
      expectError(
        await w.forward(originalId, { to, bcc: [c.bob, blocked] }),
        422,
        'recipient_suppressed',
        'bcc[1]',
        'forward bcc a suppressed address',
      );
      expectError(
        await w.reply(c.originalId, { text: 'x', cc: [blocked] }),
        422,
        'recipient_suppressed',
        undefined,
        'reply cc a suppressed address',
      );
      await suppress(c.bob);
      expectError(
        await w.reply(c.originalId, { text: 'x' }),
        422,
        'recipient_suppressed',
        undefined,
        'reply to a suppressed sender',
      );
    } finally {
      for (const address of suppressed) await w.control.unsuppress(address);
    }
    expect(await w.listed(c.box0, 'sent'), 'nothing more stored').toHaveLength(3);
  },
  { needs: ['control-plane', 'destructive'] },
);

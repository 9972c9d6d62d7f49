/**
 * §4.7 reply and §4.8 forward: the service derives sender, recipients, subject and threading
 * from the email (D-22); a forward needs a recipient and reuses the original's body, subject
 * and attachments unless replaced (D-23); neither is idempotent; both answer with the sent
 * copy (D-21) and obey the recipient limit (§8).
 *
 * Reply and forward body fields are "not shown" (§4.7, §4.8) but replyAll and attachmentIds:
 * the first success of a check with the decided fields (`text`, `to`, `cc`, …) is charged to
 * D-22 or D-23, later ones to the documented rule they verify. A subject's exact prefix is
 * D-22/D-23; that it carries the original subject is §4.7/§4.8's.
 */
import { simpleParser } from 'mailparser';
import { expectAt } from '../src/contract/charge.ts';
import { rule } from '../src/check-runner/check.ts';
import { expectEmailsMade, expectSameOrNewEmail } from '../src/worlds/identical-requests.ts';
import {
  addresses,
  expectCreated,
  expectCreatedStatus,
  expectError,
  expectLocation,
  external,
  type EmailDetail,
  type ErrorRules,
  randomTag,
  world,
  type World,
} from '../src/worlds/send-world.ts';

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

/**
 * An email in box0 with a text and an HTML body and one attachment, report.csv. The control
 * world places it as inbound mail from an outside sender; an API world, which can only send,
 * has box1 send it (HTML body, the report uploaded) and takes the copy that reached box0.
 */
async function withReport(w: World, subject = w.subject('Report')) {
  const [box0, box1] = w.box as [string, string];
  if (w.apiWorld) {
    const upload = await w.upload('report.csv', REPORT_BYTES, 'text/csv');
    expectCreated(
      w.rule,
      await w.send({
        from: box1,
        to: box0,
        subject,
        html: '<p>See the <b>attached</b> report.</p>',
        attachmentIds: [upload.id],
      }),
      'the email to forward',
    );
    const original = await w.delivered(box0);
    return { originalId: original.id, original, from: box1 };
  }
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
  return { originalId, original: await w.get(originalId, w.rule), from };
}

rule(
  ['4.7-R1', '4.7-R2', 'D-22', 'D-21', 'D-48'],
  'replies from the mailbox to the original sender only, with Re: and In-Reply-To/References threading, answering 201 with the sent copy',
  async (context) => {
    const w = await world(context, { rule: '4.7-R1' });
    const c = await conversation(w);
    const response = await w.reply(c.originalId, { text: 'Thanks' });
    const sent = expectCreated('D-22', response);
    expectAt('4.7-R1', sent.mailbox, 'a copy of the mailbox the email is in').toBe(c.box0);
    expectAt('4.7-R1', sent.from.address, 'sent from the mailbox the email is in').toBe(c.box0);
    expectAt(
      '4.7-R1',
      sent.subject.endsWith('Plan'),
      `the original subject in "${sent.subject}"`,
    ).toBe(true);
    expectAt(
      '4.7-R2',
      addresses(sent.to),
      'to the original sender only (replyAll defaults to false)',
    ).toEqual([c.bob]);
    expectAt('4.7-R2', sent.cc).toEqual([]);
    expectAt('4.7-R2', await w.listed(c.box1), 'box1 was only cc of the original').toEqual([]);
    const entries = (await w.outbox()).filter((e) => e.sentEmailId === sent.id);
    expectAt(
      '4.7-R2',
      entries.flatMap((e) => e.recipients),
    ).toEqual([c.bob]);
    const parsed = await simpleParser(Buffer.from(await w.control.outboxEml(entries[0]!.id)));
    // RFC 5322 §3.6.4: how a reply is threaded on its parent.
    expectAt('4.7-R1', parsed.inReplyTo, 'the In-Reply-To header').toBe(c.messageId);
    expectAt('4.7-R1', [parsed.references ?? []].flat(), 'the References header').toEqual([
      c.root,
      c.messageId,
    ]);
    const explicit = expectCreated(
      '4.7-R2',
      await w.reply(c.originalId, { replyAll: false, markdown: 'Again' }),
    );
    expectAt('4.7-R2', addresses(explicit.to)).toEqual([c.bob]);
    expectAt('4.7-R2', explicit.cc).toEqual([]);
    expectCreatedStatus(response);
    expectAt('D-21', sent, 'the answer is the sent copy').toMatchObject({
      text: 'Thanks',
      bcc: [],
    });
    await expectLocation(w, response, sent);
    expectAt('D-22', sent, 'Re: once, threaded by inReplyTo and references').toMatchObject({
      subject: 'Re: Plan',
      inReplyTo: c.messageId,
      references: [c.root, c.messageId],
    });
    expectAt('D-22', parsed.subject).toBe('Re: Plan');
    expectAt('D-48', sent.folder, 'the sender’s copy is in sent').toBe('sent');
    expectAt('D-48', (await w.listed(c.box0, 'sent')).map((e) => e.id).sort()).toEqual(
      [sent.id, explicit.id].sort(),
    );
  },
  { needs: ['crafted-mail', 'provisioning', 'sent-message', 'destructive'] },
);

rule(
  ['D-22', '4.7-R1', 'D-21'],
  'adds Re: to the subject once: a subject already starting with Re: in any case is kept as it is',
  async (context) => {
    const w = await world(context, { rule: 'D-22' });
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
      const sent = expectCreated('D-22', await w.reply(originalId, { text: 'x' }), original);
      // §4.7: the service determines the subject from the email: it carries the original's.
      expectAt(
        '4.7-R1',
        sent.subject.endsWith(original),
        `"${original}" in "${sent.subject}"`,
      ).toBe(true);
      expectAt('D-22', sent.subject, `reply to "${original}"`).toBe(expected);
      const again = expectCreated(
        'D-22',
        await w.reply(sent.id, { text: 'y' }),
        `reply to the reply`,
      );
      expectAt('D-22', again.subject, `reply to the reply of "${original}"`).toBe(expected);
    }
  },
  { needs: ['crafted-mail', 'provisioning', 'destructive'] },
);

rule(
  ['4.7-R2', 'D-22', 'D-21'],
  'with replyAll adds every other original To and Cc address, each once, never the replying mailbox',
  async (context) => {
    const w = await world(context, { rule: '4.7-R2' });
    const c = await conversation(w);
    const sent = expectCreated(
      'D-22',
      await w.reply(c.originalId, { replyAll: true, text: 'All' }),
    );
    const everyone = addresses([...sent.to, ...sent.cc]);
    const others = (list: string[]) => [...new Set(list.filter((a) => a !== c.box0))].sort();
    expectAt('4.7-R2', others(everyone), 'every original sender, To and Cc address').toEqual(
      [c.bob, c.carol, c.dave, c.box1].sort(),
    );
    const copy = await w.listed(c.box1);
    expectAt('4.7-R2', copy, 'box1, a mailbox here, receives the reply-all').toHaveLength(1);
    const entries = (await w.outbox()).filter((e) => e.sentEmailId === sent.id);
    expectAt('4.7-R2', others(entries.flatMap((e) => e.recipients))).toEqual(
      [c.bob, c.carol, c.dave].sort(),
    );
    expectAt('D-22', sent.to[0]?.address, 'the original sender comes first, in to').toBe(c.bob);
    expectAt('D-22', [...everyone].sort(), 'each other address exactly once').toEqual(
      [c.bob, c.carol, c.dave, c.box1].sort(),
    );
    expectAt('D-22', everyone.includes(c.box0), 'the replying mailbox is not a recipient').toBe(
      false,
    );
    expectAt('D-22', copy[0]!.subject).toBe('Re: Plan');
    expectAt('D-22', entries.flatMap((e) => e.recipients).sort()).toEqual(
      [c.bob, c.carol, c.dave].sort(),
    );
    const extra = external('extra');
    const withCc = expectCreated(
      'D-22',
      await w.reply(c.originalId, { replyAll: true, cc: [extra], text: 'More' }),
    );
    expectAt('D-22', addresses([...withCc.to, ...withCc.cc]).sort()).toEqual(
      [c.bob, c.carol, c.dave, c.box1, extra].sort(),
    );
  },
  { needs: ['crafted-mail', 'provisioning', 'sent-message', 'destructive'] },
);

rule(
  ['D-22', '4.7-R1', 'D-21'],
  'replies to the mailbox’s own sent message by writing to its recipients again, threaded on it',
  async (context) => {
    const w = await world(context, { rule: '4.7-R1' });
    const [box0, box1] = w.box as [string, string];
    const carol = external('carol');
    const dave = external('dave');
    const first = expectCreated(
      '4.7-R1',
      await w.send({
        from: box0,
        to: carol,
        cc: [dave, box1],
        subject: w.subject('Re: Plan'),
        text: 'Hi',
      }),
      'the first message',
    );
    const followUp = expectCreated('D-22', await w.reply(first.id, { text: 'Any news?' }));
    expectAt('4.7-R1', followUp.from.address).toBe(box0);
    expectAt('D-22', addresses(followUp.to), 'to the original to').toEqual([carol]);
    expectAt('D-22', followUp.cc).toEqual([]);
    expectAt('D-22', followUp.subject).toBe(w.subject('Re: Plan'));
    expectAt('D-22', followUp.inReplyTo).toBe(first.messageId);
    expectAt('D-22', followUp.references).toEqual([first.messageId]);
    const all = expectCreated('D-22', await w.reply(first.id, { replyAll: true, text: 'All' }));
    expectAt('D-22', addresses([...all.to, ...all.cc]).sort()).toEqual([carol, dave, box1].sort());
  },
  { needs: ['mail', 'destructive'], concurrent: true },
);

rule(
  ['4.7-R2', '4.7-R1', 'D-22', 'D-21'],
  'replies to the sender only unless replyAll is true, and then to every other To and Cc mailbox too, on mail the run sends itself',
  async (context) => {
    const w = await world(context, { rule: '4.7-R1', boxes: 3 });
    const [box0, box1, box2] = w.box as [string, string, string];
    expectCreated(
      '4.7-R1',
      await w.send({
        from: box0,
        to: box1,
        cc: [box2],
        subject: w.subject(`Plan ${randomTag()}`),
        text: 'Hi',
      }),
      'the original, box0 to box1 with box2 in Cc',
    );
    const received = await w.delivered(box1, '4.7-R1');
    const recipients = (sent: EmailDetail) =>
      addresses([...sent.to, ...(sent.cc ?? []), ...(sent.bcc ?? [])]).map((a) => a.toLowerCase());
    // The body field (text) is D-22's; with it accepted, recipients are §4.7's.
    const plain = expectCreated('D-22', await w.reply(received.id, { text: 'Only you' }));
    expectAt('4.7-R1', recipients(plain), 'a reply goes to the original sender').toContain(
      box0.toLowerCase(),
    );
    expectAt(
      '4.7-R2',
      recipients(plain),
      'without replyAll (false by default): no one else',
    ).toEqual([box0.toLowerCase()]);
    const no = expectCreated('4.7-R2', await w.reply(received.id, { replyAll: false, text: 'No' }));
    expectAt('4.7-R2', recipients(no), 'replyAll false: no one else').toEqual([box0.toLowerCase()]);
    const all = expectCreated(
      '4.7-R2',
      await w.reply(received.id, { replyAll: true, text: 'All' }),
    );
    expectAt(
      '4.7-R2',
      recipients(all).sort(),
      'replyAll true: the sender and the other Cc',
    ).toEqual([box0.toLowerCase(), box2.toLowerCase()].sort());
  },
  { needs: ['mail', 'destructive'], concurrent: true },
);

rule(
  ['4.7-R3', 'D-12', 'D-22', 'D-21'],
  'attaches uploads given as attachmentIds to a reply, and refuses an unknown one with 404 attachment_not_found',
  async (context) => {
    const w = await world(context, { rule: '4.7-R3' });
    const c = await conversation(w);
    const bytes = Buffer.from('reply attachment \u00e9', 'utf8');
    const uploaded = await w.upload('notes.txt', bytes, 'text/plain');
    const missing = '00000000-0000-4000-8000-000000000000';
    expectError(
      ['4.7-R3', 'D-12'],
      await w.reply(c.originalId, { text: 'x', attachmentIds: [missing] }),
      404,
      'attachment_not_found',
      'attachmentIds[0]',
      'an unknown upload',
    );
    expectError(
      ['4.7-R3', 'D-12'],
      await w.reply(c.originalId, { text: 'x', attachmentIds: [uploaded.id, missing] }),
      404,
      'attachment_not_found',
      'attachmentIds[1]',
      'a known then an unknown upload',
    );
    expectAt(
      '4.7-R3',
      (await w.listed(c.box0)).map((e) => e.id),
      'nothing stored for the refused replies',
    ).toEqual([c.originalId]);
    // The body field (text) is D-22's; with it accepted, attachmentIds are §4.7's.
    expectCreated('D-22', await w.reply(c.originalId, { text: 'Plain' }), 'a reply without files');
    const sent = expectCreated(
      '4.7-R3',
      await w.reply(c.originalId, { text: 'Attached', attachmentIds: [uploaded.id] }),
    );
    expectAt('4.7-R3', sent.attachments).toHaveLength(1);
    expectAt('4.7-R3', sent.attachments[0]).toMatchObject({
      name: 'notes.txt',
      size: bytes.length,
    });
    expectAt(
      '4.7-R3',
      (await w.download(sent.attachments[0]!.id)).equals(bytes),
      'downloaded bytes',
    ).toBe(true);
    const entry = (await w.outbox()).find((e) => e.sentEmailId === sent.id);
    const parsed = await simpleParser(Buffer.from(await w.control.outboxEml(entry!.id)));
    expectAt(
      '4.7-R3',
      parsed.attachments.map((a) => a.filename),
    ).toEqual(['notes.txt']);
    expectAt('4.7-R3', parsed.attachments[0]!.content.equals(bytes), 'the attachment as sent').toBe(
      true,
    );
  },
  { needs: ['crafted-mail', 'provisioning', 'sent-message', 'destructive'] },
);

rule(
  ['D-22', '4.7-R1', '4.3-R1', 'D-12', 'D-31', '4.7-R2'],
  'requires exactly one reply body, and takes no recipient or subject of its own: the service derives them',
  async (context) => {
    const w = await world(context, { rule: '4.7-R1' });
    const c = await conversation(w);
    expectError(
      ['D-22', 'D-12'],
      await w.reply(c.originalId, {}),
      400,
      'body_required',
      undefined,
      'no body',
    );
    expectError(
      ['D-22', 'D-12'],
      await w.reply(c.originalId, { replyAll: true }),
      400,
      'body_required',
      undefined,
      'replyAll only',
    );
    expectError(
      ['D-22', 'D-12'],
      await w.reply(c.originalId, { text: 'a', html: '<p>b</p>' }),
      400,
      'body_conflict',
      undefined,
      'two bodies',
    );
    expectError(
      'D-31',
      await w.reply(c.originalId, { text: 'a', to: external('x') }),
      400,
      'unknown_field',
      'to',
      'a to',
    );
    expectError(
      'D-31',
      await w.reply(c.originalId, { text: 'a', subject: 'Mine' }),
      400,
      'unknown_field',
      'subject',
      'a subject',
    );
    expectError(
      'D-31',
      await w.reply(c.originalId, { text: 'a', replyall: true }),
      400,
      'unknown_field',
      'replyall',
      'a misspelt replyAll',
    );
    expectError(
      ['4.7-R2', 'D-12'],
      await w.reply(c.originalId, { text: 'a', replyAll: 'yes' }),
      400,
      'invalid_field',
      'replyAll',
      'a non-boolean replyAll',
    );
    const unknownId = `${c.originalId.slice(0, -1)}${c.originalId.endsWith('Z') ? 'Y' : 'Z'}`;
    expectError(
      ['4.7-R1', 'D-12'],
      await w.reply(unknownId, { text: 'a' }),
      404,
      'email_not_found',
      undefined,
      'no such email',
    );
    expectAt(
      '4.7-R1',
      (await w.listed(c.box0)).map((e) => e.id),
    ).toEqual([c.originalId]);
    expectAt('4.7-R1', await w.outbox()).toEqual([]);
  },
  { needs: ['crafted-mail', 'provisioning', 'sent-message', 'destructive'] },
);

rule(
  ['4.7-R4', 'D-47', 'D-22', 'D-21'],
  'answers an identical reply again with 201, making one reply or two, never more, and after an ambiguous 504 the reply exists',
  async (context) => {
    const w = await world(context, { rule: '4.7-R4' });
    // Any email to reply to will do: an API world's is one box1 sent to box0.
    const c = w.apiWorld
      ? { originalId: (await withReport(w)).originalId, box0: w.box[0]! }
      : await conversation(w);
    const first = expectCreated('D-22', await w.reply(c.originalId, { text: 'Same' }), 'first');
    const second = expectCreated('4.7-R4', await w.reply(c.originalId, { text: 'Same' }), 'second');
    expectSameOrNewEmail('4.7-R4', first, second);
    expectAt('4.7-R4', second.inReplyTo).toBe(first.inReplyTo);
    const made = await expectEmailsMade('4.7-R4', w, [first.id, second.id], {
      sender: c.box0,
      folder: first.folder,
      // What left for outside addresses shows only in a control plane's outbox.
      outbox: !w.apiWorld,
    });
    // Faults on demand are a control plane's.
    if (w.apiWorld) return context.unchecked(['D-47'], ['faults']);
    try {
      // Another body, so the 504's reply is new whether or not identical replies are merged.
      await w.control.armFault({ operations: ['reply'], mode: 'timeout-after-commit' });
      expectError(
        'D-47',
        await w.reply(c.originalId, { text: 'After the fault' }),
        504,
        'gateway_timeout',
        undefined,
        'the ambiguous reply',
      );
      expectAt(
        'D-47',
        await w.listed(c.box0, first.folder),
        'the reply exists despite the 504',
      ).toHaveLength(made + 1);
      await w.control.armFault({ operations: ['reply'], mode: 'error', status: 503 });
      expectError(
        'D-47',
        await w.reply(c.originalId, { text: 'Refused' }),
        503,
        'service_unavailable',
        undefined,
        'an armed 503',
      );
      expectAt('D-47', await w.listed(c.box0, first.folder), 'a 503 stores nothing').toHaveLength(
        made + 1,
      );
      expectAt('D-47', await w.outbox(), 'every stored reply reached the transport').toHaveLength(
        made + 1,
      );
    } finally {
      await w.control.clearFaults();
    }
  },
  // Side by side only in an API world: in a control world it injects faults, which reach
  // every check.
  { needs: ['mail', 'destructive'], concurrent: 'api-world' },
);

rule(
  ['4.8-R1', 'D-23', 'D-31'],
  'requires one forward recipient in to, refusing a missing, listed or malformed one with the field named',
  async (context) => {
    const w = await world(context, { rule: '4.8-R1' });
    const { originalId } = await withReport(w);
    const x = external('x');
    // [label, request, rules (the refusal, its status/code/field), code, field]. With no
    // recipient at all §4.8 requires the refusal; the field's name and form are D-23's.
    const cases: [string, unknown, ErrorRules, string, string][] = [
      ['no body at all', {}, ['4.8-R1', 'D-23'], 'missing_field', 'to'],
      ['a text but no to', { text: 'x' }, ['4.8-R1', 'D-23'], 'missing_field', 'to'],
      ['cc but no to', { cc: [x] }, 'D-23', 'missing_field', 'to'],
      // Only where the target's forward takes one address (its binding): D-23's and ours.
      ...(w.api.dialect.binding.forward.recipient.endsWith('[]') ||
      w.api.dialect.binding.forward.recipient.includes('[].')
        ? []
        : [
            ['to as an array', { to: [x] }, 'D-23', 'invalid_field', 'to'] as [
              string,
              unknown,
              ErrorRules,
              string,
              string,
            ],
          ]),
      ['a malformed to', { to: 'not an address' }, ['4.8-R1', 'D-23'], 'invalid_address', 'to'],
      ['a malformed cc', { to: x, cc: ['bad@'] }, 'D-23', 'invalid_address', 'cc[0]'],
      ['replyAll', { to: x, replyAll: true }, 'D-31', 'unknown_field', 'replyAll'],
      ['two bodies', { to: x, text: 'a', markdown: 'b' }, 'D-23', 'body_conflict', ''],
    ];
    // A case invalid only by D-23 (a listed to) is a valid request where a deployment takes a
    // list of recipients: if one was carried out, what it stored is D-23's, not §4.8's.
    let decidedCaseCarriedOut = false;
    for (const [label, json, rules, code, field] of cases) {
      const answer = await w.forward(originalId, json);
      if (typeof rules === 'string' && answer.status >= 200 && answer.status <= 299)
        decidedCaseCarriedOut = true;
      expectError(rules, answer, 400, code, field || undefined, label);
    }
    const storedRule = decidedCaseCarriedOut ? 'D-23' : '4.8-R1';
    const [box0] = w.box as [string];
    expectAt(
      storedRule,
      (await w.listed(box0)).map((e) => e.id),
    ).toEqual([originalId]);
    // What left for outside addresses shows only in a control plane's outbox.
    if (!w.apiWorld) expectAt(storedRule, await w.outbox()).toEqual([]);
  },
  { needs: ['mail', 'destructive'], concurrent: true },
);

rule(
  ['1-R5', 'D-12'],
  'refuses to forward an email that does not exist with 404 email_not_found, sending and storing nothing',
  async (context) => {
    const w = await world(context, { rule: '1-R5' });
    const { originalId } = await withReport(w);
    const [, box1] = w.box as [string, string];
    const before = (await w.everything()).emails.map((e) => e.id).sort();
    // One character changed (§1: only an existing email can be forwarded).
    const unknownId = `${originalId.slice(0, -1)}${originalId.endsWith('Z') ? 'Y' : 'Z'}`;
    expectError(
      ['1-R5', 'D-12'],
      await w.forward(unknownId, { to: box1 }),
      404,
      'email_not_found',
      undefined,
      'no such email',
    );
    const after = await w.everything();
    expectAt('1-R5', after.emails.map((e) => e.id).sort(), 'nothing was stored').toEqual(before);
    expectAt('1-R5', after.outbox, 'nothing was sent').toEqual([]);
  },
  { needs: ['mail', 'destructive'], concurrent: true },
);

rule(
  ['4.8-R2', 'D-23', 'D-21', '4.8-R1', '2.4-R5', 'D-48'],
  'forwards the original body, subject (Fwd: once) and attachments when no replacement is given',
  async (context) => {
    const w = await world(context, { rule: '4.8-R2' });
    const [, box1] = w.box as [string, string];
    const { originalId, original } = await withReport(w);
    const out = external('out');
    // The recipient field (to) and cc are D-23's: the first success is charged there.
    const response = await w.forward(originalId, { to: box1, cc: [out] });
    const sent = expectCreated('D-23', response);
    expectAt('4.8-R2', sent, 'the original body').toMatchObject({
      text: original.text,
      html: original.html,
    });
    expectAt(
      '4.8-R2',
      sent.subject.endsWith('Report'),
      `the original subject in "${sent.subject}"`,
    ).toBe(true);
    expectAt('4.8-R1', addresses(sent.to)).toEqual([box1]);
    expectAt('4.8-R2', sent.attachments).toHaveLength(1);
    const [attachment] = sent.attachments;
    expectAt('4.8-R2', attachment).toMatchObject({
      name: 'report.csv',
      contentType: original.attachments[0]!.contentType,
      size: REPORT_BYTES.length,
    });
    expectAt('2.4-R5', attachment!.id, 'the forward has its own attachment id').not.toBe(
      original.attachments[0]!.id,
    );
    expectAt(
      '4.8-R2',
      (await w.download(attachment!.id)).equals(REPORT_BYTES),
      'forwarded bytes',
    ).toBe(true);

    const inbox = await w.listed(box1);
    expectAt('4.8-R1', inbox, 'box1 receives the forward').toHaveLength(1);
    const copy = await w.get(inbox[0]!.id);
    expectAt('4.8-R2', copy).toMatchObject({ text: original.text, html: original.html });
    expectAt(
      '4.8-R2',
      copy.attachments.map((a) => [a.name, a.size]),
    ).toEqual([['report.csv', REPORT_BYTES.length]]);
    expectAt('4.8-R2', (await w.download(copy.attachments[0]!.id)).equals(REPORT_BYTES)).toBe(true);

    const entry = (await w.outbox()).find((e) => e.sentEmailId === sent.id);
    expectAt('D-23', entry?.recipients, 'cc gets the real message').toEqual([out]);
    const parsed = await simpleParser(Buffer.from(await w.control.outboxEml(entry!.id)));
    expectAt(
      '4.8-R2',
      parsed.attachments.map((a) => a.filename),
    ).toEqual(['report.csv']);
    expectAt('4.8-R2', parsed.attachments[0]!.content.equals(REPORT_BYTES), 'bytes as sent').toBe(
      true,
    );

    expectCreatedStatus(response);
    await expectLocation(w, response, sent);
    expectAt('D-48', sent.folder, 'the sender’s copy is in sent').toBe('sent');
    expectAt('D-23', addresses(sent.cc)).toEqual([out]);
    expectAt('D-23', sent.subject, 'Fwd: once').toBe('Fwd: Report');
    expectAt('D-23', copy.subject).toBe('Fwd: Report');
    expectAt('D-23', parsed.subject).toBe('Fwd: Report');
    const again = expectCreated(
      '4.8-R2',
      await w.forward(sent.id, { to: out }),
      'forward of the forward',
    );
    expectAt('D-23', again.subject, 'Fwd: is not doubled').toBe('Fwd: Report');
    const { originalId: reId } = await withReport(w, 'Re: Report');
    expectAt('D-23', expectCreated('4.8-R2', await w.forward(reId, { to: out })).subject).toBe(
      'Fwd: Re: Report',
    );
  },
  { needs: ['crafted-mail', 'provisioning', 'sent-message', 'destructive'] },
);

rule(
  ['4.8-R2', '4.8-R3', 'D-23', 'D-21', 'D-12'],
  'replaces only what is given: text replaces the body, subject the subject, attachmentIds the attachments ([] for none)',
  async (context) => {
    const w = await world(context, { rule: '4.8-R2' });
    const { originalId, original } = await withReport(w);
    const to = external('to');
    // The replacement fields (text, markdown, subject) are D-23's, as send names them.
    const text = expectCreated(
      'D-23',
      await w.forward(originalId, { to, text: 'New text' }),
      'text',
    );
    expectAt('4.8-R2', text.text, 'text replaces the body').toBe('New text');
    expectAt(
      '4.8-R2',
      text.subject.endsWith(w.subject('Report')),
      'the original subject is reused',
    ).toBe(true);
    expectAt(
      '4.8-R2',
      text.attachments.map((a) => a.name),
      'attachments still reused',
    ).toEqual(['report.csv']);
    expectAt('D-23', text, 'the whole body replaced').toMatchObject({
      html: null,
      subject: `Fwd: ${w.subject('Report')}`,
    });
    const markdown = expectCreated(
      'D-23',
      await w.forward(originalId, { to, markdown: '**Look**' }),
      'markdown',
    );
    expectAt('4.8-R2', markdown.html ?? '').toMatch(/<strong>Look<\/strong>/);
    expectAt('4.8-R2', markdown.html ?? '').not.toContain('attached');
    const subject = expectCreated(
      'D-23',
      await w.forward(originalId, { to, subject: w.subject('Other subject') }),
      'subject',
    );
    expectAt('4.8-R2', subject).toMatchObject({
      subject: w.subject('Other subject'),
      text: original.text,
      html: original.html,
    });
    const none = expectCreated(
      '4.8-R3',
      await w.forward(originalId, { to, attachmentIds: [] }),
      '[]',
    );
    expectAt('D-23', none.attachments, 'attachmentIds: [] forwards none').toEqual([]);
    expectAt('4.8-R2', none.text).toBe(original.text);
    const extraBytes = Uint8Array.from([0, 1, 2, 3, 254, 255]);
    const extra = await w.upload('extra.bin', extraBytes, 'application/octet-stream', '4.8-R3');
    const replaced = expectCreated(
      '4.8-R3',
      await w.forward(originalId, { to, attachmentIds: [extra.id] }),
      'an upload',
    );
    expectAt(
      '4.8-R3',
      replaced.attachments.map((a) => [a.name, a.size]),
    ).toEqual([['extra.bin', 6]]);
    expectAt(
      '4.8-R3',
      (await w.download(replaced.attachments[0]!.id, '4.8-R3')).equals(Buffer.from(extraBytes)),
    ).toBe(true);
    expectError(
      ['4.8-R3', 'D-12'],
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
  { needs: ['mail', 'destructive'], concurrent: true },
);

rule(
  ['4.8-R4', 'D-47', 'D-23', 'D-21'],
  'answers an identical forward again with 201, making one forward or two, never more, and after an ambiguous 504 the forward exists',
  async (context) => {
    const w = await world(context, { rule: '4.8-R4' });
    const [box0, box1] = w.box as [string, string];
    const { originalId } = await withReport(w);
    const first = expectCreated('D-23', await w.forward(originalId, { to: box1 }), 'first');
    const second = expectCreated('4.8-R4', await w.forward(originalId, { to: box1 }), 'second');
    expectSameOrNewEmail('4.8-R4', first, second);
    const made = await expectEmailsMade('4.8-R4', w, [first.id, second.id], {
      sender: box0,
      folder: first.folder,
      // In an API world box1 also holds the sent copy of the email forwarded: not counted.
      inboxes: w.apiWorld ? [] : [box1],
    });
    // Faults on demand are a control plane's.
    if (w.apiWorld) return context.unchecked(['D-47'], ['faults']);
    try {
      // Another subject, so the 504's forward is new whether or not identical ones are merged.
      await w.control.armFault({ operations: ['forward'], mode: 'timeout-after-commit' });
      expectError(
        'D-47',
        await w.forward(originalId, { to: box1, subject: 'After the fault' }),
        504,
        'gateway_timeout',
        undefined,
        'the ambiguous forward',
      );
      expectAt(
        'D-47',
        await w.listed(box0, first.folder),
        'the forward exists despite the 504',
      ).toHaveLength(made + 1);
      expectAt('D-47', await w.listed(box1)).toHaveLength(made + 1);
      await w.control.armFault({ operations: ['forward'], mode: 'error', status: 502 });
      expectError(
        'D-47',
        await w.forward(originalId, { to: box1, subject: 'Refused' }),
        502,
        'bad_gateway',
        undefined,
        'an armed 502',
      );
      expectAt('D-47', await w.listed(box0, first.folder), 'a 502 stores nothing').toHaveLength(
        made + 1,
      );
      expectAt('D-47', await w.listed(box1)).toHaveLength(made + 1);
    } finally {
      await w.control.clearFaults();
    }
  },
  // Side by side only in an API world: in a control world it injects faults, which reach
  // every check.
  { needs: ['mail', 'destructive'], concurrent: 'api-world' },
);

rule(
  ['8-R1', 'D-10', 'D-25', 'D-22', 'D-23', 'D-21'],
  'holds replies and forwards to 50 combined recipients and refuses suppressed recipients, storing nothing',
  async (context) => {
    const w = await world(context, { rule: '8-R1' });
    const c = await conversation(w);
    const { originalId } = await withReport(w);
    const many = Array.from({ length: 50 }, (_, i) => external(`m${i}`));
    // Reply: the original sender + 49 cc is 50; + 50 cc is 51.
    // The reply's cc and bcc and the forward's to are D-22's and D-23's fields.
    const { folder } = expectCreated(
      'D-22',
      await w.reply(c.originalId, { text: 'x', cc: many.slice(0, 49) }),
      'reply, 50',
    );
    expectError(
      ['8-R1', 'D-10'],
      await w.reply(c.originalId, { text: 'x', cc: many }),
      400,
      'too_many_recipients',
      'cc',
      'reply, 51',
    );
    // Reply-all brings 4 more (Bob, Carol, Dave, box1): + 46 bcc is 50, + 47 is 51.
    expectCreated(
      'D-22',
      await w.reply(c.originalId, { replyAll: true, text: 'x', bcc: many.slice(0, 46) }),
      'reply-all, 50',
    );
    expectError(
      ['8-R1', 'D-10'],
      await w.reply(c.originalId, { replyAll: true, text: 'x', bcc: many.slice(0, 47) }),
      400,
      'too_many_recipients',
      'bcc',
      'reply-all, 51',
    );
    const to = external('to');
    expectCreated(
      'D-23',
      await w.forward(originalId, { to, cc: many.slice(0, 49) }),
      'forward, 50',
    );
    expectError(
      ['8-R1', 'D-10'],
      await w.forward(originalId, { to, cc: many.slice(0, 25), bcc: many.slice(25, 50) }),
      400,
      'too_many_recipients',
      'bcc',
      'forward, 51',
    );
    expectAt(
      '8-R1',
      await w.listed(c.box0, folder),
      'only the accepted three are stored',
    ).toHaveLength(3);

    const blocked = external('blocked');
    const suppressed: string[] = [];
    const suppress = async (address: string) => {
      await w.control.suppress(address);
      suppressed.push(address);
    };
    await suppress(blocked);
    try {
      expectError(
        'D-25',
        await w.forward(originalId, { to: blocked }),
        422,
        'recipient_suppressed',
        'to',
        'forward to a suppressed address',
      );
      expectError(
        'D-25',
        await w.forward(originalId, { to, bcc: [c.bob, blocked] }),
        422,
        'recipient_suppressed',
        'bcc[1]',
        'forward bcc a suppressed address',
      );
      expectError(
        'D-25',
        await w.reply(c.originalId, { text: 'x', cc: [blocked] }),
        422,
        'recipient_suppressed',
        undefined,
        'reply cc a suppressed address',
      );
      await suppress(c.bob);
      expectError(
        'D-25',
        await w.reply(c.originalId, { text: 'x' }),
        422,
        'recipient_suppressed',
        undefined,
        'reply to a suppressed sender',
      );
    } finally {
      for (const address of suppressed) await w.control.unsuppress(address);
    }
    expectAt('D-25', await w.listed(c.box0, folder), 'nothing more stored').toHaveLength(3);
  },
  { needs: ['crafted-mail', 'suppressed', 'provisioning', 'destructive'] },
);

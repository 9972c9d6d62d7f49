/**
 * §4.3 POST /emails/send, §8 limits and the sending decisions: the answer is the sent copy
 * (D-21); local recipients get their own copy and external ones the real message (D-48);
 * every request rule refuses exactly what it should, naming the field, and stores nothing.
 */
import fc from 'fast-check';
import { simpleParser } from 'mailparser';
import { expectAt } from '../src/contract/charge.ts';
import { MissingCapability, rule, type CheckContext } from '../src/check-runner/check.ts';
import { createTenant, type OutboxEntry } from '../src/client/control-client.ts';
import { expectEmailsMade, expectSameOrNewEmail } from '../src/worlds/identical-requests.ts';
import {
  addresses,
  expectCreated,
  expectCreatedStatus,
  expectError,
  expectLocation,
  expectNothingStored,
  external,
  randomTag,
  world,
  type World,
} from '../src/worlds/send-world.ts';

rule(
  ['D-21', '4.3-R6', 'D-48'],
  'answers 201 with the sent copy and a Location that reads it, files it in sent, and accepts from in display-name form',
  async (context) => {
    const w = await world(context, { rule: '4.3-R6' });
    const [box0, box1] = w.box as [string, string];
    const response = await w.send({
      from: `Ann Sender <${box0}>`,
      to: box1,
      subject: w.subject('Created'),
      text: 'The body.',
    });
    const sent = expectCreated('4.3-R6', response);
    expectAt('4.3-R6', sent.from, 'from in display-name form').toEqual({
      address: box0,
      name: 'Ann Sender',
    });
    expectCreatedStatus(response);
    expectAt('D-21', sent, 'the answer is the sent copy').toMatchObject({
      mailbox: box0,
      subject: w.subject('Created'),
      text: 'The body.',
      bcc: [],
    });
    expectAt('D-21', addresses(sent.to)).toEqual([box1]);
    await expectLocation(w, response, sent);
    expectAt('D-48', sent, 'the sender’s copy is read, in sent').toMatchObject({
      folder: 'sent',
      read: true,
    });
    expectAt(
      'D-48',
      (await w.listed(box0, 'sent')).map((e) => e.id),
    ).toEqual([sent.id]);
    expectAt('D-48', await w.listed(box0, 'inbox')).toEqual([]);
  },
  { needs: ['mail', 'destructive'], concurrent: true },
);

rule(
  ['4.3-R7', '4.3-R8', '7-R1', 'D-11', 'D-12', 'D-21'],
  'takes exactly one to address and arrays of cc and bcc, refusing anything else with the field named',
  async (context) => {
    const w = await world(context, { rule: '4.3-R7' });
    const [box0, box1] = w.box as [string, string];
    const ok = external('ok');
    const base = { from: box0, to: box1, subject: w.subject('Addresses'), text: 'x' };
    // [label, request, the rule requiring the refusal, the rule choosing code and field, …]
    const cases: [string, unknown, string, string, string, string][] = [
      ['to as an array of one', { ...base, to: [box1] }, '4.3-R7', 'D-12', 'invalid_field', 'to'],
      [
        'to as an array of two',
        { ...base, to: [box1, ok] },
        '4.3-R7',
        'D-12',
        'invalid_field',
        'to',
      ],
      [
        'two addresses in one to',
        { ...base, to: `${box1}, ${ok}` },
        '4.3-R7',
        'D-11',
        'invalid_address',
        'to',
      ],
      [
        'to without a domain',
        { ...base, to: 'someone' },
        '4.3-R7',
        'D-11',
        'invalid_address',
        'to',
      ],
      // RFC 5322 allows a dotless domain: refusing it is D-11's choice.
      [
        'to with a dotless domain',
        { ...base, to: 'someone@localhost' },
        'D-11',
        'D-11',
        'invalid_address',
        'to',
      ],
      ['an empty to', { ...base, to: '' }, '4.3-R7', 'D-11', 'invalid_address', 'to'],
      [
        'no to at all',
        { from: box0, subject: w.subject('s'), text: 'x' },
        '4.3-R7',
        'D-12',
        'missing_field',
        'to',
      ],
      ['cc as a string', { ...base, cc: ok }, '4.3-R8', 'D-12', 'invalid_field', 'cc'],
      ['bcc as a string', { ...base, bcc: ok }, '4.3-R8', 'D-12', 'invalid_field', 'bcc'],
      [
        'a bad second cc',
        { ...base, cc: [ok, 'bad@'] },
        '4.3-R8',
        'D-11',
        'invalid_address',
        'cc[1]',
      ],
      [
        'a bad first bcc',
        { ...base, bcc: ['@bad.test', ok] },
        '4.3-R8',
        'D-11',
        'invalid_address',
        'bcc[0]',
      ],
      ['a bad from', { ...base, from: 'nobody' }, 'D-11', 'D-11', 'invalid_address', 'from'],
    ];
    for (const [label, json, refused, decided, code, field] of cases) {
      // A live deployment may deliver to a dotless domain (RFC 5322 allows one), so the suite
      // never sends it there (client.ts); only the emulator, whose mail goes nowhere, is asked.
      if (label === 'to with a dotless domain' && context.target.kind === 'live') continue;
      const response = await w.send(json);
      expectError([refused, decided], response, 400, code, field, label);
      // §7: the error names the offending field; how it spells a list entry is D-11/D-12.
      expectAt('7-R1', response.json<{ field?: unknown }>().field, `${label}: a field`).toBeTypeOf(
        'string',
      );
    }
    await expectNothingStored(w, '4.3-R7', 'after refused requests');
    const sent = expectCreated(
      '4.3-R8',
      await w.send({
        ...base,
        to: `Bea Reader <${box1}>`,
        cc: [ok, `Cy <${external('cy')}>`],
        bcc: [external('bcc')],
      }),
      'one to in display-name form, two cc, one bcc',
    );
    expectAt('4.3-R7', sent.to).toEqual([{ address: box1, name: 'Bea Reader' }]);
    expectAt('4.3-R8', sent.cc).toHaveLength(2);
    expectAt('4.3-R8', sent.cc[0]?.address).toBe(ok);
    expectAt('4.3-R8', sent.cc[1]?.name).toBe('Cy');
    expectAt('4.3-R8', sent.bcc).toHaveLength(1);
  },
  { needs: ['mail', 'destructive'], concurrent: true },
);

/** A mailbox of another owner and that owner's key: made, or learnt from the other key. */
async function foreignMailbox(context: CheckContext, w: World) {
  if (!w.apiWorld) {
    const other = await createTenant(w.control, 1);
    return { foreign: other.mailboxes[0] as string, theirKey: other.key.secret };
  }
  const theirKey = (context.target.keys?.['other-owner'] ?? context.target.secondApiKey)!;
  const listed = await context.api.request({ path: '/mailboxes', apiKey: theirKey });
  const foreign = listed.json<{ address: string }[]>()[0]?.address;
  if (foreign === undefined)
    throw new MissingCapability('needs a mailbox of another owner: the other-owner key lists none');
  return { foreign, theirKey };
}

rule(
  ['4.3-R1', 'D-12', 'D-21'],
  'requires exactly one of markdown, html and text: none is body_required, two or three body_conflict',
  async (context) => {
    const w = await world(context, { rule: '4.3-R1' });
    const [box0, box1] = w.box as [string, string];
    const base = { from: box0, to: box1, subject: w.subject('Body rule') };
    expectError(['4.3-R1', 'D-12'], await w.send(base), 400, 'body_required', undefined, 'no body');
    const bodies = { markdown: '*m*', html: '<p>h</p>', text: 't' };
    const pairs: (keyof typeof bodies)[][] = [
      ['markdown', 'html'],
      ['markdown', 'text'],
      ['html', 'text'],
      ['markdown', 'html', 'text'],
    ];
    for (const pair of pairs) {
      const json = { ...base, ...Object.fromEntries(pair.map((k) => [k, bodies[k]])) };
      expectError(
        ['4.3-R1', 'D-12'],
        await w.send(json),
        400,
        'body_conflict',
        undefined,
        pair.join(' + '),
      );
    }
    await expectNothingStored(w, '4.3-R1', 'after refused requests');
    for (const kind of ['markdown', 'html', 'text'] as const)
      expectCreated('4.3-R1', await w.send({ ...base, [kind]: bodies[kind] }), `${kind} alone`);
    expectAt('4.3-R1', await w.listed(box0), 'the three accepted sends are stored').toHaveLength(3);
  },
  { needs: ['mail', 'destructive'], concurrent: true },
);

rule(
  ['4.3-R6', '4.3-R7', '4.3-R9', 'D-12'],
  'requires from, to and subject: leaving out any one, or all three, is refused with missing_field naming it, storing nothing',
  async (context) => {
    const w = await world(context, { rule: '4.3-R6' });
    const [box0, box1] = w.box as [string, string];
    const full = { from: box0, to: box1, subject: w.subject('Required'), text: 'x' };
    // Each required field of §4.3 left out on its own, every time (not only when a generator
    // happens to draw it): the refusal is the document's, its code and field D-12's.
    for (const [field, at] of [
      ['from', '4.3-R6'],
      ['to', '4.3-R7'],
      ['subject', '4.3-R9'],
    ] as const) {
      const { [field]: _left, ...json } = full;
      expectError([at, 'D-12'], await w.send(json), 400, 'missing_field', field, `no ${field}`);
    }
    const none = await w.send({ text: 'x' });
    expectError(['4.3-R6', 'D-12'], none, 400, 'missing_field', undefined, 'none of the three');
    expectAt(
      'D-12',
      ['from', 'to', 'subject'].includes(none.json<{ field?: string }>().field ?? ''),
      'the refusal names one of the missing fields',
    ).toBe(true);
    await expectNothingStored(w, '4.3-R6', 'after sends missing a required field');
    expectCreated('4.3-R6', await w.send(full), 'with all three');
  },
  { needs: ['mail', 'destructive'], concurrent: true },
);

rule(
  ['4.3-R2', '8-R1', 'D-10', '7-R2', 'D-21'],
  'accepts 50 combined recipients and refuses 51 with too_many_recipients naming the list, duplicates counted',
  async (context) => {
    const w = await world(context, { rule: '4.3-R2' });
    const [box0] = w.box as [string];
    const x = external('many');
    const others = Array.from({ length: 60 }, (_, i) => external(`r${i}`));
    const base = { from: box0, to: x, subject: w.subject('Count'), text: 'x' };
    const same = (n: number) => Array.from({ length: n }, () => x);
    // 51 distinct recipients are more than 50 however they are counted (§4.3 rule 2).
    expectCreated('4.3-R2', await w.send({ ...base, cc: others.slice(0, 49) }), '50 distinct');
    expectError(
      ['4.3-R2', 'D-10'],
      await w.send({ ...base, cc: others.slice(0, 50) }),
      400,
      'too_many_recipients',
      'cc',
      'to + 50 cc',
    );
    expectError(
      ['4.3-R2', 'D-10'],
      await w.send({ ...base, cc: others.slice(0, 25), bcc: others.slice(25, 50) }),
      400,
      'too_many_recipients',
      'bcc',
      'to + 25 cc + 25 bcc',
    );
    const sent = await w.listed(box0);
    expectAt('4.3-R2', sent, 'only the accepted request is stored').toHaveLength(1);
    // What left for outside addresses shows only in a control plane's outbox.
    if (!w.apiWorld)
      expectAt(
        '4.3-R2',
        [...new Set((await w.outbox()).map((e) => e.sentEmailId))].sort(),
        'only the accepted request is sent',
      ).toEqual(sent.map((e) => e.id));
    // The same address 50 times is at most 50 recipients, however they are counted; that 51
    // entries of one address are too many is D-10's choice (duplicates counted).
    expectCreated(
      '4.3-R2',
      await w.send({ ...base, cc: same(30), bcc: same(19) }),
      '50 with duplicates',
    );
    expectError(
      'D-10',
      await w.send({ ...base, cc: same(30), bcc: same(20) }),
      400,
      'too_many_recipients',
      'bcc',
      '51 entries of one address',
    );
    expectAt('D-10', await w.listed(box0), 'the refused request stored nothing').toHaveLength(2);
  },
  { needs: ['mail', 'destructive'], concurrent: true },
);

rule(
  ['D-26', '5-R3'],
  'refuses a from mailbox outside the key exactly like one that does not exist: 404 mailbox_not_found, field from',
  async (context) => {
    const w = await world(context, { rule: '5-R3' });
    // Another owner's mailbox: one the control plane makes, or one the other owner's key lists.
    const { foreign, theirKey } = await foreignMailbox(context, w);
    const missing = `nobody-${randomTag()}@${w.tenant.domain}`;
    const subject = w.subject(`Scope ${randomTag()}`);
    const base = { to: external('x'), subject, text: 'x' };
    const outOfScope = await w.send({ ...base, from: foreign });
    expectError(
      ['5-R3', 'D-26'],
      outOfScope,
      404,
      'mailbox_not_found',
      'from',
      'another owner’s mailbox',
    );
    const absent = await w.send({ ...base, from: missing });
    expectError(
      ['5-R3', 'D-26'],
      absent,
      404,
      'mailbox_not_found',
      'from',
      'a mailbox that does not exist',
    );
    const strip = (text: string, what: string) => text.split(what).join('<address>');
    expectAt(
      'D-26',
      strip(outOfScope.text, foreign),
      'the two answers differ only by the address',
    ).toBe(strip(absent.text, missing));
    for (const folder of [undefined, 'sent']) {
      const theirs = await context.api.request({
        path: '/emails',
        query: { mailbox: foreign, limit: 100, ...(folder === undefined ? {} : { folder }) },
        apiKey: theirKey,
      });
      expectAt(
        '5-R3',
        (theirs.json<{ emails?: { subject: string }[] }>().emails ?? []).filter(
          (e) => e.subject === subject,
        ),
        'nothing sent as them',
      ).toEqual([]);
    }
  },
  { needs: ['mail', 'second-key', 'destructive'], concurrent: true },
);

rule(
  ['D-31', 'D-28', '4-R1', 'D-21'],
  'refuses unknown body fields with unknown_field and a non-JSON Content-Type with 415',
  async (context) => {
    const w = await world(context, { rule: '4-R1' });
    const [box0, box1] = w.box as [string, string];
    const base = { from: box0, to: box1, subject: w.subject('Strict'), text: 'x' };
    expectError(
      'D-31',
      await w.send({ ...base, replyAll: true }),
      400,
      'unknown_field',
      'replyAll',
    );
    expectError('D-31', await w.send({ ...base, preheder: 'p' }), 400, 'unknown_field', 'preheder');
    expectError('D-31', await w.send({ ...base, zz: 1, aa: 2 }), 400, 'unknown_field', 'aa');
    expectError(
      'D-28',
      await w.send(base, { 'Content-Type': 'text/plain' }),
      415,
      'unsupported_media_type',
    );
    expectCreated(
      '4-R1',
      await w.send(base, { 'Content-Type': 'application/json; charset=utf-8' }),
      'application/json with a charset',
    );
    expectAt('D-31', await w.listed(box0), 'the refused requests stored nothing').toHaveLength(1);
  },
  { needs: ['mail', 'destructive'], concurrent: true },
);

rule(
  ['4.3-R5', 'D-21'],
  'answers an identical send again with 201 and a sent copy, making one email or two, never more: no idempotency guarantee either way',
  async (context) => {
    const w = await world(context, { rule: '4.3-R5' });
    const [box0, box1] = w.box as [string, string];
    const request = { from: box0, to: box1, subject: w.subject('Twice'), text: 'Same request.' };
    const first = expectCreated('4.3-R5', await w.send(request), 'first');
    const second = expectCreated('4.3-R5', await w.send(request), 'second, identical');
    expectSameOrNewEmail('4.3-R5', first, second);
    await expectEmailsMade('4.3-R5', w, [first.id, second.id], {
      sender: box0,
      folder: first.folder,
      inboxes: [box1],
    });
  },
  { needs: ['mail', 'destructive'], concurrent: true },
);

rule(
  ['D-48', '4.3-R8', '2.3-R2', 'D-21'],
  'delivers a copy to each local recipient (unread, bcc hidden), keeps bcc on the sender’s copy, and hands external recipients the real message without a Bcc header',
  async (context) => {
    const w = await world(context, { boxes: 4, rule: 'D-48' });
    const [box0, box1, box2, box3] = w.box as [string, string, string, string];
    const extCc = external('cc');
    const extBcc = external('bcc');
    const sent = expectCreated(
      'D-48',
      await w.send({
        from: `Ann <${box0}>`,
        to: box1,
        cc: [box2, extCc],
        bcc: [box3, extBcc],
        subject: w.subject('Delivery'),
        text: 'To everyone.',
      }),
    );
    expectAt('D-48', addresses(sent.bcc), 'the sender’s copy keeps bcc').toEqual([box3, extBcc]);
    expectAt(
      'D-48',
      (await w.listed(box0, 'sent')).map((e) => e.id),
    ).toEqual([sent.id]);
    for (const mailbox of [box1, box2, box3]) {
      const inbox = await w.listed(mailbox, 'inbox');
      expectAt('D-48', inbox, `${mailbox} gets one copy in inbox`).toHaveLength(1);
      expectAt('D-48', inbox[0]!.id, `${mailbox}'s copy is its own`).not.toBe(sent.id);
      const copy = await w.get(inbox[0]!.id);
      expectAt('D-48', copy, `${mailbox}'s copy is its own, unread, in inbox`).toMatchObject({
        mailbox,
        folder: 'inbox',
        read: false,
        bcc: [],
      });
      expectAt(
        '2.3-R2',
        copy,
        `${mailbox}'s copy has the sender, subject and content`,
      ).toMatchObject({
        subject: w.subject('Delivery'),
        text: 'To everyone.',
        messageId: sent.messageId,
        from: { address: box0, name: 'Ann' },
      });
      expectAt('2.3-R2', addresses(copy.to)).toEqual([box1]);
      expectAt('4.3-R8', addresses(copy.cc)).toEqual([box2, extCc]);
      const named = addresses([...copy.to, ...copy.cc, ...copy.bcc, ...copy.replyTo]);
      expectAt(
        '4.3-R8',
        named.includes(box3) || named.includes(extBcc),
        `${mailbox}'s copy names a bcc`,
      ).toBe(false);
      expectAt('D-48', await w.listed(mailbox, 'sent'), `${mailbox} sent nothing`).toEqual([]);
    }
    // The messages that left for outside addresses show only in a control plane's outbox.
    if (w.apiWorld) return;
    const entries: OutboxEntry[] = (await w.outbox()).filter((e) => e.sentEmailId === sent.id);
    expectAt(
      'D-48',
      entries.flatMap((e) => e.recipients).sort(),
      'the external recipients, each once, and no local one',
    ).toEqual([extCc, extBcc].sort());
    for (const entry of entries) {
      expectAt('2.3-R2', entry).toMatchObject({
        from: box0,
        subject: w.subject('Delivery'),
        messageId: sent.messageId,
      });
      const parsed = await simpleParser(Buffer.from(await w.control.outboxEml(entry.id)));
      expectAt('2.3-R2', parsed.subject).toBe(w.subject('Delivery'));
      expectAt('2.3-R2', parsed.messageId).toBe(sent.messageId);
      expectAt(
        '2.3-R2',
        parsed.from?.value.map((a) => a.address),
      ).toEqual([box0]);
      const list = (v: typeof parsed.to) =>
        (Array.isArray(v) ? v : v === undefined ? [] : [v]).flatMap((o) =>
          o.value.map((a) => a.address),
        );
      expectAt('2.3-R2', list(parsed.to)).toEqual([box1]);
      expectAt('4.3-R8', list(parsed.cc)).toEqual([box2, extCc]);
      expectAt('4.3-R8', parsed.headers.has('bcc'), 'the message carries no Bcc header').toBe(
        false,
      );
      expectAt('2.3-R2', parsed.text?.trim()).toBe('To everyone.');
    }
  },
  { needs: ['mail', 'destructive'], concurrent: true },
);

/** What would run script in a mail client or browser: script elements, on* handlers, script URLs. */
function scriptableParts(html: string): string[] {
  const found: string[] = [];
  if (/<\s*script\b/i.test(html)) found.push('a <script> element');
  const tags = html.match(/<[a-z][^>]*>/gi) ?? [];
  for (const tag of tags) {
    for (const m of tag.matchAll(/\s([^\s"'=<>/]+)\s*=\s*("([^"]*)"|'([^']*)'|([^\s>]+))/g)) {
      const name = (m[1] ?? '').toLowerCase();
      const value = decodeEntities(m[3] ?? m[4] ?? m[5] ?? '')
        .replace(/[\u0000-\u0020]/g, '')
        .toLowerCase();
      if (name.startsWith('on')) found.push(`an event handler attribute in ${tag}`);
      if (/^(javascript|vbscript):/.test(value)) found.push(`a script URL in ${tag}`);
      if (/^data:text\/html/.test(value)) found.push(`an HTML data URL in ${tag}`);
    }
  }
  return found;
}

function decodeEntities(value: string): string {
  return value
    .replace(/&#x([0-9a-f]+);?/gi, (_, hex: string) => String.fromCodePoint(parseInt(hex, 16)))
    .replace(/&#(\d+);?/g, (_, dec: string) => String.fromCodePoint(Number(dec)))
    .replace(/&colon;/gi, ':')
    .replace(/&tab;/gi, '\t')
    .replace(/&newline;/gi, '\n');
}

const XSS_VECTORS = [
  '<script>alert(1)</script>',
  '<SCRIPT SRC="https://evil.test/x.js"></SCRIPT>',
  '<img src="https://example.test/i.png" onerror="alert(1)">',
  '<img src=x onerror=alert(1)>',
  '<a href="javascript:alert(1)">a</a>',
  '<a href="JaVaScRiPt:alert(1)">b</a>',
  '<a href="&#106;avascript:alert(1)">c</a>',
  '<a href=" javascript:alert(1)">d</a>',
  '<a href="vbscript:msgbox(1)">e</a>',
  '[f](javascript:alert(1))',
  '<svg onload="alert(1)"><circle/></svg>',
  '<iframe src="data:text/html,<script>alert(1)</script>"></iframe>',
  '<div onclick="alert(1)">g</div>',
  '<body onload=alert(1)>',
  '<p style="x" onmouseover="alert(1)">h</p>',
  '<object data="javascript:alert(1)"></object>',
  '<form action="javascript:alert(1)"><button>i</button></form>',
  '<math><a xlink:href="javascript:alert(1)">j</a></math>',
  '**bold**',
  '# Heading',
  '- item',
  'plain words',
];

rule(
  ['4.3-R10', 'D-21'],
  'renders Markdown to HTML with its elements and a plain-text part, with no script surviving',
  async (context) => {
    const w = await world(context, { rule: '4.3-R10' });
    const [box0, box1] = w.box as [string, string];
    const markdown = [
      '# Title here',
      '',
      'A paragraph with **bold**, _emphasis_ and [a link](https://example.test/page).',
      '',
      ...[2, 3, 4, 5, 6].flatMap((n) => [`${'#'.repeat(n)} Level ${n}`, '']),
      'First line with a hard break  ',
      'second line with [a plain link](http://example.test/plain) and ![chart](http://example.test/chart.png?from=data:feed)',
      '',
      '- first item',
      '- second item',
      '',
      '<script>alert("x")</script>',
      '<img src="https://example.test/i.png" alt="pic" onerror="alert(1)">',
      '<a href="javascript:alert(1)">bad link</a>',
    ].join('\n');
    const sent = expectCreated(
      '4.3-R10',
      await w.send({ from: box0, to: box1, subject: w.subject('MD'), markdown }),
    );
    const html = sent.html ?? '';
    expectAt('4.3-R10', sent.html, 'a Markdown body has an HTML part').not.toBeNull();
    for (const [what, pattern] of [
      ['<h1>Title here</h1>', /<h1\b[^>]*>\s*Title here\s*<\/h1>/],
      ['<strong>bold</strong>', /<(strong|b)\b[^>]*>bold<\/\1>/],
      ['<em>emphasis</em>', /<(em|i)\b[^>]*>emphasis<\/\1>/],
      ['a link to https://example.test/page', /<a\b[^>]*href="https:\/\/example\.test\/page"/],
      ['<ul> with <li>first item</li>', /<ul\b[^>]*>\s*<li\b[^>]*>\s*first item\s*<\/li>/],
      ...[2, 3, 4, 5, 6].map(
        (n) =>
          [
            `<h${n}>Level ${n}</h${n}>`,
            new RegExp(`<h${n}\\b[^>]*>\\s*Level ${n}\\s*</h${n}>`),
          ] as const,
      ),
      ['a <br> for the hard line break', /a hard break\s*<br\b[^>]*>\s*second line/],
      ['a link to http://example.test/plain', /<a\b[^>]*href="http:\/\/example\.test\/plain"/],
      [
        'an http image (its URL merely contains "data:")',
        /<img\b[^>]*src="http:\/\/example\.test\/chart\.png\?from=data:feed"/,
      ],
    ] as const) {
      expectAt('4.3-R10', pattern.test(html), `the HTML has ${what}:\n${html}`).toBe(true);
    }
    expectAt('4.3-R10', scriptableParts(html), `scriptable parts in:\n${html}`).toEqual([]);
    expectAt('4.3-R10', sent.text, 'Markdown also supplies the text part').not.toBeNull();
    const text = sent.text ?? '';
    for (const words of [
      'Title here',
      'bold',
      'emphasis',
      'a link',
      ...[2, 3, 4, 5, 6].map((n) => `Level ${n}`),
      'a plain link',
      'first item',
      'second item',
    ])
      expectAt('4.3-R10', text.includes(words), `the text part has "${words}":\n${text}`).toBe(
        true,
      );
    expectAt(
      '4.3-R10',
      /a hard break *\r?\n *second line/.test(text),
      `the hard break is a line break:\n${text}`,
    ).toBe(true);
    expectAt(
      '4.3-R10',
      /<\/?(h[1-6]|strong|em|ul|li|p|a|br|img)\b/i.test(text),
      `no HTML tags in the text:\n${text}`,
    ).toBe(false);
    expectAt('4.3-R10', text.includes('alert("x")'), 'script content is not text').toBe(false);
    const copy = await w.delivered(box1);
    expectAt('4.3-R10', copy.html, 'the recipient gets the same HTML').toBe(sent.html);
  },
  { needs: ['mail', 'destructive'], concurrent: true },
);

rule(
  ['4.3-R10', 'D-21'],
  'never lets a script element, event handler or script URL survive Markdown rendering, for generated mixes of known vectors',
  async (context) => {
    const w = await world(context, { rule: '4.3-R10' });
    const [box0, box1] = w.box as [string, string];
    await context.property(
      fc.array(fc.constantFrom(...XSS_VECTORS), { minLength: 1, maxLength: 6 }),
      async (parts) => {
        const markdown = parts.join('\n\n');
        const sent = expectCreated(
          '4.3-R10',
          await w.send({ from: box0, to: box1, subject: w.subject('X'), markdown }),
        );
        expectAt(
          '4.3-R10',
          scriptableParts(sent.html ?? ''),
          `from Markdown:\n${markdown}`,
        ).toEqual([]);
      },
    );
  },
  { needs: ['mail', 'destructive'], timeout: 60_000, concurrent: true },
);

rule(
  ['4.3-R11', 'D-21'],
  'sends an HTML body as-is, byte for byte',
  async (context) => {
    const w = await world(context, { rule: '4.3-R11' });
    const [box0, box1] = w.box as [string, string];
    const out = external('html');
    const html =
      '<!-- kept --><table role="presentation" style="width:100%"><tr>' +
      '<td class="x" data-v="1">Caf\u00e9 &amp; <b>bold</b>\u00a0\u{1F600}</td></tr></table>\n' +
      '<p>  spaced   text  </p><custom-tag foo="bar">?</custom-tag>';
    const sent = expectCreated(
      '4.3-R11',
      await w.send({ from: box0, to: box1, cc: [out], subject: w.subject('As is'), html }),
    );
    expectAt('4.3-R11', sent.html, 'the sent copy’s HTML equals the request').toBe(html);
    const copy = await w.delivered(box1);
    expectAt('4.3-R11', copy.html, 'the recipient’s HTML equals the request').toBe(html);
    // The message that left for the outside address shows only in a control plane's outbox.
    if (w.apiWorld) return;
    const entry = (await w.outbox()).find((e) => e.sentEmailId === sent.id);
    expectAt('4.3-R11', entry, 'the external copy in the outbox').toBeDefined();
    const parsed = await simpleParser(Buffer.from(await w.control.outboxEml(entry!.id)));
    // A MIME body ends with a line break the encoder adds; the part is the HTML as given.
    const part = typeof parsed.html === 'string' ? parsed.html.replace(/\r?\n$/, '') : parsed.html;
    expectAt('4.3-R11', part, 'the HTML part of the message sent').toBe(html);
  },
  { needs: ['mail', 'destructive'], concurrent: true },
);

rule(
  ['4.3-R12', 'D-21'],
  'stores a text body as the plain-text part, with no HTML part',
  async (context) => {
    const w = await world(context, { rule: '4.3-R12' });
    const [box0, box1] = w.box as [string, string];
    const text = 'Line one\nLine <two> & **not markdown**\n\n  indented\u00e9';
    const sent = expectCreated(
      '4.3-R12',
      await w.send({ from: box0, to: box1, subject: w.subject('Text'), text }),
    );
    expectAt('4.3-R12', sent.text).toBe(text);
    expectAt('4.3-R12', sent.html, 'a text body has no HTML part').toBeNull();
    const copy = await w.delivered(box1);
    expectAt('4.3-R12', copy.text).toBe(text);
    expectAt('4.3-R12', copy.html).toBeNull();
  },
  { needs: ['mail', 'destructive'], concurrent: true },
);

rule(
  ['D-8', '2.6-R2', 'D-21'],
  'puts the preheader, variables filled in, hidden at the start of the HTML part and returns it as preheader',
  async (context) => {
    const w = await world(context, { rule: 'D-8' });
    const [box0, box1] = w.box as [string, string];
    const out = external('pre');
    const base = {
      from: box0,
      to: box1,
      subject: w.subject('Preheader'),
      preheader: 'Preview for {{ who }} & co',
      variables: { who: 'Ann' },
    };
    const expected = 'Preview for Ann & co';
    const hidden = (html: string) => {
      const first = /^\s*<([a-z][a-z0-9]*)\b([^>]*)>([\s\S]*?)<\/\1>/i.exec(html);
      expectAt('D-8', first, `the HTML starts with an element:\n${html}`).not.toBeNull();
      const [, , attributes, content] = first!;
      expectAt(
        'D-8',
        /display\s*:\s*none/i.test(attributes ?? '') || /\bhidden\b/i.test(attributes ?? ''),
        `the first element is hidden: ${first![0]}`,
      ).toBe(true);
      expectAt(
        'D-8',
        decodeEntities(content ?? '')
          .replace(/&amp;/g, '&')
          .trim(),
      ).toBe(expected);
      return html.slice(first!.index + first![0].length);
    };
    const md = expectCreated(
      'D-8',
      await w.send({ ...base, cc: [out], markdown: 'Body **here**' }),
      'Markdown',
    );
    expectAt('2.6-R2', md.preheader, 'variables fill the preheader').toBe(expected);
    expectAt('D-8', hidden(md.html ?? '')).toMatch(/<strong>here<\/strong>/);
    // The message that left for the outside address shows only in a control plane's outbox.
    if (!w.apiWorld) {
      const entry = (await w.outbox()).find((e) => e.sentEmailId === md.id);
      const parsed = await simpleParser(Buffer.from(await w.control.outboxEml(entry!.id)));
      hidden(typeof parsed.html === 'string' ? parsed.html : '');
    }

    const html = '<p>Raw</p>';
    const raw = expectCreated('D-8', await w.send({ ...base, html }), 'HTML');
    expectAt('2.6-R2', raw.preheader).toBe(expected);
    expectAt('D-8', hidden(raw.html ?? ''), 'the rest is the HTML as given').toBe(html);

    const text = expectCreated('D-8', await w.send({ ...base, text: 'Just text' }), 'text');
    expectAt('2.6-R2', text.preheader, 'a text-only message stores the preheader').toBe(expected);
    expectAt('D-8', text.html, 'and has no HTML part').toBeNull();
    expectAt('D-8', text.text).toBe('Just text');

    const none = expectCreated(
      'D-8',
      await w.send({ from: box0, to: box1, subject: w.subject('No preheader'), markdown: 'x' }),
    );
    expectAt('D-8', none.preheader).toBeNull();
  },
  { needs: ['mail', 'destructive'], concurrent: true },
);

// Alone, after the checks that run side by side: its subjects are 998 characters, with no
// room for a tag (check-runner/check.ts, `concurrent`).
rule(
  ['4.3-R9', '8-R2', 'D-9', '7-R2', 'D-12', 'D-21'],
  'accepts a 998-character subject and refuses 999 with subject_too_long, counting an astral character once',
  async (context) => {
    const w = await world(context, { rule: '4.3-R9' });
    const [box0, box1] = w.box as [string, string];
    const base = { from: box0, to: box1, text: 'x' };
    const accept = async (subject: string, at: string) => {
      const sent = expectCreated(
        at,
        await w.send({ ...base, subject }),
        `${[...subject].length} code points, ${subject.length} UTF-16 units`,
      );
      expectAt(at, sent.subject === subject, 'the subject is stored unchanged').toBe(true);
    };
    await accept('a'.repeat(998), '4.3-R9');
    // 999 code points are more than 998 characters however characters are counted.
    for (const subject of ['a'.repeat(999), `😀${'a'.repeat(998)}`, '😀'.repeat(999)]) {
      expectError(
        ['4.3-R9', 'D-12'],
        await w.send({ ...base, subject }),
        400,
        'subject_too_long',
        'subject',
        `${[...subject].length} code points`,
      );
    }
    expectAt('4.3-R9', await w.listed(box0), 'refused subjects store nothing').toHaveLength(1);
    // 998 code points with astral characters are more than 998 UTF-16 units: D-9 counts code points.
    for (const subject of [`😀${'a'.repeat(997)}`, '😀'.repeat(998)]) await accept(subject, 'D-9');
  },
  { needs: ['mail', 'destructive'] },
);

// Alone: a fault injected on demand reaches every request of the target.
rule(
  ['4.3-R5', 'D-47', 'D-21'],
  'after an ambiguous 504 the email exists and a retry makes at most one more; a 502/503 stores and sends nothing',
  async (context) => {
    // The faults are armed on the control plane; what each status means is D-47's choice.
    const w = await world(context, { rule: 'D-47' });
    const [box0, box1] = w.box as [string, string];
    const out = external('fault');
    const request = { from: box0, to: box1, cc: [out], subject: w.subject('Flaky'), text: 'x' };
    try {
      await w.control.armFault({ operations: ['send'], mode: 'timeout-after-commit' });
      expectError(
        'D-47',
        await w.send(request),
        504,
        'gateway_timeout',
        undefined,
        'the ambiguous send',
      );
      const afterTimeout = await w.listed(box0);
      expectAt('D-47', afterTimeout, 'the email exists despite the 504').toHaveLength(1);
      expectAt('D-47', await w.listed(box1), 'and was delivered').toHaveLength(1);
      // The retry may make a duplicate (§4.3 rule 5) or be answered with the email of the 504.
      const retried = expectCreated('4.3-R5', await w.send(request), 'the retry');
      await expectEmailsMade('4.3-R5', w, [afterTimeout[0]!.id, retried.id], {
        sender: box0,
        folder: retried.folder,
        inboxes: [box1],
        outbox: true,
      });

      const other = await world(context, { rule: 'D-47' });
      const [o0, o1] = other.box as [string, string];
      for (const [status, code] of [
        [503, 'service_unavailable'],
        [502, 'bad_gateway'],
      ] as const) {
        await w.control.armFault({ operations: ['send'], mode: 'error', status });
        expectError(
          'D-47',
          await other.send({
            from: o0,
            to: o1,
            cc: [external('e')],
            subject: w.subject('No'),
            text: 'x',
          }),
          status,
          code,
          undefined,
          `an armed ${status}`,
        );
        await expectNothingStored(other, 'D-47', `after ${status} ${code}`);
      }
      expectCreated(
        'D-47',
        await other.send({ from: o0, to: o1, subject: w.subject('Yes'), text: 'x' }),
        'once the fault is used up',
      );
    } finally {
      await w.control.clearFaults();
    }
  },
  { needs: ['provisioning', 'faults', 'destructive'] },
);

// Alone: it changes the target's suppressions, which every check shares.
rule(
  ['4.3-R4', 'D-25', '7-R2', 'D-21'],
  'refuses a suppressed recipient in to, cc or bcc with 422 recipient_suppressed naming it, storing and sending nothing, until the suppression is lifted',
  async (context) => {
    const w = await world(context, { rule: '4.3-R4' });
    const [box0, box1] = w.box as [string, string];
    // An API world uses an address the deployment has on its list (--suppressed).
    const blocked = w.apiWorld ? context.target.suppressed![0]! : external('blocked');
    const fine = external('fine');
    if (!w.apiWorld) await w.control.suppress(blocked, 'hard bounce');
    try {
      const base = { from: box0, subject: w.subject('Suppressed'), text: 'x' };
      const cases: [string, unknown, string][] = [
        ['in to', { ...base, to: blocked, cc: [box1] }, 'to'],
        ['in to, display-name form', { ...base, to: `Blocked <${blocked}>` }, 'to'],
        ['second cc', { ...base, to: box1, cc: [fine, blocked] }, 'cc[1]'],
        ['first cc', { ...base, to: box1, cc: [blocked] }, 'cc[0]'],
        ['second bcc', { ...base, to: box1, cc: [fine], bcc: [box1, blocked] }, 'bcc[1]'],
      ];
      for (const [label, json, field] of cases)
        expectError(
          ['4.3-R4', 'D-25'],
          await w.send(json),
          422,
          'recipient_suppressed',
          field,
          label,
        );
      await expectNothingStored(w, '4.3-R4', 'after a suppressed recipient');
    } finally {
      if (!w.apiWorld) await w.control.unsuppress(blocked);
    }
    // Lifting a suppression is the dashboard's: only a control plane shows what follows.
    if (w.apiWorld) return;
    const sent = expectCreated(
      '4.3-R4',
      await w.send({
        from: box0,
        to: blocked,
        cc: [box1],
        subject: w.subject('Lifted'),
        text: 'x',
      }),
      'after DELETE /suppressions',
    );
    expectAt(
      '4.3-R4',
      (await w.outbox()).map((e) => e.sentEmailId),
    ).toEqual([sent.id]);
    expectAt('4.3-R4', await w.listed(box1)).toHaveLength(1);
  },
  { needs: ['mail', 'suppressed', 'destructive'] },
);

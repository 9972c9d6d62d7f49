/**
 * §4.3 POST /emails/send, §8 limits and the sending decisions: the answer is the sent copy
 * (D-21); local recipients get their own copy and external ones the real message (D-48);
 * every request rule refuses exactly what it should, naming the field, and stores nothing.
 */
import fc from 'fast-check';
import { simpleParser } from 'mailparser';
import { expect } from 'vitest';
import { rule } from '../src/check.ts';
import { createTenant, type OutboxEntry } from '../src/control-client.ts';
import { expectEmailsMade, expectSameOrNewEmail } from '../src/identical-requests.ts';
import {
  addresses,
  expectCreated,
  expectError,
  expectLocation,
  expectNothingStored,
  external,
  randomTag,
  world,
} from '../src/send-world.ts';

rule(
  ['D-21', '4.3-R6', 'D-48'],
  'answers 201 with the sent copy and a Location that reads it, files it in sent, and accepts from in display-name form',
  async (context) => {
    const w = await world(context);
    const [box0, box1] = w.box as [string, string];
    const response = await w.send({
      from: `Ann Sender <${box0}>`,
      to: box1,
      subject: 'Created',
      text: 'The body.',
    });
    const sent = expectCreated(response);
    expect(sent).toMatchObject({
      mailbox: box0,
      folder: 'sent',
      read: true,
      from: { address: box0, name: 'Ann Sender' },
      subject: 'Created',
      text: 'The body.',
      bcc: [],
    });
    expect(addresses(sent.to)).toEqual([box1]);
    await expectLocation(w, response, sent);
    expect((await w.listed(box0, 'sent')).map((e) => e.id)).toEqual([sent.id]);
    expect(await w.listed(box0, 'inbox')).toEqual([]);
  },
  { needs: ['control-plane', 'destructive'] },
);

rule(
  ['4.3-R7', '4.3-R8', '7-R1', 'D-11'],
  'takes exactly one to address and arrays of cc and bcc, refusing anything else with the field named',
  async (context) => {
    const w = await world(context);
    const [box0, box1] = w.box as [string, string];
    const ok = external('ok');
    const base = { from: box0, to: box1, subject: 'Addresses', text: 'x' };
    const cases: [string, unknown, string, string][] = [
      ['to as an array of one', { ...base, to: [box1] }, 'invalid_field', 'to'],
      ['to as an array of two', { ...base, to: [box1, ok] }, 'invalid_field', 'to'],
      ['two addresses in one to', { ...base, to: `${box1}, ${ok}` }, 'invalid_address', 'to'],
      ['to without a domain', { ...base, to: 'someone' }, 'invalid_address', 'to'],
      ['to with a dotless domain', { ...base, to: 'someone@localhost' }, 'invalid_address', 'to'],
      ['an empty to', { ...base, to: '' }, 'invalid_address', 'to'],
      ['no to at all', { from: box0, subject: 's', text: 'x' }, 'missing_field', 'to'],
      ['cc as a string', { ...base, cc: ok }, 'invalid_field', 'cc'],
      ['bcc as a string', { ...base, bcc: ok }, 'invalid_field', 'bcc'],
      ['a bad second cc', { ...base, cc: [ok, 'bad@'] }, 'invalid_address', 'cc[1]'],
      ['a bad first bcc', { ...base, bcc: ['@bad.test', ok] }, 'invalid_address', 'bcc[0]'],
      ['a bad from', { ...base, from: 'nobody' }, 'invalid_address', 'from'],
    ];
    for (const [label, json, code, field] of cases)
      expectError(await w.send(json), 400, code, field, label);
    await expectNothingStored(w, 'after refused requests');
    const sent = expectCreated(
      await w.send({
        ...base,
        to: `Bea Reader <${box1}>`,
        cc: [ok, `Cy <${external('cy')}>`],
        bcc: [external('bcc')],
      }),
      'one to in display-name form, two cc, one bcc',
    );
    expect(sent.to).toEqual([{ address: box1, name: 'Bea Reader' }]);
    expect(sent.cc).toHaveLength(2);
    expect(sent.cc[0]?.address).toBe(ok);
    expect(sent.cc[1]?.name).toBe('Cy');
    expect(sent.bcc).toHaveLength(1);
  },
  { needs: ['control-plane', 'destructive'] },
);

rule(
  ['4.3-R1'],
  'requires exactly one of markdown, html and text: none is body_required, two or three body_conflict',
  async (context) => {
    const w = await world(context);
    const [box0, box1] = w.box as [string, string];
    const base = { from: box0, to: box1, subject: 'Body rule' };
    expectError(await w.send(base), 400, 'body_required', undefined, 'no body');
    const bodies = { markdown: '*m*', html: '<p>h</p>', text: 't' };
    const pairs: (keyof typeof bodies)[][] = [
      ['markdown', 'html'],
      ['markdown', 'text'],
      ['html', 'text'],
      ['markdown', 'html', 'text'],
    ];
    for (const pair of pairs) {
      const json = { ...base, ...Object.fromEntries(pair.map((k) => [k, bodies[k]])) };
      expectError(await w.send(json), 400, 'body_conflict', undefined, pair.join(' + '));
    }
    await expectNothingStored(w, 'after refused requests');
    for (const kind of ['markdown', 'html', 'text'] as const)
      expectCreated(await w.send({ ...base, [kind]: bodies[kind] }), `${kind} alone`);
    expect(await w.listed(box0, 'sent')).toHaveLength(3);
  },
  { needs: ['control-plane', 'destructive'] },
);

rule(
  ['4.3-R2', '8-R1', 'D-10', '7-R2'],
  'accepts 50 combined recipients and refuses 51 with too_many_recipients naming the list, duplicates counted',
  async (context) => {
    const w = await world(context);
    const [box0] = w.box as [string];
    const x = external('many');
    const others = Array.from({ length: 60 }, (_, i) => external(`r${i}`));
    const base = { from: box0, to: x, subject: 'Count', text: 'x' };
    const same = (n: number) => Array.from({ length: n }, () => x);
    // The same address 50 times: still 50 recipients (D-10).
    expectCreated(await w.send({ ...base, cc: same(30), bcc: same(19) }), '50 with duplicates');
    expectError(
      await w.send({ ...base, cc: same(30), bcc: same(20) }),
      400,
      'too_many_recipients',
      'bcc',
      '51 entries of one address',
    );
    expectCreated(await w.send({ ...base, cc: others.slice(0, 49) }), '50 distinct');
    expectError(
      await w.send({ ...base, cc: others.slice(0, 50) }),
      400,
      'too_many_recipients',
      'cc',
      'to + 50 cc',
    );
    expectError(
      await w.send({ ...base, cc: others.slice(0, 25), bcc: others.slice(25, 50) }),
      400,
      'too_many_recipients',
      'bcc',
      'to + 25 cc + 25 bcc',
    );
    const sent = await w.listed(box0, 'sent');
    expect(sent, 'only the two accepted requests are stored').toHaveLength(2);
    expect(
      [...new Set((await w.outbox()).map((e) => e.sentEmailId))].sort(),
      'only the two accepted requests are sent',
    ).toEqual(sent.map((e) => e.id).sort());
  },
  { needs: ['control-plane', 'destructive'] },
);

rule(
  ['4.3-R9', '8-R2', 'D-9', '7-R2'],
  'accepts a 998-character subject and refuses 999 with subject_too_long, counting an astral character once',
  async (context) => {
    const w = await world(context);
    const [box0, box1] = w.box as [string, string];
    const base = { from: box0, to: box1, text: 'x' };
    const accepted = ['a'.repeat(998), `😀${'a'.repeat(997)}`, '😀'.repeat(998)];
    for (const subject of accepted) {
      const sent = expectCreated(
        await w.send({ ...base, subject }),
        `${[...subject].length} code points, ${subject.length} UTF-16 units`,
      );
      expect(sent.subject === subject, 'the subject is stored unchanged').toBe(true);
    }
    for (const subject of ['a'.repeat(999), `😀${'a'.repeat(998)}`, '😀'.repeat(999)]) {
      expectError(
        await w.send({ ...base, subject }),
        400,
        'subject_too_long',
        'subject',
        `${[...subject].length} code points`,
      );
    }
    expect(await w.listed(box0, 'sent')).toHaveLength(accepted.length);
  },
  { needs: ['control-plane', 'destructive'] },
);

rule(
  ['D-26'],
  'refuses a from mailbox outside the key exactly like one that does not exist: 404 mailbox_not_found, field from',
  async (context) => {
    const w = await world(context);
    const other = await createTenant(w.control, 1);
    const foreign = other.mailboxes[0] as string;
    const missing = `nobody-${randomTag()}@${w.tenant.domain}`;
    const base = { to: external('x'), subject: 'Scope', text: 'x' };
    const outOfScope = await w.send({ ...base, from: foreign });
    expectError(outOfScope, 404, 'mailbox_not_found', 'from', 'another owner’s mailbox');
    const absent = await w.send({ ...base, from: missing });
    expectError(absent, 404, 'mailbox_not_found', 'from', 'a mailbox that does not exist');
    const strip = (text: string, what: string) => text.split(what).join('<address>');
    expect(strip(outOfScope.text, foreign), 'the two answers differ only by the address').toBe(
      strip(absent.text, missing),
    );
    const theirs = await context.api.request({
      path: '/emails',
      query: { mailbox: foreign, folder: 'sent' },
      apiKey: other.key.secret,
    });
    expect(theirs.json<{ emails: unknown[] }>().emails, 'nothing sent as them').toEqual([]);
  },
  { needs: ['control-plane', 'destructive'] },
);

rule(
  ['D-31', 'D-28', '4-R1'],
  'refuses unknown body fields with unknown_field and a non-JSON Content-Type with 415',
  async (context) => {
    const w = await world(context);
    const [box0, box1] = w.box as [string, string];
    const base = { from: box0, to: box1, subject: 'Strict', text: 'x' };
    expectError(await w.send({ ...base, replyAll: true }), 400, 'unknown_field', 'replyAll');
    expectError(await w.send({ ...base, preheder: 'p' }), 400, 'unknown_field', 'preheder');
    expectError(await w.send({ ...base, zz: 1, aa: 2 }), 400, 'unknown_field', 'aa');
    expectError(
      await w.send(base, { 'Content-Type': 'text/plain' }),
      415,
      'unsupported_media_type',
    );
    expectCreated(
      await w.send(base, { 'Content-Type': 'application/json; charset=utf-8' }),
      'application/json with a charset',
    );
    expect(await w.listed(box0, 'sent')).toHaveLength(1);
  },
  { needs: ['control-plane', 'destructive'] },
);

rule(
  ['4.3-R5'],
  'answers an identical send again with 201 and a sent copy, making one email or two, never more: no idempotency guarantee either way',
  async (context) => {
    const w = await world(context);
    const [box0, box1] = w.box as [string, string];
    const request = { from: box0, to: box1, subject: 'Twice', text: 'Same request.' };
    const first = expectCreated(await w.send(request), 'first');
    const second = expectCreated(await w.send(request), 'second, identical');
    expectSameOrNewEmail(first, second);
    await expectEmailsMade(w, [first.id, second.id], { sender: box0, inboxes: [box1] });
  },
  { needs: ['control-plane', 'destructive'] },
);

rule(
  ['4.3-R5', 'D-47'],
  'after an ambiguous 504 the email exists and a retry makes at most one more; a 502/503 stores and sends nothing',
  async (context) => {
    const w = await world(context);
    const [box0, box1] = w.box as [string, string];
    const out = external('fault');
    const request = { from: box0, to: box1, cc: [out], subject: 'Flaky', text: 'x' };
    try {
      await w.control.armFault({ operations: ['send'], mode: 'timeout-after-commit' });
      expectError(await w.send(request), 504, 'gateway_timeout', undefined, 'the ambiguous send');
      const afterTimeout = await w.listed(box0, 'sent');
      expect(afterTimeout, 'the email exists despite the 504').toHaveLength(1);
      expect(await w.listed(box1, 'inbox'), 'and was delivered').toHaveLength(1);
      // The retry may make a duplicate (§4.3 rule 5) or be answered with the email of the 504.
      const retried = expectCreated(await w.send(request), 'the retry');
      await expectEmailsMade(w, [afterTimeout[0]!.id, retried.id], {
        sender: box0,
        inboxes: [box1],
        outbox: true,
      });

      const other = await world(context);
      const [o0, o1] = other.box as [string, string];
      for (const [status, code] of [
        [503, 'service_unavailable'],
        [502, 'bad_gateway'],
      ] as const) {
        await w.control.armFault({ operations: ['send'], mode: 'error', status });
        expectError(
          await other.send({ from: o0, to: o1, cc: [external('e')], subject: 'No', text: 'x' }),
          status,
          code,
          undefined,
          `an armed ${status}`,
        );
        await expectNothingStored(other, `after ${status} ${code}`);
      }
      expectCreated(
        await other.send({ from: o0, to: o1, subject: 'Yes', text: 'x' }),
        'once the fault is used up',
      );
    } finally {
      await w.control.clearFaults();
    }
  },
  { needs: ['control-plane', 'destructive'] },
);

rule(
  ['D-48', '4.3-R8', '2.3-R2'],
  'delivers a copy to each local recipient (unread, bcc hidden), keeps bcc on the sender’s copy, and hands external recipients the real message without a Bcc header',
  async (context) => {
    const w = await world(context, { boxes: 4 });
    const [box0, box1, box2, box3] = w.box as [string, string, string, string];
    const extCc = external('cc');
    const extBcc = external('bcc');
    const sent = expectCreated(
      await w.send({
        from: `Ann <${box0}>`,
        to: box1,
        cc: [box2, extCc],
        bcc: [box3, extBcc],
        subject: 'Delivery',
        text: 'To everyone.',
      }),
    );
    expect(addresses(sent.bcc), 'the sender’s copy keeps bcc').toEqual([box3, extBcc]);
    expect((await w.listed(box0, 'sent')).map((e) => e.id)).toEqual([sent.id]);
    for (const mailbox of [box1, box2, box3]) {
      const inbox = await w.listed(mailbox, 'inbox');
      expect(inbox, `${mailbox} gets one copy in inbox`).toHaveLength(1);
      expect(inbox[0]!.id, `${mailbox}'s copy is its own`).not.toBe(sent.id);
      const copy = await w.get(inbox[0]!.id);
      expect(copy, `${mailbox}'s copy`).toMatchObject({
        mailbox,
        folder: 'inbox',
        read: false,
        subject: 'Delivery',
        text: 'To everyone.',
        messageId: sent.messageId,
        from: { address: box0, name: 'Ann' },
        bcc: [],
      });
      expect(addresses(copy.to)).toEqual([box1]);
      expect(addresses(copy.cc)).toEqual([box2, extCc]);
      const named = addresses([...copy.to, ...copy.cc, ...copy.bcc, ...copy.replyTo]);
      expect(named.includes(box3) || named.includes(extBcc), `${mailbox}'s copy names a bcc`).toBe(
        false,
      );
      expect(await w.listed(mailbox, 'sent'), `${mailbox} sent nothing`).toEqual([]);
    }
    const entries: OutboxEntry[] = (await w.outbox()).filter((e) => e.sentEmailId === sent.id);
    expect(
      entries.flatMap((e) => e.recipients).sort(),
      'the external recipients, each once, and no local one',
    ).toEqual([extCc, extBcc].sort());
    for (const entry of entries) {
      expect(entry).toMatchObject({ from: box0, subject: 'Delivery', messageId: sent.messageId });
      const parsed = await simpleParser(Buffer.from(await w.control.outboxEml(entry.id)));
      expect(parsed.subject).toBe('Delivery');
      expect(parsed.messageId).toBe(sent.messageId);
      expect(parsed.from?.value.map((a) => a.address)).toEqual([box0]);
      const list = (v: typeof parsed.to) =>
        (Array.isArray(v) ? v : v === undefined ? [] : [v]).flatMap((o) =>
          o.value.map((a) => a.address),
        );
      expect(list(parsed.to)).toEqual([box1]);
      expect(list(parsed.cc)).toEqual([box2, extCc]);
      expect(parsed.headers.has('bcc'), 'the message carries no Bcc header').toBe(false);
      expect(parsed.text?.trim()).toBe('To everyone.');
    }
  },
  { needs: ['control-plane', 'destructive'] },
);

rule(
  ['4.3-R4', 'D-25', '7-R2'],
  'refuses a suppressed recipient in to, cc or bcc with 422 recipient_suppressed naming it, storing and sending nothing, until the suppression is lifted',
  async (context) => {
    const w = await world(context);
    const [box0, box1] = w.box as [string, string];
    const blocked = external('blocked');
    const fine = external('fine');
    await w.control.suppress(blocked, 'hard bounce');
    try {
      const base = { from: box0, subject: 'Suppressed', text: 'x' };
      const cases: [string, unknown, string][] = [
        ['in to', { ...base, to: blocked, cc: [box1] }, 'to'],
        ['in to, display-name form', { ...base, to: `Blocked <${blocked}>` }, 'to'],
        ['second cc', { ...base, to: box1, cc: [fine, blocked] }, 'cc[1]'],
        ['first cc', { ...base, to: box1, cc: [blocked] }, 'cc[0]'],
        ['second bcc', { ...base, to: box1, cc: [fine], bcc: [box1, blocked] }, 'bcc[1]'],
      ];
      for (const [label, json, field] of cases)
        expectError(await w.send(json), 422, 'recipient_suppressed', field, label);
      await expectNothingStored(w, 'after a suppressed recipient');
    } finally {
      await w.control.unsuppress(blocked);
    }
    const sent = expectCreated(
      await w.send({ from: box0, to: blocked, cc: [box1], subject: 'Lifted', text: 'x' }),
      'after DELETE /suppressions',
    );
    expect((await w.outbox()).map((e) => e.sentEmailId)).toEqual([sent.id]);
    expect(await w.listed(box1, 'inbox')).toHaveLength(1);
  },
  { needs: ['control-plane', 'destructive'] },
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
  ['4.3-R10'],
  'renders Markdown to HTML with its elements and a plain-text part, with no script surviving',
  async (context) => {
    const w = await world(context);
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
    const sent = expectCreated(await w.send({ from: box0, to: box1, subject: 'MD', markdown }));
    const html = sent.html ?? '';
    expect(sent.html, 'a Markdown body has an HTML part').not.toBeNull();
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
      expect(pattern.test(html), `the HTML has ${what}:\n${html}`).toBe(true);
    }
    expect(scriptableParts(html), `scriptable parts in:\n${html}`).toEqual([]);
    expect(sent.text, 'Markdown also supplies the text part').not.toBeNull();
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
      expect(text.includes(words), `the text part has "${words}":\n${text}`).toBe(true);
    expect(
      /a hard break *\r?\n *second line/.test(text),
      `the hard break is a line break:\n${text}`,
    ).toBe(true);
    expect(
      /<\/?(h[1-6]|strong|em|ul|li|p|a|br|img)\b/i.test(text),
      `no HTML tags in the text:\n${text}`,
    ).toBe(false);
    expect(text.includes('alert("x")'), 'script content is not text').toBe(false);
    const copy = await w.get((await w.listed(box1, 'inbox'))[0]!.id);
    expect(copy.html, 'the recipient gets the same HTML').toBe(sent.html);
  },
  { needs: ['control-plane', 'destructive'] },
);

rule(
  ['4.3-R10'],
  'never lets a script element, event handler or script URL survive Markdown rendering, for generated mixes of known vectors',
  async (context) => {
    const w = await world(context);
    const [box0, box1] = w.box as [string, string];
    await context.property(
      fc.array(fc.constantFrom(...XSS_VECTORS), { minLength: 1, maxLength: 6 }),
      async (parts) => {
        const markdown = parts.join('\n\n');
        const sent = expectCreated(await w.send({ from: box0, to: box1, subject: 'X', markdown }));
        expect(scriptableParts(sent.html ?? ''), `from Markdown:\n${markdown}`).toEqual([]);
      },
    );
  },
  { needs: ['control-plane', 'destructive'], timeout: 60_000 },
);

rule(
  ['4.3-R11'],
  'sends an HTML body as-is, byte for byte',
  async (context) => {
    const w = await world(context);
    const [box0, box1] = w.box as [string, string];
    const out = external('html');
    const html =
      '<!-- kept --><table role="presentation" style="width:100%"><tr>' +
      '<td class="x" data-v="1">Caf\u00e9 &amp; <b>bold</b>\u00a0\u{1F600}</td></tr></table>\n' +
      '<p>  spaced   text  </p><custom-tag foo="bar">?</custom-tag>';
    const sent = expectCreated(
      await w.send({ from: box0, to: box1, cc: [out], subject: 'As is', html }),
    );
    expect(sent.html, 'the sent copy’s HTML equals the request').toBe(html);
    const copy = await w.get((await w.listed(box1, 'inbox'))[0]!.id);
    expect(copy.html, 'the recipient’s HTML equals the request').toBe(html);
    const entry = (await w.outbox()).find((e) => e.sentEmailId === sent.id);
    expect(entry, 'the external copy in the outbox').toBeDefined();
    const parsed = await simpleParser(Buffer.from(await w.control.outboxEml(entry!.id)));
    // A MIME body ends with a line break the encoder adds; the part is the HTML as given.
    const part = typeof parsed.html === 'string' ? parsed.html.replace(/\r?\n$/, '') : parsed.html;
    expect(part, 'the HTML part of the message sent').toBe(html);
  },
  { needs: ['control-plane', 'destructive'] },
);

rule(
  ['4.3-R12'],
  'stores a text body as the plain-text part, with no HTML part',
  async (context) => {
    const w = await world(context);
    const [box0, box1] = w.box as [string, string];
    const text = 'Line one\nLine <two> & **not markdown**\n\n  indented\u00e9';
    const sent = expectCreated(await w.send({ from: box0, to: box1, subject: 'Text', text }));
    expect(sent.text).toBe(text);
    expect(sent.html, 'a text body has no HTML part').toBeNull();
    const copy = await w.get((await w.listed(box1, 'inbox'))[0]!.id);
    expect(copy.text).toBe(text);
    expect(copy.html).toBeNull();
  },
  { needs: ['control-plane', 'destructive'] },
);

rule(
  ['D-8', '2.6-R2'],
  'puts the preheader, variables filled in, hidden at the start of the HTML part and returns it as preheader',
  async (context) => {
    const w = await world(context);
    const [box0, box1] = w.box as [string, string];
    const out = external('pre');
    const base = {
      from: box0,
      to: box1,
      subject: 'Preheader',
      preheader: 'Preview for {{ who }} & co',
      variables: { who: 'Ann' },
    };
    const expected = 'Preview for Ann & co';
    const hidden = (html: string) => {
      const first = /^\s*<([a-z][a-z0-9]*)\b([^>]*)>([\s\S]*?)<\/\1>/i.exec(html);
      expect(first, `the HTML starts with an element:\n${html}`).not.toBeNull();
      const [, , attributes, content] = first!;
      expect(
        /display\s*:\s*none/i.test(attributes ?? '') || /\bhidden\b/i.test(attributes ?? ''),
        `the first element is hidden: ${first![0]}`,
      ).toBe(true);
      expect(
        decodeEntities(content ?? '')
          .replace(/&amp;/g, '&')
          .trim(),
      ).toBe(expected);
      return html.slice(first!.index + first![0].length);
    };
    const md = expectCreated(
      await w.send({ ...base, cc: [out], markdown: 'Body **here**' }),
      'Markdown',
    );
    expect(md.preheader).toBe(expected);
    expect(hidden(md.html ?? '')).toMatch(/<strong>here<\/strong>/);
    const entry = (await w.outbox()).find((e) => e.sentEmailId === md.id);
    const parsed = await simpleParser(Buffer.from(await w.control.outboxEml(entry!.id)));
    hidden(typeof parsed.html === 'string' ? parsed.html : '');

    const html = '<p>Raw</p>';
    const raw = expectCreated(await w.send({ ...base, html }), 'HTML');
    expect(raw.preheader).toBe(expected);
    expect(hidden(raw.html ?? ''), 'the rest is the HTML as given').toBe(html);

    const text = expectCreated(await w.send({ ...base, text: 'Just text' }), 'text');
    expect(text.preheader, 'a text-only message stores the preheader').toBe(expected);
    expect(text.html, 'and has no HTML part').toBeNull();
    expect(text.text).toBe('Just text');

    const none = expectCreated(
      await w.send({ from: box0, to: box1, subject: 'No preheader', markdown: 'x' }),
    );
    expect(none.preheader).toBeNull();
  },
  { needs: ['control-plane', 'destructive'] },
);

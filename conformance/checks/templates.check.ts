/**
 * §2.6 template variables and §4.3 rule 3: `{{name}}` is filled in the subject, preheader,
 * text and Markdown, never in raw HTML; `{{email}}` is each recipient's own address; values
 * are strings, numbers or booleans; reserved and missing names fail before anything is stored
 * or sent (D-24, D-48). Spaces inside the braces, the preheader field, the name syntax and
 * the refusal of reserved names are decided (D-24, D-8): what uses them is charged there.
 */
import fc from 'fast-check';
import { simpleParser } from 'mailparser';
import { expectAt } from '../src/contract/charge.ts';
import { rule } from '../src/check-runner/check.ts';
import {
  expectCreated,
  expectError,
  expectNothingStored,
  external,
  world,
  type ErrorRules,
} from '../src/worlds/send-world.ts';

rule(
  ['2.6-R2', '2.6-R1', 'D-24', 'D-8', 'D-21'],
  'fills {{name}} in the subject, preheader, text and Markdown, with spaces inside the braces, numbers and booleans as written',
  async (context) => {
    const w = await world(context, { rule: '2.6-R2' });
    const [box0, box1] = w.box as [string, string];
    const variables = {
      name: 'Ann',
      count: 42,
      price: 120.5,
      zero: 0,
      paid: true,
      late: false,
      unused: 'never used',
    };
    const sent = expectCreated(
      '2.6-R2',
      await w.send({
        from: box0,
        to: box1,
        subject: w.subject('Hi {{name}}, {{count}} items'),
        text: 'Dear {{name}}: {{count}} / {{price}} / {{zero}} / {{late}} / {{paid}}',
        variables,
      }),
      'text body',
    );
    expectAt('2.6-R2', sent.subject).toBe(w.subject('Hi Ann, 42 items'));
    expectAt('2.6-R1', sent.text, 'numbers and booleans as written').toBe(
      'Dear Ann: 42 / 120.5 / 0 / false / true',
    );
    const copy = await w.delivered(box1);
    expectAt('2.6-R2', copy.subject, 'the recipient’s copy').toBe(w.subject('Hi Ann, 42 items'));
    expectAt('2.6-R1', copy.text).toBe('Dear Ann: 42 / 120.5 / 0 / false / true');

    const md = expectCreated(
      '2.6-R2',
      await w.send({
        from: box0,
        to: external('md'),
        subject: w.subject('{{name}}'),
        markdown: '**{{name}}** owes {{ price }}; paid: {{paid}}',
        variables,
      }),
      'Markdown body',
    );
    expectAt('2.6-R2', md.subject).toBe(w.subject('Ann'));
    expectAt('2.6-R2', md.html ?? '').toMatch(/<strong>Ann<\/strong> owes 120\.5; paid: true/);
    expectAt('2.6-R2', md.text ?? '').toMatch(/Ann\** owes 120\.5; paid: true/);
    // The message that left for the outside address shows only in a control plane's outbox.
    if (!w.apiWorld) {
      const entry = (await w.outbox()).find((e) => e.sentEmailId === md.id);
      expectAt('2.6-R2', entry?.subject, 'the subject as sent').toBe(w.subject('Ann'));
      const parsed = await simpleParser(Buffer.from(await w.control.outboxEml(entry!.id)));
      expectAt('2.6-R2', parsed.subject).toBe(w.subject('Ann'));
      expectAt('2.6-R2', parsed.html || '').toMatch(/<strong>Ann<\/strong> owes 120\.5/);
    }
    expectAt('2.6-R2', JSON.stringify([md, copy, sent]).includes('{{'), 'no placeholder left').toBe(
      false,
    );

    // The preheader's field name is D-8's; that variables fill it is §2.6's.
    const pre = expectCreated(
      'D-8',
      await w.send({
        from: box0,
        to: external('pre'),
        subject: w.subject('s'),
        preheader: '{{name}} paid={{paid}}',
        text: 'x',
        variables,
      }),
      'a preheader',
    );
    expectAt('2.6-R2', pre.preheader).toBe('Ann paid=true');

    // Spaces inside the braces are D-24's choice.
    const spaced = expectCreated(
      'D-24',
      await w.send({
        from: box0,
        to: external('spaced'),
        subject: w.subject('Hi {{name}}, {{ count }} items'),
        text: 'Dear {{  name  }}: {{count}}',
        variables,
      }),
      'spaces inside the braces',
    );
    expectAt('D-24', spaced.subject).toBe(w.subject('Hi Ann, 42 items'));
    expectAt('D-24', spaced.text).toBe('Dear Ann: 42');
  },
  { needs: ['mail', 'destructive'], concurrent: true },
);

rule(
  ['2.6-R3', '2.6-R2', 'D-21'],
  'leaves {{name}} in a raw HTML body as written, and never asks for variables it contains',
  async (context) => {
    const w = await world(context, { rule: '2.6-R3' });
    const [box0, box1] = w.box as [string, string];
    const html = '<p>Hi {{name}}, {{ missing }} and {{email}}</p>';
    const sent = expectCreated(
      '2.6-R3',
      await w.send({
        from: box0,
        to: box1,
        subject: w.subject('Hello {{name}}'),
        html,
        variables: { name: 'Ann' },
      }),
      'HTML with variables supplied',
    );
    expectAt('2.6-R2', sent.subject, 'variables still apply to the subject').toBe(
      w.subject('Hello Ann'),
    );
    expectAt('2.6-R3', sent.html, 'the HTML keeps its braces').toBe(html);
    expectAt('2.6-R3', (await w.delivered(box1)).html, 'in the recipient’s copy too').toBe(html);
    const bare = expectCreated(
      '2.6-R3',
      await w.send({ from: box0, to: box1, subject: w.subject('No variables'), html }),
      'HTML with {{…}} and no variables at all',
    );
    expectAt('2.6-R3', bare.html).toBe(html);
  },
  { needs: ['mail', 'destructive'], concurrent: true },
);

rule(
  ['2.6-R4', 'D-48', 'D-24', 'D-21'],
  'renders {{email}} and {{unsubscribe_url}} for each recipient: each local copy and each external message shows its own',
  async (context) => {
    const w = await world(context, { boxes: 4, rule: '2.6-R4' });
    const [box0, box1, box2, box3] = w.box as [string, string, string, string];
    const extCc = external('cc');
    const extBcc = external('bcc');
    const sent = expectCreated(
      '2.6-R4',
      await w.send({
        from: box0,
        to: box1,
        cc: [box2, extCc],
        bcc: [box3, extBcc],
        subject: w.subject('For {{email}}'),
        text: 'Hello {{ email }}, from {{name}}. Leave: {{unsubscribe_url}}',
        variables: { name: 'Ann' },
      }),
    );
    const urlOf = (text: string | null) => /Leave: (\S+)$/.exec(text ?? '')?.[1] ?? '';
    const urls = new Map<string, string>();
    for (const mailbox of [box1, box2, box3]) {
      const copy = await w.delivered(mailbox);
      expectAt('2.6-R4', copy.subject, `${mailbox}'s subject`).toBe(w.subject(`For ${mailbox}`));
      expectAt(
        '2.6-R4',
        copy.text?.startsWith(`Hello ${mailbox}, from Ann. Leave: `),
        copy.text ?? '',
      ).toBe(true);
      urls.set(mailbox, urlOf(copy.text));
    }
    // The messages that left for outside addresses show only in a control plane's outbox.
    const entries = w.apiWorld ? [] : (await w.outbox()).filter((e) => e.sentEmailId === sent.id);
    if (!w.apiWorld)
      expectAt('2.6-R4', [...new Set(entries.flatMap((e) => e.recipients))].sort()).toEqual(
        [extCc, extBcc].sort(),
      );
    for (const entry of entries) {
      // One message per recipient is how D-48 renders per recipient.
      expectAt('D-48', entry.recipients, 'a personal message has one recipient').toHaveLength(1);
      const recipient = entry.recipients[0]!;
      expectAt('2.6-R4', entry.subject).toBe(w.subject(`For ${recipient}`));
      const parsed = await simpleParser(Buffer.from(await w.control.outboxEml(entry.id)));
      expectAt('2.6-R4', parsed.subject).toBe(w.subject(`For ${recipient}`));
      const text = (parsed.text ?? '').trim();
      expectAt('2.6-R4', text.startsWith(`Hello ${recipient}, from Ann. Leave: `), text).toBe(true);
      urls.set(recipient, urlOf(text));
    }
    // The sender's copy rendered for to, and what {{unsubscribe_url}} is: D-48 and D-24.
    expectAt('D-48', sent.subject, 'the sender’s copy is rendered for to').toBe(
      w.subject(`For ${box1}`),
    );
    expectAt('D-48', sent.text).toMatch(
      new RegExp(`^Hello ${box1.replace(/\./g, '\\.')}, from Ann\\. `),
    );
    expectAt('D-48', urlOf(sent.text), 'the sender’s copy has the link of to').toBe(urls.get(box1));
    for (const [address, url] of urls) {
      expectAt('D-24', url, `${address}'s unsubscribe link`).toMatch(/^https?:\/\//);
      expectAt('D-24', new URL(url).origin, `${address}'s link is the deployment's`).toBe(
        context.target.origin,
      );
    }
    expectAt('D-24', new Set(urls.values()).size, 'one link per recipient').toBe(urls.size);
  },
  { needs: ['mail', 'destructive'], concurrent: true },
);

rule(
  ['2.6-R1', 'D-24', 'D-21'],
  'refuses variable values that are objects, arrays or null, and names outside [A-Za-z_][A-Za-z0-9_]{0,63}, with invalid_variable',
  async (context) => {
    const w = await world(context, { rule: '2.6-R1' });
    const [box0, box1] = w.box as [string, string];
    const base = { from: box0, to: box1, subject: w.subject('Vars'), text: 'x {{x}}' };
    // Values and the flat map are §2.6's; the name syntax is D-24's.
    const cases: [string, unknown, ErrorRules, string | undefined][] = [
      ['an object value', { x: { a: 1 } }, ['2.6-R1', 'D-24'], 'variables.x'],
      ['an array value', { x: ['a'] }, ['2.6-R1', 'D-24'], 'variables.x'],
      ['a null value', { x: null }, ['2.6-R1', 'D-24'], 'variables.x'],
      ['an object among good values', { a: 'ok', x: { b: 2 } }, ['2.6-R1', 'D-24'], 'variables.x'],
      ['variables as a string', 'x=1', ['2.6-R1', 'D-24'], 'variables'],
      ['variables as an array', [{ x: 1 }], ['2.6-R1', 'D-24'], 'variables'],
      ['a name starting with a digit', { x: 1, '1x': 'a' }, 'D-24', undefined],
      ['a name with a hyphen', { x: 1, 'a-b': 'a' }, 'D-24', undefined],
      ['a 65-character name', { x: 1, [`a${'b'.repeat(64)}`]: 'a' }, 'D-24', undefined],
    ];
    for (const [label, variables, rules, field] of cases)
      expectError(
        rules,
        await w.send({ ...base, variables }),
        400,
        'invalid_variable',
        field,
        label,
      );
    await expectNothingStored(w, '2.6-R1', 'after invalid variables');
    const long = `a${'b'.repeat(63)}`;
    const sent = expectCreated(
      'D-24',
      await w.send({ ...base, text: `{{${long}}}`, variables: { [long]: 'sixty-four' } }),
      'a 64-character name',
    );
    expectAt('D-24', sent.text).toBe('sixty-four');
  },
  { needs: ['mail', 'destructive'], concurrent: true },
);

rule(
  ['2.6-R5', 'D-24'],
  'refuses email and unsubscribe_url supplied as variables with reserved_variable, used or not',
  async (context) => {
    // §2.6 reserves the names; refusing a caller's value rather than overriding it is D-24's.
    const w = await world(context, { rule: 'D-24' });
    const [box0, box1] = w.box as [string, string];
    const base = { from: box0, to: box1, subject: w.subject('Reserved') };
    const cases: [string, Record<string, unknown>, string][] = [
      ['email, used', { text: '{{email}}', variables: { email: 'x@y.test' } }, 'variables.email'],
      ['email, unused', { text: 'plain', variables: { email: 'x@y.test' } }, 'variables.email'],
      [
        'unsubscribe_url, used',
        { text: '{{unsubscribe_url}}', variables: { unsubscribe_url: 'https://x.test/' } },
        'variables.unsubscribe_url',
      ],
      [
        'unsubscribe_url with others',
        { markdown: 'm', variables: { a: 1, unsubscribe_url: 'u' } },
        'variables.unsubscribe_url',
      ],
      ['email with an HTML body', { html: '<p/>', variables: { email: 'e' } }, 'variables.email'],
    ];
    for (const [label, json, field] of cases)
      expectError(
        'D-24',
        await w.send({ ...base, ...json }),
        400,
        'reserved_variable',
        field,
        label,
      );
    await expectNothingStored(w, 'D-24', 'after reserved variables');
  },
  { needs: ['mail', 'destructive'], concurrent: true },
);

rule(
  ['4.3-R3', 'D-24', '7-R2'],
  'refuses a variable used in the subject, preheader, text or Markdown but not supplied with missing_variable, storing and sending nothing',
  async (context) => {
    const w = await world(context, { rule: '4.3-R3' });
    const [box0, box1] = w.box as [string, string];
    const base = { from: box0, to: box1, cc: [external('cc')], bcc: [box1] };
    // Spaces inside the braces and case-sensitive names are D-24's choices.
    const cases: [string, Record<string, unknown>, ErrorRules, string][] = [
      [
        'in the subject',
        { subject: w.subject('Hi {{first}}'), text: 'x' },
        ['4.3-R3', 'D-24'],
        'first',
      ],
      [
        'in the subject, HTML body',
        { subject: w.subject('Hi {{ first }}'), html: '<p>x</p>' },
        'D-24',
        'first',
      ],
      [
        'in the preheader',
        {
          subject: w.subject('s'),
          preheader: 'See {{teaser}}',
          markdown: 'x',
          variables: { other: 1 },
        },
        ['4.3-R3', 'D-24'],
        'teaser',
      ],
      [
        'in the text',
        { subject: w.subject('s'), text: 'Total: {{amount}}', variables: {} },
        ['4.3-R3', 'D-24'],
        'amount',
      ],
      [
        'in the Markdown',
        { subject: w.subject('{{a}}'), markdown: '**{{code_1}}**', variables: { a: 'A' } },
        ['4.3-R3', 'D-24'],
        'code_1',
      ],
      [
        'case matters',
        { subject: w.subject('s'), text: '{{name}}', variables: { Name: 'Ann' } },
        'D-24',
        'name',
      ],
    ];
    for (const [label, json, rules, name] of cases)
      expectError(
        rules,
        await w.send({ ...base, ...json }),
        400,
        'missing_variable',
        `variables.${name}`,
        label,
      );
    await expectNothingStored(w, '4.3-R3', 'after missing variables');
  },
  { needs: ['mail', 'destructive'], concurrent: true },
);

/** A piece of a generated template: literal text, a variable (by index), or {{email}}. */
type Piece =
  | { kind: 'literal'; text: string }
  | { kind: 'variable'; index: number; left: string; right: string }
  | { kind: 'email'; left: string; right: string };

const SAFE =
  'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 .,;:!?-_()[]*#@/é'.split('');
const safeText = (max: number) =>
  fc.array(fc.constantFrom(...SAFE), { maxLength: max }).map((cs) => cs.join(''));
const spaces = fc.constantFrom('', ' ', '  ');
const variableName = fc
  .tuple(
    fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_'.split('')),
    fc.array(fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz0123456789_'.split('')), {
      maxLength: 7,
    }),
  )
  .map(([head, tail]) => head + tail.join(''))
  .filter((name) => name !== 'email' && name !== 'unsubscribe_url');
const value = fc.oneof(safeText(12), fc.integer({ min: -1_000_000, max: 1_000_000 }), fc.boolean());
const piece = (names: number): fc.Arbitrary<Piece> =>
  fc.oneof(
    safeText(10).map((text) => ({ kind: 'literal' as const, text })),
    fc
      .tuple(fc.nat({ max: names - 1 }), spaces, spaces)
      .map(([index, left, right]) => ({ kind: 'variable' as const, index, left, right })),
    fc.tuple(spaces, spaces).map(([left, right]) => ({ kind: 'email' as const, left, right })),
  );

const generatedCase = fc.uniqueArray(variableName, { minLength: 1, maxLength: 5 }).chain((names) =>
  fc.record({
    names: fc.constant(names),
    values: fc.array(value, { minLength: names.length, maxLength: names.length }),
    // Mostly supplied, so that both outcomes (rendered, missing) come up often.
    supplied: fc.array(
      fc.oneof(
        { weight: 4, arbitrary: fc.constant(true) },
        { weight: 1, arbitrary: fc.constant(false) },
      ),
      { minLength: names.length, maxLength: names.length },
    ),
    subject: fc.array(piece(names.length), { maxLength: 6 }),
    text: fc.array(piece(names.length), { maxLength: 8 }),
  }),
);

rule(
  ['2.6-R1', '2.6-R2', '2.6-R4', '4.3-R3', 'D-24', 'D-21'],
  'renders generated templates exactly as a naive replace does, and names a missing variable when one is used but not supplied',
  async (context) => {
    const w = await world(context, { rule: '2.6-R2' });
    const [box0, box1] = w.box as [string, string];
    await context.property(generatedCase, async ({ names, values, supplied, subject, text }) => {
      const source = (pieces: Piece[]) =>
        pieces
          .map((p) =>
            p.kind === 'literal'
              ? p.text
              : `{{${p.left}${p.kind === 'email' ? 'email' : names[p.index]}${p.right}}}`,
          )
          .join('');
      const rendered = (pieces: Piece[]) =>
        pieces
          .map((p) =>
            p.kind === 'literal' ? p.text : p.kind === 'email' ? box1 : String(values[p.index]),
          )
          .join('');
      const variables = Object.fromEntries(
        names.flatMap((name, i) => (supplied[i] ? [[name, values[i]]] : [])),
      );
      const subjectTemplate = w.subject(`S ${source(subject)}`);
      const textTemplate = `T ${source(text)}`;
      const response = await w.send({
        from: box0,
        to: box1,
        subject: subjectTemplate,
        text: textTemplate,
        variables,
      });
      const missing = [...subject, ...text].flatMap((p) =>
        p.kind === 'variable' && !supplied[p.index] ? [`variables.${names[p.index]}`] : [],
      );
      // Spaces inside the braces are D-24's: a template with them is charged there.
      const spaced = [...subject, ...text].some((p) => p.kind !== 'literal' && p.left + p.right);
      if (missing.length > 0) {
        expectAt(
          spaced ? 'D-24' : '4.3-R3',
          response.status >= 400 && response.status < 500,
          `missing ${missing.join(', ')}: refused with a 4xx, got ${response.status} ${response.text}`,
        ).toBe(true);
        expectAt('D-24', response.status).toBe(400);
        const error = response.json<{ code: string; field?: string }>();
        expectAt('D-24', error.code).toBe('missing_variable');
        expectAt('D-24', missing, `field ${error.field} names a missing variable`).toContain(
          error.field,
        );
        return;
      }
      const at = spaced ? 'D-24' : '2.6-R2';
      const sent = expectCreated(at, response, `subject ${subjectTemplate}, text ${textTemplate}`);
      expectAt(at, sent.subject).toBe(w.subject(`S ${rendered(subject)}`));
      expectAt(at, sent.text).toBe(`T ${rendered(text)}`);
    });
  },
  { needs: ['mail', 'destructive'], timeout: 60_000, concurrent: true },
);

// Alone, after the checks that run side by side: its subjects are 998 characters, with no
// room for a tag (check-runner/check.ts, `concurrent`).
rule(
  ['D-65', '4.3-R9'],
  'holds the subject to 998 characters once variables are filled in: 998 accepted, 999 refused with subject_too_long, on send and forward',
  async (context) => {
    const w = await world(context, { rule: '4.3-R9' });
    const [box0, box1] = w.box as [string, string];
    // 995 characters as written (within §4.3's 998), 998 or 999 once {{v}} is filled in.
    const subject = `${'s'.repeat(990)}{{v}}`;
    const filled = (n: number) => ({ v: 'v'.repeat(n) });
    const sendWith = (n: number) =>
      w.send({ from: box0, to: box1, subject, text: 'x', variables: filled(n) });
    expectError(
      'D-65',
      await sendWith(9),
      400,
      'subject_too_long',
      'subject',
      'send, 999 filled in',
    );
    await expectNothingStored(w, 'D-65', 'after a subject that grew past 998');
    const sent = expectCreated('4.3-R9', await sendWith(8), 'send, 998 filled in');
    expectAt('D-65', [...sent.subject].length, 'the subject as sent').toBe(998);
    // A forward's subject is a template too (D-23); the same limit holds once filled in.
    const original = await w.delivered(box1, '4.3-R9');
    const forwardWith = (n: number) =>
      w.forward(original.id, { to: box0, subject, text: 'x', variables: filled(n) });
    expectError(
      'D-65',
      await forwardWith(9),
      400,
      'subject_too_long',
      'subject',
      'forward, 999 filled in',
    );
    expectCreated('4.3-R9', await forwardWith(8), 'forward, 998 filled in');
  },
  { needs: ['mail', 'destructive'] },
);

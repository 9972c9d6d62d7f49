/**
 * §4.2 and the listing decisions: for generated mailboxes and queries, a whole walk of
 * `GET /emails` returns exactly what a model written from the documents says, in order.
 */
import fc from 'fast-check';
import { expect } from 'vitest';
import { rule, type CheckContext } from '../src/check.ts';
import { ControlClient, createTenant } from '../src/control-client.ts';
import {
  expectedListing,
  toParams,
  type ModelEmail,
  type ModelQuery,
} from '../src/model/mail-model.ts';
import {
  INSTANTS,
  SENDERS,
  generatedEmail,
  generatedQuery,
  type GeneratedEmail,
} from '../src/model/generators.ts';
import { walkAll } from '../src/walk.ts';

const LISTING_RULES = [
  '2.3-R4',
  '4.2-R2',
  '4.2-R3',
  '4.2-R4',
  '4.2-R5',
  '4.2-R6',
  '4.2-R7',
  '4.2-R8',
  '4.2-R9',
  '4.2-R11',
  '4.2-R12',
  '4.2-R13',
  'D-13',
  'D-14',
  'D-17',
  'D-18',
];

/**
 * Stores the corpus in a new mailbox and walks each query, page by page, comparing every
 * listed email with what the model says.
 */
async function agreesWithModel(
  api: CheckContext['api'],
  control: ControlClient,
  corpus: readonly GeneratedEmail[],
  queries: readonly (readonly [ModelQuery, number])[],
): Promise<void> {
  const tenant = await createTenant(control);
  const mailbox = tenant.mailboxes[0] as string;
  const stored: ModelEmail[] = [];
  for (const email of corpus) {
    const { id } = await control.inject({
      mailbox,
      from: email.from.name ? `${email.from.name} <${email.from.address}>` : email.from.address,
      to: [mailbox],
      subject: email.subject,
      text: email.text,
      receivedAt: email.receivedAt,
      folder: email.folder,
      read: email.read,
      starred: email.starred,
    });
    stored.push({ ...email, id, mailbox, to: [{ address: mailbox, name: null }], cc: [] });
  }
  for (const [query, limit] of queries) {
    const walked = await walkAll(api, tenant.key.secret, toParams(mailbox, query), limit);
    const expected = expectedListing(stored, mailbox, query);
    expect(
      walked.map((e) => e.id),
      `ids for ${JSON.stringify(query)} (limit ${limit})`,
    ).toEqual(expected.map((e) => e.id));
    walked.forEach((summary, i) => {
      const model = expected[i] as ModelEmail;
      expect(summary).toMatchObject({
        mailbox,
        folder: model.folder,
        read: model.read,
        starred: model.starred,
        subject: model.subject,
        from: { address: model.from.address, name: model.from.name },
      });
      expect(Date.parse(summary.receivedAt)).toBe(Date.parse(model.receivedAt));
    });
  }
}

const [bob, alice, shop, zoe] = SENDERS as [
  GeneratedEmail['from'],
  GeneratedEmail['from'],
  GeneratedEmail['from'],
  GeneratedEmail['from'],
];

/**
 * A fixed mailbox whose queries each hinge on one listing decision, so they are tried on every
 * run, not only when the generators happen to draw them: a sender found only by its display
 * name, or only by its address (D-14); a subject that differs from the filter only in case
 * (D-14); accents and prefixes in q (D-13); date bounds on stored instants (D-18); both flags at
 * once (4.2-R6, 4.2-R7); ties on receivedAt across pages (D-17).
 */
const FIXED_CORPUS: GeneratedEmail[] = [
  {
    from: bob,
    subject: 'INVOICE q3',
    text: 'café report',
    folder: 'inbox',
    read: false,
    starred: true,
    receivedAt: INSTANTS[0]!,
  },
  {
    from: zoe,
    subject: 'Réunion alpha',
    text: 'naïve',
    folder: 'archive',
    read: true,
    starred: false,
    receivedAt: INSTANTS[1]!,
  },
  {
    from: shop,
    subject: 'order shipping',
    text: 'invoice',
    folder: 'inbox',
    read: false,
    starred: false,
    receivedAt: INSTANTS[1]!,
  },
  {
    from: alice,
    subject: 'meeting Invoice',
    text: 'über',
    folder: 'trash',
    read: true,
    starred: true,
    receivedAt: INSTANTS[2]!,
  },
  {
    from: bob,
    subject: 'beta',
    text: 'alphabet',
    folder: 'inbox',
    read: false,
    starred: false,
    receivedAt: INSTANTS[1]!,
  },
];
const FIXED_QUERIES: [ModelQuery, number][] = [
  [{}, 2],
  [{ from: 'STONE' }, 1],
  [{ from: 'Müller' }, 2],
  [{ from: 'vendor' }, 2],
  [{ subject: 'invoice' }, 1],
  [{ subject: 'RÉUNION' }, 2],
  [{ q: 'cafe' }, 2],
  [{ q: 'alph*' }, 1],
  [{ dateFrom: INSTANTS[1]!, dateTo: INSTANTS[2]! }, 2],
  [{ read: false, starred: true }, 2],
];

rule(
  LISTING_RULES,
  'filters, searches, orders and pages every generated mailbox exactly as the model does',
  async ({ api, target, property }) => {
    const control = new ControlClient(api, target.control!);
    await agreesWithModel(api, control, FIXED_CORPUS, FIXED_QUERIES);
    await property(
      fc.tuple(
        fc.array(generatedEmail, { maxLength: 24 }),
        fc.array(fc.tuple(generatedQuery, fc.integer({ min: 1, max: 7 })), {
          minLength: 1,
          maxLength: 4,
        }),
      ),
      async ([corpus, queries]) => agreesWithModel(api, control, corpus, queries),
    );
  },
  { needs: ['control-plane'], timeout: 120_000 },
);

rule(
  ['4.2-R10', '8-R3', 'D-15'],
  'pages 25 by default, up to 100 on request, and refuses 101 with limit_too_large',
  async ({ api, target }) => {
    const control = new ControlClient(api, target.control!);
    const tenant = await createTenant(control);
    const mailbox = tenant.mailboxes[0] as string;
    for (let i = 0; i < 26; i += 1)
      await control.inject({ mailbox, from: 'bob@partner.test', subject: `n${i}`, text: 'x' });
    const apiKey = tenant.key.secret;
    const first = (await api.request({ path: '/emails', query: { mailbox }, apiKey })).json<{
      emails: unknown[];
      nextCursor: string | null;
    }>();
    expect(first.emails).toHaveLength(25);
    expect(first.nextCursor).not.toBeNull();
    const hundred = (
      await api.request({ path: '/emails', query: { mailbox, limit: 100 }, apiKey })
    ).json<{ emails: unknown[]; nextCursor: string | null }>();
    expect(hundred.emails).toHaveLength(26);
    expect(hundred.nextCursor).toBeNull();
    const tooMany = await api.request({ path: '/emails', query: { mailbox, limit: 101 }, apiKey });
    expect(tooMany.status).toBe(400);
    expect(tooMany.json()).toMatchObject({ code: 'limit_too_large', field: 'limit' });
  },
  { needs: ['control-plane'] },
);

rule(
  ['4.2-R13', 'D-16', 'D-17'],
  'walks every email once, with no duplicate and no gap, while new mail arrives between pages',
  async ({ api, target }) => {
    const control = new ControlClient(api, target.control!);
    const tenant = await createTenant(control);
    const mailbox = tenant.mailboxes[0] as string;
    const now = Date.parse(await control.now());
    const before: string[] = [];
    for (let i = 0; i < 17; i += 1) {
      // Three emails per instant: ties the id tie-break must order (D-17).
      const receivedAt = new Date(now - 60_000 * (1 + Math.floor(i / 3))).toISOString();
      before.push(
        (
          await control.inject({
            mailbox,
            from: 'bob@partner.test',
            subject: `old ${i}`,
            text: 'x',
            receivedAt,
          })
        ).id,
      );
    }
    const arrived: string[] = [];
    const walked = await walkAll(api, tenant.key.secret, { mailbox }, 4, async () => {
      await control.advanceClock(1000);
      arrived.push(
        (await control.inject({ mailbox, from: 'carol@partner.test', subject: 'new', text: 'y' }))
          .id,
      );
    });
    expect(arrived.length).toBeGreaterThan(0);
    expect(walked.map((e) => e.id).sort()).toEqual([...before].sort());
    for (let i = 1; i < walked.length; i += 1) {
      const [a, b] = [walked[i - 1]!, walked[i]!];
      const newer =
        Date.parse(a.receivedAt) > Date.parse(b.receivedAt) ||
        (a.receivedAt === b.receivedAt && a.id > b.id);
      expect(newer, `${a.id} (${a.receivedAt}) listed before ${b.id} (${b.receivedAt})`).toBe(true);
    }
  },
  { needs: ['control-plane'] },
);

rule(
  ['4.2-R11', 'D-16'],
  'refuses a cursor that was altered or belongs to other filters with 400 invalid_cursor',
  async ({ api, target }) => {
    const control = new ControlClient(api, target.control!);
    const tenant = await createTenant(control);
    const mailbox = tenant.mailboxes[0] as string;
    for (let i = 0; i < 3; i += 1)
      await control.inject({ mailbox, from: 'bob@partner.test', subject: `s${i}`, text: 'x' });
    const apiKey = tenant.key.secret;
    const page = (
      await api.request({ path: '/emails', query: { mailbox, limit: 1 }, apiKey })
    ).json<{ nextCursor: string }>();
    for (const query of [
      { mailbox, cursor: 'not-a-cursor' },
      { mailbox, cursor: `${page.nextCursor}x` },
      { mailbox, cursor: page.nextCursor, folder: 'trash' },
    ]) {
      const response = await api.request({ path: '/emails', query, apiKey });
      expect(response.status, JSON.stringify(query)).toBe(400);
      expect(response.json()).toMatchObject({ code: 'invalid_cursor', field: 'cursor' });
    }
  },
  { needs: ['control-plane'] },
);

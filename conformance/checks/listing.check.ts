/**
 * §4.2 and the listing decisions: for generated mailboxes and queries, a whole walk of
 * `GET /emails` returns exactly what a model written from the documents says, in order.
 */
import fc from 'fast-check';
import { chargeTo, expectAt } from '../src/contract/charge.ts';
import { rule, type CheckContext } from '../src/check-runner/check.ts';
import { ControlClient, createTenant } from '../src/client/control-client.ts';
import {
  expectedListing,
  ruleForDifference,
  toParams,
  type ModelEmail,
  type ModelQuery,
} from '../src/model/mail-model.ts';
import {
  DECIDED_FOLDERS,
  INSTANTS,
  SENDERS,
  generatedEmail,
  generatedQuery,
  type GeneratedEmail,
} from '../src/model/generators.ts';
import { expectError, expectSuccess, randomTag, world } from '../src/worlds/send-world.ts';
import { walkAll, type Summary } from '../src/client/walk.ts';
import { waitingOnTarget } from '../src/client/waiting.ts';

const LISTING_RULES = [
  '2.3-R2',
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
  'D-5',
];

/**
 * Newest-first (§4.2) across distinct times: each email's receivedAt is not later than the one
 * listed before it. Ties may come in any order.
 */
function expectNewestFirst(ruleId: string, walked: readonly Summary[], what: string): void {
  for (let i = 1; i < walked.length; i += 1) {
    const [a, b] = [walked[i - 1]!, walked[i]!];
    expectAt(
      ruleId,
      Date.parse(a.receivedAt) >= Date.parse(b.receivedAt),
      `${what}: ${a.id} (${a.receivedAt}) listed before the newer ${b.id} (${b.receivedAt})`,
    ).toBe(true);
  }
}

/**
 * A walk lists exactly the emails the model selects, each once. A difference is charged to the
 * rule of the filter that explains it (see ruleForDifference).
 */
function expectSameEmails(
  walked: readonly Summary[],
  expected: readonly ModelEmail[],
  stored: readonly ModelEmail[],
  query: ModelQuery,
  what: string,
): void {
  const expectedIds = new Set(expected.map((e) => e.id));
  const walkedIds = new Set(walked.map((e) => e.id));
  const extra = stored.filter((e) => walkedIds.has(e.id) && !expectedIds.has(e.id));
  const missing = expected.filter((e) => !walkedIds.has(e.id));
  const differences = [
    ...extra.map((e) => [e, true] as const),
    ...missing.map((e) => [e, false] as const),
  ];
  if (differences.length === 0) return;
  const [email, listed] = differences[0]!;
  expectAt(
    ruleForDifference(email, query, listed),
    walked.map((e) => e.id).sort(),
    `${what}: ${email.id} (${JSON.stringify({ ...email, id: undefined })}) ${listed ? 'listed but not selected' : 'selected but not listed'}`,
  ).toEqual(expected.map((e) => e.id).sort());
}

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
    const what = `${JSON.stringify(query)} (limit ${limit})`;
    // §4.2: a walk follows nextCursor to null, each page within its limit, no email twice.
    const walked = await chargeTo('4.2-R13', () =>
      walkAll(api, tenant.key.secret, toParams(mailbox, query), limit),
    );
    const expected = expectedListing(stored, mailbox, query);
    expectSameEmails(walked, expected, stored, query, what);
    for (const summary of walked) {
      const model = stored.find((e) => e.id === summary.id)!;
      expectAt('2.3-R2', summary, `${summary.id} as listed`).toMatchObject({
        mailbox,
        folder: model.folder,
        read: model.read,
        starred: model.starred,
        subject: model.subject,
        from: { address: model.from.address, name: model.from.name },
      });
      // D-17: the time listings order by is the one the mail was received at.
      expectAt('D-17', Date.parse(summary.receivedAt), `receivedAt of ${summary.id}`).toBe(
        Date.parse(model.receivedAt),
      );
    }
    expectNewestFirst('4.2-R12', walked, what);
    // D-17: ties by id, descending.
    expectAt(
      'D-17',
      walked.map((e) => e.id),
      `order of ${what}`,
    ).toEqual(expected.map((e) => e.id));
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
    folder: 'trash',
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
/** The same mail spread over our other folders (D-5), each listed by its folder filter. */
const DECIDED_FOLDER_CORPUS: GeneratedEmail[] = FIXED_CORPUS.map((email, i) => ({
  ...email,
  folder: DECIDED_FOLDERS[i % DECIDED_FOLDERS.length]!,
}));
const DECIDED_FOLDER_QUERIES: [ModelQuery, number][] = DECIDED_FOLDERS.map((folder) => [
  { folder },
  1,
]);

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
  [{ folder: 'trash' }, 1],
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
    // D-5: sent, archive and spam exist and filter like the folders of §3.1.
    await chargeTo('D-5', () =>
      agreesWithModel(api, control, DECIDED_FOLDER_CORPUS, DECIDED_FOLDER_QUERIES),
    );
    // D-13, last like D-5 so that a deployment searching otherwise has every documented rule
    // checked first: a word matches whole words, so "alpha" finds "Réunion alpha" but not
    // "alphabet" (a prefix search would find both; "alph*" above asks for that).
    await agreesWithModel(api, control, FIXED_CORPUS, [[{ q: 'alpha' }, 5]]);
  },
  { needs: ['crafted-mail', 'provisioning'], timeout: 120_000 },
);

/** Mail sent at once, a batch at a time: enough to fill pages, not a flood. */
const SEND_BATCH = 10;

rule(
  ['4.2-R10', '8-R3', 'D-15'],
  'pages 25 by default and at most 100 on request, over 101 emails the run sends itself, and refuses limit 101 with limit_too_large',
  async (context) => {
    const w = await world(context, { rule: '4.2-R10' });
    const [box0, box1] = w.box as [string, string];
    const tag = `p${randomTag()}`;
    let sent = 0;
    // Sends box1 to box0 until `total` of the check's emails have arrived in box0.
    const fillTo = async (total: number) => {
      while (sent < total) {
        const batch = Array.from({ length: Math.min(SEND_BATCH, total - sent) }, () => {
          sent += 1;
          return w.send({ from: box1, to: box0, subject: `Page ${tag} ${sent}`, text: tag });
        });
        for (const response of await Promise.all(batch))
          expectSuccess('4.2-R10', response, 'a send filling the mailbox');
      }
      // An API world's mail takes time to arrive: the watch waits for it (a control world
      // delivers before the send answers).
      if (!w.apiWorld) return;
      const arrived = (await w.listed(box0)).filter((e) => e.subject.includes(tag));
      expectAt(
        '4.2-R10',
        arrived.length,
        `the check's ${total} emails arrived`,
      ).toBeGreaterThanOrEqual(total);
    };
    // The page's array is the one array of the answer (its name is not shown, §4.2). The
    // mailbox may hold other mail too: with at least 26 (101) emails in it, a page is full.
    const page = async (query: Record<string, string | number>) => {
      const response = await w.api.request({
        path: '/emails',
        query: { mailbox: box0, ...query },
        apiKey: w.apiKey,
      });
      const body = response.json<{ nextCursor?: string | null }>() ?? {};
      const items = (Object.values(body as object).find(Array.isArray) ?? []) as unknown[];
      return { response, items, nextCursor: body.nextCursor };
    };
    await fillTo(26);
    const first = await page({});
    expectAt('4.2-R10', first.response.status, 'a page without limit').toBe(200);
    expectAt('4.2-R10', first.items, 'a page without limit, 26 or more emails listed').toHaveLength(
      25,
    );
    expectAt('4.2-R10', typeof first.nextCursor, 'nextCursor with more left').toBe('string');
    await fillTo(101);
    const hundred = await page({ limit: 100 });
    expectAt('8-R3', hundred.response.status, 'a page of limit 100').toBe(200);
    expectAt('8-R3', hundred.items, 'a page of limit 100, 101 or more emails listed').toHaveLength(
      100,
    );
    expectAt('8-R3', typeof hundred.nextCursor, 'nextCursor with more left').toBe('string');
    // Above the maximum: refusing it, and how, is decided (D-15); a target that answers it
    // anyway still lists no more than the maximum (§8).
    const tooMany = await page({ limit: 101 });
    expectError('D-15', tooMany.response, 400, 'limit_too_large', 'limit', 'limit=101');
    if (tooMany.response.status >= 200 && tooMany.response.status <= 299)
      expectAt('8-R3', tooMany.items.length, 'a page answered for limit=101').toBeLessThanOrEqual(
        100,
      );
  },
  { needs: ['mail', 'destructive'], timeout: 180_000 },
);

rule(
  ['4.2-R13', '4.2-R12', 'D-16', 'D-17'],
  'walks every email once, with no duplicate and no gap, while new mail arrives between pages',
  async ({ api, target }) => {
    const control = new ControlClient(api, target.control!);
    const tenant = await createTenant(control);
    const mailbox = tenant.mailboxes[0] as string;
    const now = Date.parse(await control.now());
    const before: string[] = [];
    for (let i = 0; i < 17; i += 1) {
      // Three emails per instant: ties, which pages must not split into a gap or a repeat.
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
    // §4.2: a walk returns every email once, newest first across distinct times.
    const quiet = await chargeTo('4.2-R13', () => walkAll(api, tenant.key.secret, { mailbox }, 4));
    expectAt('4.2-R13', quiet.map((e) => e.id).sort(), 'a walk with no new mail').toEqual(
      [...before].sort(),
    );
    expectNewestFirst('4.2-R12', quiet, 'a walk with no new mail');
    // D-17: ties by id, descending.
    for (let i = 1; i < quiet.length; i += 1) {
      const [a, b] = [quiet[i - 1]!, quiet[i]!];
      if (a.receivedAt === b.receivedAt)
        expectAt('D-17', a.id > b.id, `tie: ${a.id} listed before ${b.id}`).toBe(true);
    }
    // D-16: keyset cursors survive new mail: still no duplicate and no gap.
    const arrived: string[] = [];
    const walked = await chargeTo('D-16', () =>
      walkAll(api, tenant.key.secret, { mailbox }, 4, async () => {
        await control.advanceClock(1000);
        arrived.push(
          (await control.inject({ mailbox, from: 'carol@partner.test', subject: 'new', text: 'y' }))
            .id,
        );
      }),
    );
    expectAt('D-16', arrived.length, 'mail arrived during the walk').toBeGreaterThan(0);
    expectAt('D-16', walked.map((e) => e.id).sort(), 'a walk while mail arrives').toEqual(
      [...before].sort(),
    );
  },
  { needs: ['crafted-mail', 'provisioning', 'clock'] },
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
      // Cursors are opaque (§4.2, §9): refusing an altered or foreign one is decided (D-16).
      expectError('D-16', response, 400, 'invalid_cursor', 'cursor', JSON.stringify(query));
    }
  },
  { needs: ['crafted-mail', 'provisioning'] },
);

/** The ids one listing of `query` returns (one page of up to 100). */
async function idsOf(
  api: CheckContext['api'],
  apiKey: string,
  query: Record<string, string>,
): Promise<string[]> {
  const response = await api.request({
    path: '/emails',
    query: { ...query, limit: '100' },
    apiKey,
  });
  return (response.json<{ emails?: { id: string }[] }>().emails ?? []).map((e) => e.id).sort();
}

rule(
  ['2.3-R4', '4.2-R2', '4.2-R3', '4.2-R4', '4.2-R5', '4.2-R6', '4.2-R7', '4.2-R8', '4.2-R9'],
  "finds the run's own mail by every filter and by free text, wherever the target filed it",
  async (context) => {
    const w = await world(context, { rule: '2.3-R4' });
    const [box0, box1] = w.box as [string, string];
    const tag = `t${randomTag()}`;
    // Three emails from box1, each with a word of its own; searching the tag finds only them.
    const names = ['alpha', 'beta', 'gamma'] as const;
    for (const name of names) {
      const sent = await w.send({
        from: box1,
        to: box0,
        subject: `${name} ${tag}`,
        text: `${name}${tag} and ${tag}`,
      });
      expectAt('2.3-R4', sent.status >= 200 && sent.status <= 299, `send ${name}`).toBe(true);
    }
    const arrived = (await w.listed(box0)).filter((e) => e.subject.endsWith(tag));
    expectAt('2.3-R4', arrived.length, 'the three emails arrived').toBe(3);
    const id = Object.fromEntries(arrived.map((e) => [e.subject.split(' ')[0]!, e.id])) as Record<
      (typeof names)[number],
      string
    >;
    const patch = async (emailId: string, json: object) =>
      expectAt(
        '4.5-R1',
        (
          await w.api.request({
            method: 'PATCH',
            path: `/emails/${encodeURIComponent(emailId)}`,
            json,
            apiKey: w.apiKey,
          })
        ).status,
        `PATCH ${JSON.stringify(json)}`,
      ).toBe(200);
    await patch(id.alpha, { folder: 'inbox', read: true, starred: true });
    await patch(id.beta, { folder: 'inbox', read: false, starred: false });
    await patch(id.gamma, { folder: 'trash' });
    const times = arrived.map((e) => Date.parse(e.receivedAt));
    const dayBefore = new Date(Math.min(...times) - 86_400_000).toISOString();
    const dayAfter = new Date(Math.max(...times) + 86_400_000).toISOString();
    const base = { mailbox: box0, q: tag };
    // A deployment may index search a little after mail arrives: the first query is asked
    // again until it answers as expected or --delivery-timeout has passed (an API world only;
    // the control world's search is current), and every query is judged after that.
    let catchUpMs = w.apiWorld ? context.target.deliveryTimeoutMs : 0;
    const expectFinds = async (
      ruleId: string,
      query: Record<string, string>,
      expected: string[],
    ) => {
      const deadline = Date.now() + catchUpMs;
      catchUpMs = 0;
      let found = await idsOf(w.api, w.apiKey, query);
      const wanted = JSON.stringify([...expected].sort());
      if (JSON.stringify(found) !== wanted && Date.now() < deadline)
        await waitingOnTarget(async () => {
          while (JSON.stringify(found) !== wanted && Date.now() < deadline) {
            await new Promise((resolve) => setTimeout(resolve, 250));
            found = await idsOf(w.api, w.apiKey, query);
          }
        });
      expectAt(ruleId, found, `GET /emails ${JSON.stringify(query)}`).toEqual([...expected].sort());
    };
    await expectFinds('4.2-R3', { ...base, folder: 'inbox' }, [id.alpha, id.beta]);
    await expectFinds('4.2-R3', { mailbox: box0, q: `beta${tag}`, folder: 'inbox' }, [id.beta]);
    await expectFinds('4.2-R2', { ...base, folder: 'trash' }, [id.gamma]);
    await expectFinds('4.2-R6', { ...base, folder: 'inbox', read: 'true' }, [id.alpha]);
    await expectFinds('4.2-R6', { ...base, folder: 'inbox', read: 'false' }, [id.beta]);
    await expectFinds('4.2-R7', { ...base, folder: 'inbox', starred: 'true' }, [id.alpha]);
    await expectFinds('4.2-R5', { ...base, folder: 'inbox', subject: `beta ${tag}` }, [id.beta]);
    await expectFinds('4.2-R4', { ...base, folder: 'inbox', from: box1 }, [id.alpha, id.beta]);
    await expectFinds('4.2-R8', { ...base, folder: 'inbox', dateFrom: dayBefore }, [
      id.alpha,
      id.beta,
    ]);
    await expectFinds('4.2-R8', { ...base, folder: 'inbox', dateFrom: dayAfter }, []);
    await expectFinds('4.2-R9', { ...base, folder: 'inbox', dateTo: dayAfter }, [
      id.alpha,
      id.beta,
    ]);
    await expectFinds('4.2-R9', { ...base, folder: 'inbox', dateTo: dayBefore }, []);
    // §2.3: every searchable attribute at once narrows to the one email that has them all.
    await expectFinds(
      '2.3-R4',
      {
        ...base,
        folder: 'inbox',
        read: 'true',
        starred: 'true',
        from: box1,
        subject: `alpha ${tag}`,
        dateFrom: dayBefore,
        dateTo: dayAfter,
      },
      [id.alpha],
    );
  },
  { needs: ['mail', 'destructive'], timeout: 120_000 },
);

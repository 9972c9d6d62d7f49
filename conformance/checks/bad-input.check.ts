/**
 * §7 and the bad-input standard: whatever a client sends to the read side, the answer is a
 * 2xx or a 4xx in the Error schema naming the field, never a 5xx.
 *
 * Every check only reads (GET /emails), so none needs to write: in an API world each queries
 * the given key's first --mailbox with whatever mail it holds, and a check that needs mail there
 * (a real nextCursor, a real receivedAt) says so when it finds too little, after checking what
 * it can without.
 */
import fc from 'fast-check';
import { expectAt } from '../src/contract/charge.ts';
import { MissingCapability, rule, type CheckContext } from '../src/check-runner/check.ts';
import { expectRefusal, expectSuccess } from '../src/model/statuses.ts';
import { world, expectError } from '../src/worlds/send-world.ts';

const PARAMS = [
  'mailbox',
  'folder',
  'q',
  'from',
  'subject',
  'read',
  'starred',
  'dateFrom',
  'dateTo',
  'limit',
  'cursor',
  'colour',
];

/** Whether the target offers the control plane (the control world), which can place mail. */
const controlWorld = (context: CheckContext) => context.target.control !== undefined;

/**
 * One page of GET /emails, which must answer 200 (charged to `at`): its one array (its name is
 * not shown, §4.2) and its nextCursor.
 */
async function page(
  context: CheckContext,
  apiKey: string,
  query: Record<string, string | number>,
  at: string,
) {
  const response = await context.api.request({ path: '/emails', query, apiKey });
  expectAt(at, response.status, `GET /emails ${JSON.stringify(query)}`).toBe(200);
  const body = response.json<{ nextCursor?: unknown }>();
  const emails = (Object.values(body).find(Array.isArray) ?? []) as { receivedAt: string }[];
  return { emails, nextCursor: body.nextCursor };
}

rule(
  ['7-R1', 'D-12', 'D-19', 'D-18'],
  'answers any generated query string with 200 or a 4xx naming the field, never a 5xx',
  async (context) => {
    const { api, property } = context;
    const w = await world(context, { boxes: 1, rule: '7-R1' });
    const mailbox = w.box[0]!;
    // Mail for the filters and the search to run on: one email placed in the control world's
    // fresh mailbox; an API world's --mailbox holds what it holds.
    if (controlWorld(context))
      await w.inject({ mailbox, from: 'bob@partner.test', subject: 'hello', text: 'world' });
    const value = fc.oneof(
      fc.string({ maxLength: 40 }),
      fc.string({ unit: 'binary', maxLength: 20 }),
      fc.constantFrom(
        'true',
        'false',
        'TRUE',
        '1',
        'yes',
        '',
        '0',
        '-1',
        '101',
        '25',
        '2026-10-01',
        '2026-02-30',
        '2026-10-01T10:00:00',
        '2026-10-01T10:00:00+02:00',
        'inbox',
        'Inbox',
        '*',
        '"',
        "'",
        'a'.repeat(2000),
      ),
    );
    await property(
      fc.tuple(fc.dictionary(fc.constantFrom(...PARAMS), value, { maxKeys: 5 }), fc.boolean()),
      async ([params, withMailbox]) => {
        const query = withMailbox ? { mailbox, ...params } : params;
        const response = await api.request({ path: '/emails', query, apiKey: w.apiKey });
        // §7: a bad query is an error in the Error shape, not a fault of the service.
        expectAt('7-R1', response.status, `GET /emails ${JSON.stringify(query)}`).toBeLessThan(500);
        // A refused query parameter is a field that applies (§7): the error names it. 400 is
        // our status for it (D-12); 422 is another a deployment may choose.
        if (response.status === 400 || response.status === 422) {
          const body = response.json<{ field?: string }>();
          expectAt(
            '7-R1',
            body.field,
            `${response.status} names the field for ${JSON.stringify(query)}`,
          ).toBeDefined();
          expectAt('7-R1', [...Object.keys(query), 'mailbox']).toContain(body.field);
        }
      },
    );
  },
  { timeout: 60_000 },
);

rule(
  ['D-19', '4.2-R6', '4.2-R7'],
  'accepts exactly true and false for read and starred',
  async (context) => {
    const { api } = context;
    const w = await world(context, { boxes: 1, rule: '4.2-R6' });
    const mailbox = w.box[0]!;
    for (const value of ['true', 'false']) {
      const response = await api.request({
        path: '/emails',
        query: { mailbox, read: value },
        apiKey: w.apiKey,
      });
      expectSuccess('4.2-R6', response.status, `read=${value}`);
    }
    for (const value of ['True', '1', 'yes', '']) {
      const response = await api.request({
        path: '/emails',
        query: { mailbox, starred: value },
        apiKey: w.apiKey,
      });
      // Refusing other spellings, and how, is decided (D-19).
      expectError('D-19', response, 400, 'invalid_field', 'starred', `starred=${value}`);
    }
  },
);

rule(['4.2-R1', 'D-12'], 'requires the mailbox parameter', async (context) => {
  // A key is all it needs: in an API world the given one, no --mailbox required.
  const apiKey = controlWorld(context)
    ? (await world(context, { boxes: 1, rule: '4.2-R1' })).apiKey
    : context.target.apiKey;
  if (apiKey === undefined) throw new MissingCapability('needs an API key (give --api-key)');
  const response = await context.api.request({ path: '/emails', apiKey });
  expectRefusal('4.2-R1', response.status, 'GET /emails without mailbox');
  expectError('D-12', response, 400, 'missing_field', 'mailbox');
});

rule(
  ['4.2-R2', '4.2-R4', '4.2-R5', 'D-5', 'D-12', 'D-14'],
  'refuses an unknown folder and an empty from or subject with 400 naming the parameter',
  async (context) => {
    const { api } = context;
    const w = await world(context, { boxes: 1, rule: '4.2-R2' });
    const mailbox = w.box[0]!;
    for (const [name, value, code] of [
      ['folder', 'Inbox', 'invalid_folder'],
      ['folder', 'later', 'invalid_folder'],
      ['from', '', 'invalid_field'],
      ['subject', '', 'invalid_field'],
    ] as const) {
      const response = await api.request({
        path: '/emails',
        query: { mailbox, [name]: value },
        apiKey: w.apiKey,
      });
      // An unknown folder is refused by D-5; an empty filter by D-12.
      const decision = name === 'folder' ? 'D-5' : 'D-12';
      expectError(decision, response, 400, code, name, `${name}=${JSON.stringify(value)}`);
    }
  },
);

rule(
  ['4.2-R8', '4.2-R9', 'D-18'],
  'refuses a malformed dateFrom or dateTo, or dateTo before dateFrom, with 400 invalid_field naming it, and takes dateTo equal to dateFrom as an empty range',
  async (context) => {
    const { api } = context;
    const w = await world(context, { boxes: 1, rule: '4.2-R8' });
    const mailbox = w.box[0]!;
    const apiKey = w.apiKey;
    // An email at a known instant: placed at a chosen time in the control world; in an API
    // world the newest email the mailbox lists, looked for after the refusals, which need none.
    const placed = controlWorld(context)
      ? (
          await w.control.inject({
            mailbox,
            from: 'bob@partner.test',
            subject: 'hello',
            text: 'world',
            receivedAt: '2026-10-01T10:00:00.000Z',
          })
        ).receivedAt
      : undefined;
    for (const [query, field] of [
      [{ dateFrom: 'yesterday' }, 'dateFrom'],
      [{ dateTo: 'yesterday' }, 'dateTo'],
      [{ dateTo: '2026-10-01T10:00:00' }, 'dateTo'],
      [{ dateFrom: '2026-10-02', dateTo: '2026-10-01' }, 'dateTo'],
    ] as const) {
      const response = await api.request({ path: '/emails', query: { mailbox, ...query }, apiKey });
      expectError('D-18', response, 400, 'invalid_field', field, JSON.stringify(query));
    }
    const receivedAt =
      placed ??
      (await page(context, apiKey, { mailbox, limit: 1 }, '4.2-R8')).emails[0]?.receivedAt;
    if (receivedAt === undefined)
      throw new MissingCapability(
        `needs an email in ${mailbox} whose receivedAt bounds an empty range, and it lists none (the malformed dates were refused as they should be)`,
      );
    // Inclusive dateFrom and exclusive dateTo at the same instant: nothing, not an error.
    const empty = await api.request({
      path: '/emails',
      query: { mailbox, dateFrom: receivedAt, dateTo: receivedAt },
      apiKey,
    });
    expectAt('D-18', empty.status, 'dateTo equal to dateFrom').toBe(200);
    // The array's name is not shown (§4.2): the page's one array.
    expectAt('D-18', Object.values(empty.json<object>()).find(Array.isArray)).toEqual([]);
  },
);

rule(
  ['4.2-R10', 'D-15'],
  'refuses a limit below 1 or not an integer with 400 invalid_field naming limit',
  async (context) => {
    const { api } = context;
    const w = await world(context, { boxes: 1, rule: '4.2-R10' });
    const mailbox = w.box[0]!;
    for (const limit of ['0', '-1', '2.5', 'ten', '']) {
      const response = await api.request({
        path: '/emails',
        query: { mailbox, limit },
        apiKey: w.apiKey,
      });
      // Refusing a limit that is no positive integer, and how, is decided (D-15).
      expectError(
        'D-15',
        response,
        400,
        'invalid_field',
        'limit',
        `limit=${JSON.stringify(limit)}`,
      );
    }
  },
);

rule(
  ['4.2-R11', 'D-16', '7-R1'],
  'refuses a made-up cursor, or a nextCursor with a character outside base64url added, with 400 invalid_cursor naming cursor',
  async (context) => {
    const { api } = context;
    const w = await world(context, { boxes: 1, rule: '4.2-R11' });
    const mailbox = w.box[0]!;
    const apiKey = w.apiKey;
    // Two emails, so a first page of one has a nextCursor: placed in the control world's fresh
    // mailbox; an API world's --mailbox must list at least two of its own.
    if (controlWorld(context))
      for (let i = 0; i < 2; i += 1)
        await w.inject({ mailbox, from: 'bob@partner.test', subject: `s${i}`, text: 'x' });
    const refused = async (cursor: string) => {
      const response = await api.request({ path: '/emails', query: { mailbox, cursor }, apiKey });
      // Cursors are opaque (§4.2, §9): refusing an altered one, and how, is decided (D-16).
      expectError(
        'D-16',
        response,
        400,
        'invalid_cursor',
        'cursor',
        `cursor=${JSON.stringify(cursor)}`,
      );
    };
    // Made-up cursors need no mail.
    for (const v of [{}, null, 42, 'x', []])
      await refused(Buffer.from(JSON.stringify(v), 'utf8').toString('base64url'));
    if (!controlWorld(context)) {
      const held = (await page(context, apiKey, { mailbox, limit: 2 }, '4.2-R11')).emails.length;
      if (held < 2)
        throw new MissingCapability(
          `needs at least 2 emails in ${mailbox} for a real nextCursor, and it lists ${held} (the made-up cursors were refused as they should be)`,
        );
    }
    const { nextCursor } = await page(context, apiKey, { mailbox, limit: 1 }, '4.2-R11');
    expectAt('4.2-R11', typeof nextCursor, 'nextCursor of a first page of 1 out of 2').toBe(
      'string',
    );
    for (const cursor of [`${nextCursor}!`, `!${nextCursor}`, `${nextCursor} `])
      await refused(cursor);
  },
);

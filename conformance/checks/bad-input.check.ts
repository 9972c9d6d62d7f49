/**
 * §7 and the bad-input standard: whatever a client sends to the read side, the answer is a
 * 2xx or a 4xx in the Error schema naming the field, never a 5xx.
 */
import fc from 'fast-check';
import { expectAt } from '../src/charge.ts';
import { rule } from '../src/check.ts';
import { ControlClient, createTenant } from '../src/control-client.ts';
import { expectRefusal, expectSuccess } from '../src/model/statuses.ts';

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

rule(
  ['7-R1', 'D-12', 'D-19', 'D-18'],
  'answers any generated query string with 200 or a 4xx naming the field, never a 5xx',
  async ({ api, target, property }) => {
    const control = new ControlClient(api, target.control!);
    const tenant = await createTenant(control);
    const mailbox = tenant.mailboxes[0] as string;
    await control.inject({ mailbox, from: 'bob@partner.test', subject: 'hello', text: 'world' });
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
        const response = await api.request({ path: '/emails', query, apiKey: tenant.key.secret });
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
  { needs: ['crafted-mail', 'provisioning'], timeout: 60_000 },
);

rule(
  ['D-19', '4.2-R6', '4.2-R7'],
  'accepts exactly true and false for read and starred',
  async ({ api, target }) => {
    const control = new ControlClient(api, target.control!);
    const tenant = await createTenant(control);
    const mailbox = tenant.mailboxes[0] as string;
    for (const value of ['true', 'false']) {
      const response = await api.request({
        path: '/emails',
        query: { mailbox, read: value },
        apiKey: tenant.key.secret,
      });
      expectSuccess('4.2-R6', response.status, `read=${value}`);
    }
    for (const value of ['True', '1', 'yes', '']) {
      const response = await api.request({
        path: '/emails',
        query: { mailbox, starred: value },
        apiKey: tenant.key.secret,
      });
      // Refusing other spellings, and how, is decided (D-19).
      expectAt('D-19', response.status, `starred=${value}`).toBe(400);
      expectAt('D-19', response.json()).toMatchObject({ code: 'invalid_field', field: 'starred' });
    }
  },
  { needs: ['provisioning'] },
);

rule(
  ['4.2-R1', 'D-12'],
  'requires the mailbox parameter',
  async ({ api, target }) => {
    const control = new ControlClient(api, target.control!);
    const tenant = await createTenant(control);
    const response = await api.request({ path: '/emails', apiKey: tenant.key.secret });
    expectRefusal('4.2-R1', response.status, 'GET /emails without mailbox');
    expectAt('D-12', response.status).toBe(400);
    expectAt('D-12', response.json()).toMatchObject({ code: 'missing_field', field: 'mailbox' });
  },
  { needs: ['provisioning'] },
);

rule(
  ['4.2-R2', '4.2-R4', '4.2-R5', 'D-5', 'D-12', 'D-14'],
  'refuses an unknown folder and an empty from or subject with 400 naming the parameter',
  async ({ api, target }) => {
    const control = new ControlClient(api, target.control!);
    const tenant = await createTenant(control);
    const mailbox = tenant.mailboxes[0] as string;
    for (const [name, value, code] of [
      ['folder', 'Inbox', 'invalid_folder'],
      ['folder', 'later', 'invalid_folder'],
      ['from', '', 'invalid_field'],
      ['subject', '', 'invalid_field'],
    ] as const) {
      const response = await api.request({
        path: '/emails',
        query: { mailbox, [name]: value },
        apiKey: tenant.key.secret,
      });
      // An unknown folder is refused by D-5; an empty filter by D-12.
      const decision = name === 'folder' ? 'D-5' : 'D-12';
      expectAt(decision, response.status, `${name}=${JSON.stringify(value)}`).toBe(400);
      expectAt(decision, response.json()).toMatchObject({ code, field: name });
    }
  },
  { needs: ['provisioning'] },
);

rule(
  ['4.2-R8', '4.2-R9', 'D-18'],
  'refuses a malformed dateFrom or dateTo, or dateTo before dateFrom, with 400 invalid_field naming it, and takes dateTo equal to dateFrom as an empty range',
  async ({ api, target }) => {
    const control = new ControlClient(api, target.control!);
    const tenant = await createTenant(control);
    const mailbox = tenant.mailboxes[0] as string;
    const apiKey = tenant.key.secret;
    const { receivedAt } = await control.inject({
      mailbox,
      from: 'bob@partner.test',
      subject: 'hello',
      text: 'world',
      receivedAt: '2026-10-01T10:00:00.000Z',
    });
    for (const [query, field] of [
      [{ dateFrom: 'yesterday' }, 'dateFrom'],
      [{ dateTo: 'yesterday' }, 'dateTo'],
      [{ dateTo: '2026-10-01T10:00:00' }, 'dateTo'],
      [{ dateFrom: '2026-10-02', dateTo: '2026-10-01' }, 'dateTo'],
    ] as const) {
      const response = await api.request({ path: '/emails', query: { mailbox, ...query }, apiKey });
      expectAt('D-18', response.status, JSON.stringify(query)).toBe(400);
      expectAt('D-18', response.json()).toMatchObject({ code: 'invalid_field', field });
    }
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
  { needs: ['crafted-mail', 'provisioning'] },
);

rule(
  ['4.2-R10', 'D-15'],
  'refuses a limit below 1 or not an integer with 400 invalid_field naming limit',
  async ({ api, target }) => {
    const control = new ControlClient(api, target.control!);
    const tenant = await createTenant(control);
    const mailbox = tenant.mailboxes[0] as string;
    for (const limit of ['0', '-1', '2.5', 'ten', '']) {
      const response = await api.request({
        path: '/emails',
        query: { mailbox, limit },
        apiKey: tenant.key.secret,
      });
      // Refusing a limit that is no positive integer, and how, is decided (D-15).
      expectAt('D-15', response.status, `limit=${JSON.stringify(limit)}`).toBe(400);
      expectAt('D-15', response.json()).toMatchObject({ code: 'invalid_field', field: 'limit' });
    }
  },
  { needs: ['provisioning'] },
);

rule(
  ['4.2-R11', 'D-16', '7-R1'],
  'refuses a made-up cursor, or a nextCursor with a character outside base64url added, with 400 invalid_cursor naming cursor',
  async ({ api, target }) => {
    const control = new ControlClient(api, target.control!);
    const tenant = await createTenant(control);
    const mailbox = tenant.mailboxes[0] as string;
    const apiKey = tenant.key.secret;
    for (let i = 0; i < 2; i += 1)
      await control.inject({ mailbox, from: 'bob@partner.test', subject: `s${i}`, text: 'x' });
    const { nextCursor } = (
      await api.request({ path: '/emails', query: { mailbox, limit: 1 }, apiKey })
    ).json<{ nextCursor: string }>();
    expectAt('4.2-R11', typeof nextCursor, 'nextCursor of a first page of 1 out of 2').toBe(
      'string',
    );
    const madeUp = [{}, null, 42, 'x', []].map((v) =>
      Buffer.from(JSON.stringify(v), 'utf8').toString('base64url'),
    );
    for (const cursor of [`${nextCursor}!`, `!${nextCursor}`, `${nextCursor} `, ...madeUp]) {
      const response = await api.request({ path: '/emails', query: { mailbox, cursor }, apiKey });
      // Cursors are opaque (§4.2, §9): refusing an altered one, and how, is decided (D-16).
      expectAt('D-16', response.status, `cursor=${JSON.stringify(cursor)}`).toBe(400);
      expectAt('D-16', response.json()).toMatchObject({ code: 'invalid_cursor', field: 'cursor' });
    }
  },
  { needs: ['crafted-mail', 'provisioning'] },
);

/**
 * §4, §2.1, §2.3 and §9: results come back directly (no envelope), timestamps are ISO 8601,
 * and a key keeps the name it was created with.
 *
 * The mail the shape checks read is mail they send from the world's first mailbox to its
 * second (send-world.ts), so they run on any target given mailboxes and --destructive.
 */
import { expectAt } from '../src/contract/charge.ts';
import { rule } from '../src/check-runner/check.ts';
import { ControlClient, createTenant } from '../src/client/control-client.ts';
import { expectSuccess } from '../src/model/statuses.ts';
import { world } from '../src/worlds/send-world.ts';

const ISO_8601 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:Z|[+-]\d{2}:\d{2})$/;

// 4.1-R1: the contract check of GET /mailboxes' answer (the client's) is charged to it.
rule(
  ['4-R2', '4.1-R1'],
  'returns results directly: an array of mailboxes, an email object, a page object, no envelope',
  async (context) => {
    const w = await world(context, { rule: '4-R2' });
    const { api, apiKey } = w;
    const mailbox = w.box[1]!;
    const sent = await w.send({
      from: w.box[0],
      to: mailbox,
      subject: w.subject('Shape'),
      text: 'x',
    });
    expectSuccess('4-R2', sent.status, 'POST /emails/send');
    // The received copy, however long it took to arrive (w.listed awaits it).
    const received = await w.listed(mailbox);
    expectAt('4-R2', received.length, 'the mail sent arrived').toBeGreaterThan(0);
    const id = received[0]!.id;
    const mailboxes = (await api.request({ path: '/mailboxes', apiKey })).json<unknown>();
    expectAt('4-R2', Array.isArray(mailboxes), 'GET /mailboxes is a bare array').toBe(true);
    const detail = (await api.request({ path: `/emails/${id}`, apiKey })).json<
      Record<string, unknown>
    >();
    expectAt('4-R2', detail.id, 'GET /emails/{id} has the email fields at the top level').toBe(id);
    expectAt('4-R2', Object.keys(detail)).not.toContain('data');
    const page = (await api.request({ path: '/emails', query: { mailbox }, apiKey })).json<
      Record<string, unknown>
    >();
    // §4.2 names nextCursor; the array's name is not shown (D-6), so any name will do.
    expectAt('4-R2', Object.keys(page), 'the page carries nextCursor at its top level').toContain(
      'nextCursor',
    );
    expectAt(
      '4-R2',
      Object.values(page).some(Array.isArray),
      'the page carries its results as an array at its top level',
    ).toBe(true);
  },
  { needs: ['mail', 'destructive'], concurrent: true },
);

/**
 * Every timestamp field of an email object: the record's field names are not shown (§2.3,
 * D-3, D-4), so a timestamp is a string-valued field named like one (`…At`).
 */
function timestampsOf(email: unknown): [string, string][] {
  if (typeof email !== 'object' || email === null || Array.isArray(email)) return [];
  return Object.entries(email).filter(
    (entry): entry is [string, string] => /At$/.test(entry[0]) && typeof entry[1] === 'string',
  );
}

// D-21 and 4.2-R13: the contract checks of the send answer and the page (the client's) are
// charged to them.
rule(
  ['2.3-R3', '9-R3', '2.3-R1', 'D-21', '4.2-R13'],
  'writes every timestamp as ISO 8601, and ids and cursors as opaque strings',
  async (context) => {
    const w = await world(context, { rule: '2.3-R3' });
    const { api, apiKey } = w;
    const mailbox = w.box[1]!;
    for (let i = 0; i < 3; i += 1)
      expectSuccess(
        '9-R3',
        (await w.send({ from: w.box[0], to: mailbox, subject: w.subject(`t${i}`), text: 'x' }))
          .status,
        `POST /emails/send t${i}`,
      );
    const sent = await w.send({
      from: w.box[0],
      to: mailbox,
      subject: w.subject('Stamp'),
      text: 'x',
    });
    expectSuccess('2.3-R3', sent.status, 'POST /emails/send');
    // The answer's shape is not shown (§4.3, D-21): whatever timestamps it carries are checked.
    const stamps: [string, string][] = sent.text === '' ? [] : timestampsOf(sent.json<unknown>());
    // The four received copies, however long they took to arrive (w.listed awaits them).
    expectAt(
      '9-R3',
      (await w.listed(mailbox)).length,
      'the mail sent arrived: more than a page of 2',
    ).toBeGreaterThan(2);
    const page = (
      await api.request({ path: '/emails', query: { mailbox, limit: 2 }, apiKey })
    ).json<{
      emails: { id: unknown }[];
      nextCursor: unknown;
    }>();
    const listed = Object.values(page).find(Array.isArray) as unknown[];
    for (const email of listed) {
      stamps.push(...timestampsOf(email));
      const id = (email as { id?: unknown }).id;
      expectAt('2.3-R1', typeof id, 'an email id is a string').toBe('string');
      const detail = await api.request({ path: `/emails/${String(id)}`, apiKey });
      stamps.push(...timestampsOf(detail.json<unknown>()));
    }
    expectAt('2.3-R3', stamps.length, 'timestamps found on emails').toBeGreaterThan(0);
    for (const [name, value] of stamps) expectAt('2.3-R3', value, name).toMatch(ISO_8601);
    expectAt('9-R3', typeof page.nextCursor, 'nextCursor of a first page of 2 out of more').toBe(
      'string',
    );
  },
  // Alone: it reads the detail of whatever the target's first page lists, which other
  // checks running side by side could delete in between.
  { needs: ['mail', 'destructive'] },
);

rule(
  ['2.1-R1'],
  'keeps the name a key was created with, identifying its application',
  async ({ api, target }) => {
    const control = new ControlClient(api, target.control!);
    const tenant = await createTenant(control);
    const key = await control.createKey(tenant.ownerId, 'follow-owner', {
      name: 'Billing sync (prod)',
    });
    const keys = (
      await api.request({
        path: `${target.control!.baseUrl}/keys`,
        absolute: true,
        headers: { Authorization: `Bearer ${target.control!.token}` },
      })
    ).json<{ id: string; name: string }[]>();
    expectAt('2.1-R1', keys.find((k) => k.id === key.id)?.name).toBe('Billing sync (prod)');
    const mailboxes = await api.request({ path: '/mailboxes', apiKey: key.secret });
    expectSuccess('2.1-R1', mailboxes.status, 'GET /mailboxes with the named key');
  },
  // A key made with a chosen name, and the names of keys, are the dashboard's: no API shows them.
  { needs: ['provisioning'], concurrent: true },
);

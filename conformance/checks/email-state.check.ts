/**
 * §3.1, §4.4-§4.6: reading leaves the read flag alone; PATCH changes what list and detail
 * show; trash is recoverable; delete is permanent and answered 204 with no body.
 */
import { expectAt } from '../src/charge.ts';
import { rule } from '../src/check.ts';
import type { ApiClient } from '../src/client.ts';
import { ControlClient, createTenant } from '../src/control-client.ts';
import { expectRefusal, expectSuccess } from '../src/model/statuses.ts';

interface Detail {
  id: string;
  folder: string;
  read: boolean;
  starred: boolean;
  attachments: { id: string; name: string; size: number }[];
}

async function oneEmail(api: ApiClient, control: ControlClient) {
  const tenant = await createTenant(control);
  const mailbox = tenant.mailboxes[0] as string;
  const { id } = await control.inject({
    mailbox,
    from: 'Bob Stone <bob@partner.test>',
    to: [mailbox],
    subject: 'State',
    text: 'Body',
    attachments: [
      {
        name: 'notes.txt',
        contentType: 'text/plain',
        contentBase64: Buffer.from('hello').toString('base64'),
      },
    ],
  });
  const apiKey = tenant.key.secret;
  const get = async () => (await api.request({ path: `/emails/${id}`, apiKey })).json<Detail>();
  // The name of a page's array is not shown (§4.2, D-6): the page's one array.
  const listed = async (query: Record<string, string> = {}) =>
    Object.values(
      (await api.request({ path: '/emails', query: { mailbox, ...query }, apiKey })).json<object>(),
    ).find(Array.isArray) as Detail[];
  const patch = (json: unknown, headers?: Record<string, string>) =>
    api.request({
      method: 'PATCH',
      path: `/emails/${id}`,
      json,
      apiKey,
      ...(headers ? { headers } : {}),
    });
  return { id, mailbox, apiKey, get, listed, patch };
}

rule(
  ['3.1-R3', '4.4-R2', '4.4-R1', '2.3-R1', '2.3-R2'],
  'returns detail with attachment ids and never changes the read flag by reading',
  async ({ api, target }) => {
    const email = await oneEmail(api, new ControlClient(api, target.control!));
    for (let i = 0; i < 3; i += 1) {
      const detail = await email.get();
      expectAt('4.4-R2', detail.read, `read after ${i + 1} GET`).toBe(false);
      expectAt('4.4-R1', detail.attachments).toHaveLength(1);
      expectAt('4.4-R1', detail.attachments[0]).toMatchObject({ name: 'notes.txt', size: 5 });
    }
    expectAt('4.4-R2', (await email.listed())[0]?.read, 'read in the list').toBe(false);
  },
  { needs: ['crafted-mail', 'provisioning'] },
);

/** §3.1: what detail shows of folder (3.1-R1), read (3.1-R3) and starred (3.1-R4). */
async function expectState(
  email: Awaited<ReturnType<typeof oneEmail>>,
  state: { folder: string; read: boolean; starred: boolean },
  when: string,
): Promise<void> {
  const detail = await email.get();
  expectAt('3.1-R1', detail.folder, `folder ${when}`).toBe(state.folder);
  expectAt('3.1-R3', detail.read, `read ${when}`).toBe(state.read);
  expectAt('3.1-R4', detail.starred, `starred ${when}`).toBe(state.starred);
}

rule(
  ['3.1-R1', '3.1-R3', '3.1-R4', '4.5-R1', 'D-20', 'D-5'],
  'applies PATCH of folder, read and starred to detail and list, and answers with the updated email',
  async ({ api, target }) => {
    const email = await oneEmail(api, new ControlClient(api, target.control!));
    // trash is one of the two folders §3.1 names; archive is ours (D-5), tried last.
    const response = await email.patch({ folder: 'trash', read: true, starred: true });
    expectSuccess('4.5-R1', response.status, 'PATCH folder, read and starred');
    await expectState(email, { folder: 'trash', read: true, starred: true }, 'after the PATCH');
    const inTrash = await email.listed({ folder: 'trash' });
    expectAt(
      '3.1-R1',
      inTrash.map((e) => e.id),
      'listed in trash',
    ).toEqual([email.id]);
    expectAt('3.1-R3', inTrash[0]?.read, 'read in the list').toBe(true);
    expectAt('3.1-R4', inTrash[0]?.starred, 'starred in the list').toBe(true);
    expectAt('3.1-R1', await email.listed({ folder: 'inbox' }), 'listed in inbox').toEqual([]);
    expectSuccess('4.5-R1', (await email.patch({ read: false })).status, 'PATCH read alone');
    await expectState(email, { folder: 'trash', read: false, starred: true }, 'after PATCH read');
    // D-20: 200 with the updated email.
    expectAt('D-20', response.status).toBe(200);
    expectAt('D-20', response.json<Detail>()).toMatchObject({
      id: email.id,
      folder: 'trash',
      read: true,
      starred: true,
    });
    // D-5: archive is a folder.
    const archived = await email.patch({ folder: 'archive' });
    expectAt('D-5', archived.status, 'PATCH folder archive').toBe(200);
    expectAt('D-5', await email.get()).toMatchObject({ folder: 'archive' });
    expectAt(
      'D-5',
      (await email.listed({ folder: 'archive' })).map((e) => e.id),
    ).toEqual([email.id]);
  },
  { needs: ['crafted-mail', 'provisioning', 'destructive'] },
);

rule(
  ['3.1-R2', 'D-5'],
  'keeps an email moved to trash recoverable, and refuses an unknown folder',
  async ({ api, target }) => {
    const email = await oneEmail(api, new ControlClient(api, target.control!));
    expectSuccess('3.1-R2', (await email.patch({ folder: 'trash' })).status, 'PATCH to trash');
    expectAt(
      '3.1-R2',
      (await email.listed({ folder: 'trash' })).map((e) => e.id),
    ).toEqual([email.id]);
    expectSuccess('3.1-R2', (await email.patch({ folder: 'inbox' })).status, 'PATCH to inbox');
    expectAt('3.1-R2', await email.get()).toMatchObject({ folder: 'inbox' });
    // The full list of folders is not shown (§3.1): refusing others is decided (D-5).
    const unknown = await email.patch({ folder: 'later' });
    expectAt('D-5', unknown.status).toBe(400);
    expectAt('D-5', unknown.json()).toMatchObject({ code: 'invalid_folder', field: 'folder' });
    expectAt('D-5', await email.get()).toMatchObject({ folder: 'inbox' });
  },
  { needs: ['crafted-mail', 'provisioning', 'destructive'] },
);

rule(
  ['D-20', 'D-31', 'D-28', 'D-12', '4-R1'],
  'refuses an empty PATCH, unknown fields, wrong types, malformed JSON and a non-JSON Content-Type, changing nothing',
  async ({ api, target }) => {
    const email = await oneEmail(api, new ControlClient(api, target.control!));
    const unchanged = { folder: 'inbox', read: false, starred: false };
    // Which of these is refused, and how, the document does not say: each is a decision.
    const cases: [
      string | object,
      Record<string, string> | undefined,
      string,
      number,
      string,
      string | undefined,
    ][] = [
      [{}, undefined, 'D-20', 400, 'missing_field', undefined],
      [{ read: true, colour: 'red' }, undefined, 'D-31', 400, 'unknown_field', 'colour'],
      [{ read: 'yes' }, undefined, 'D-12', 400, 'invalid_field', 'read'],
      [{ starred: 1 }, undefined, 'D-12', 400, 'invalid_field', 'starred'],
      [
        { read: true },
        { 'Content-Type': 'text/plain' },
        'D-28',
        415,
        'unsupported_media_type',
        undefined,
      ],
      [
        '{"read": tru',
        { 'Content-Type': 'application/json' },
        'D-12',
        400,
        'invalid_json',
        undefined,
      ],
    ];
    for (const [json, headers, decision, status, code, field] of cases) {
      const what = typeof json === 'string' ? json : JSON.stringify(json);
      const response =
        typeof json === 'string'
          ? await api.request({
              method: 'PATCH',
              path: `/emails/${email.id}`,
              body: json,
              ...(headers ? { headers } : {}),
              apiKey: email.apiKey,
            })
          : await email.patch(json, headers);
      expectAt(decision, response.status, what).toBe(status);
      expectAt(decision, response.json<{ code: string }>().code, what).toBe(code);
      if (field !== undefined)
        expectAt(decision, response.json<{ field?: string }>().field, what).toBe(field);
      expectAt(decision, await email.get(), `nothing changed by ${what}`).toMatchObject(unchanged);
    }
  },
  { needs: ['crafted-mail', 'provisioning', 'destructive'] },
);

rule(
  ['3.1-R5', '4.6-R1', '7-R3', 'D-12'],
  'deletes permanently: 204 with no body, then 404 email_not_found for read, update, delete and gone from lists',
  async ({ api, target }) => {
    const email = await oneEmail(api, new ControlClient(api, target.control!));
    const deleted = await api.request({
      method: 'DELETE',
      path: `/emails/${email.id}`,
      apiKey: email.apiKey,
    });
    expectAt('3.1-R5', deleted.status).toBe(204);
    expectAt('3.1-R5', deleted.bytes.length, 'bytes of the 204').toBe(0);
    const after: [string, number, string][] = [];
    for (const [method, json] of [
      ['GET', undefined],
      ['PATCH', { read: true }],
      ['DELETE', undefined],
    ] as const) {
      const response = await api.request({
        method,
        path: `/emails/${email.id}`,
        apiKey: email.apiKey,
        ...(json ? { json } : {}),
      });
      // Removed for good (§4.6): refused; the status and code are ours (D-12).
      expectRefusal('4.6-R1', response.status, `${method} after DELETE`);
      after.push([method, response.status, response.text]);
    }
    expectAt('4.6-R1', await email.listed(), 'listed after DELETE').toEqual([]);
    for (const [method, status, text] of after) {
      expectAt('D-12', status, method).toBe(404);
      expectAt('D-12', JSON.parse(text), method).toMatchObject({ code: 'email_not_found' });
    }
  },
  { needs: ['crafted-mail', 'provisioning', 'destructive'] },
);

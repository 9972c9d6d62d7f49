/**
 * §3.1, §4.4-§4.6: reading leaves the read flag alone; PATCH changes what list and detail
 * show; trash is recoverable; delete is permanent and answered 204 with no body.
 *
 * Every check works on mail it sends itself (box 0 to box 1), so it runs in an API world as in
 * the control world: the email it changes is the copy that arrived in box 1 (§4.3).
 */
import { expectAt } from '../src/contract/charge.ts';
import { rule, type CheckContext } from '../src/check-runner/check.ts';
import { expectRefusal, expectSuccess } from '../src/model/statuses.ts';
import {
  expectSuccess as expectDone,
  world,
  type World,
  expectError,
} from '../src/worlds/send-world.ts';

interface Detail {
  id: string;
  folder: string;
  read: boolean;
  starred: boolean;
  attachments: { id: string; name: string; size: number }[];
}

/**
 * Sends one email from box 0 to box 1 and returns the copy that arrived there, with helpers
 * bound to it; `rule` is charged when the send or the read it relies on fails.
 */
async function oneEmail(context: CheckContext, rule: string) {
  const w = await world(context, { rule });
  const [box0, box1] = w.box as [string, string];
  const sent = await w.send({ from: box0, to: box1, subject: w.subject('State'), text: 'Body' });
  expectDone(rule, sent, 'send the email to change');
  return bound(w, box1, (await w.delivered(box1)).id);
}

/** Helpers bound to one email of `mailbox`: its detail, its mailbox's list, a PATCH of it. */
function bound(w: World, mailbox: string, id: string) {
  const { api, apiKey } = w;
  const get = async () => (await w.get(id)) as unknown as Detail;
  // Every email of the mailbox, or of one folder; in an API world, only the check's own mail.
  const listed = async (folder?: string) =>
    (await w.listed(mailbox, folder)) as unknown as Detail[];
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
  async (context) => {
    const w = await world(context, { rule: '4.4-R1' });
    const [box0, box1] = w.box as [string, string];
    const file = await w.upload('notes.txt', Buffer.from('hello'), 'text/plain');
    const sent = await w.send({
      from: box0,
      to: box1,
      subject: w.subject('State'),
      text: 'Body',
      attachmentIds: [file.id],
    });
    expectDone('4.4-R1', sent, 'send the email to read');
    // Found by listing, so no GET of its detail comes before the ones judged.
    const arrived = await w.listed(box1);
    expectAt('4.4-R1', arrived, `${box1} has exactly one email`).toHaveLength(1);
    const email = bound(w, box1, arrived[0]!.id);
    // The document does not say received mail is unread: a target filing it read has it
    // marked unread first, so the GETs start from unread.
    if (arrived[0]!.read)
      expectSuccess('3.1-R3', (await email.patch({ read: false })).status, 'PATCH read false');
    for (let i = 0; i < 3; i += 1) {
      const detail = await email.get();
      expectAt('4.4-R2', detail.read, `read after ${i + 1} GET`).toBe(false);
      expectAt('4.4-R1', detail.attachments).toHaveLength(1);
      expectAt('4.4-R1', detail.attachments[0]).toMatchObject({ name: 'notes.txt', size: 5 });
    }
    expectAt('4.4-R2', (await email.listed())[0]?.read, 'read in the list').toBe(false);
  },
  { needs: ['mail', 'destructive'], concurrent: true },
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
  async (context) => {
    const email = await oneEmail(context, '4.5-R1');
    // Left where every listing shows it, for the API world's clean-up (archive may not be).
    context.cleanup(async () => void (await email.patch({ folder: 'inbox' })));
    // trash is one of the two folders §3.1 names; archive is ours (D-5), tried last.
    const response = await email.patch({ folder: 'trash', read: true, starred: true });
    expectSuccess('4.5-R1', response.status, 'PATCH folder, read and starred');
    await expectState(email, { folder: 'trash', read: true, starred: true }, 'after the PATCH');
    const inTrash = await email.listed('trash');
    expectAt(
      '3.1-R1',
      inTrash.map((e) => e.id),
      'listed in trash',
    ).toEqual([email.id]);
    expectAt('3.1-R3', inTrash[0]?.read, 'read in the list').toBe(true);
    expectAt('3.1-R4', inTrash[0]?.starred, 'starred in the list').toBe(true);
    expectAt('3.1-R1', await email.listed('inbox'), 'listed in inbox').toEqual([]);
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
      (await email.listed('archive')).map((e) => e.id),
    ).toEqual([email.id]);
  },
  { needs: ['mail', 'destructive'], concurrent: true },
);

rule(
  ['3.1-R2', 'D-5'],
  'keeps an email moved to trash recoverable, and refuses an unknown folder',
  async (context) => {
    const email = await oneEmail(context, '3.1-R2');
    expectSuccess('3.1-R2', (await email.patch({ folder: 'trash' })).status, 'PATCH to trash');
    expectAt(
      '3.1-R2',
      (await email.listed('trash')).map((e) => e.id),
    ).toEqual([email.id]);
    expectSuccess('3.1-R2', (await email.patch({ folder: 'inbox' })).status, 'PATCH to inbox');
    expectAt('3.1-R2', await email.get()).toMatchObject({ folder: 'inbox' });
    // The full list of folders is not shown (§3.1): refusing others is decided (D-5).
    const unknown = await email.patch({ folder: 'later' });
    expectError('D-5', unknown, 400, 'invalid_folder', 'folder');
    expectAt('D-5', await email.get()).toMatchObject({ folder: 'inbox' });
  },
  { needs: ['mail', 'destructive'], concurrent: true },
);

rule(
  ['3.1-R3', '3.1-R4', '3.1-R2'],
  'keeps the read and starred flags when a PATCH moves an email to trash and back without naming them',
  async (context) => {
    const email = await oneEmail(context, '3.1-R2');
    context.cleanup(async () => void (await email.patch({ folder: 'inbox' })));
    // Each attribute is moved by its own field (§3.1), and trash keeps the message as it was:
    // a move that leaves the flags out changes neither, set or clear.
    for (const flags of [
      { read: true, starred: true },
      { read: false, starred: false },
    ]) {
      const set = await email.patch(flags);
      expectSuccess('3.1-R3', set.status, `PATCH ${JSON.stringify(flags)}`);
      for (const folder of ['trash', 'inbox']) {
        const moved = await email.patch({ folder });
        expectSuccess('3.1-R1', moved.status, `PATCH {"folder":"${folder}"} alone`);
        const when = `after a move to ${folder} that leaves read ${flags.read} and starred ${flags.starred} out`;
        const detail = await email.get();
        expectAt('3.1-R3', detail.read, `read ${when}`).toBe(flags.read);
        expectAt('3.1-R4', detail.starred, `starred ${when}`).toBe(flags.starred);
        const listed = (await email.listed(folder)).find((e) => e.id === email.id);
        expectAt('3.1-R3', listed?.read, `read in the ${folder} list ${when}`).toBe(flags.read);
        expectAt('3.1-R4', listed?.starred, `starred in the ${folder} list ${when}`).toBe(
          flags.starred,
        );
      }
    }
  },
  { needs: ['mail', 'destructive'], concurrent: true },
);

rule(
  ['D-20', 'D-31', 'D-28', 'D-12', '4-R1'],
  'refuses an empty PATCH, unknown fields, wrong types, malformed JSON and a non-JSON Content-Type, changing nothing',
  async (context) => {
    const email = await oneEmail(context, '4-R1');
    const { api } = context;
    // As it arrived (an unread inbox email where received mail is filed as D-48 says).
    const { folder, read, starred } = await email.get();
    const unchanged = { folder, read, starred };
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
      expectError(decision, response, status, code, field, what);
      expectAt(decision, await email.get(), `nothing changed by ${what}`).toMatchObject(unchanged);
    }
  },
  { needs: ['mail', 'destructive'], concurrent: true },
);

rule(
  ['3.1-R5', '4.6-R1', '7-R3', 'D-12'],
  'deletes permanently: 204 with no body, then 404 email_not_found for read, update, delete and gone from lists',
  async (context) => {
    const { api } = context;
    const w = await world(context, { rule: '4.6-R1' });
    const [box0, box1] = w.box as [string, string];
    const sent = await w.send({ from: box0, to: box1, subject: w.subject('State'), text: 'Body' });
    expectDone('4.6-R1', sent, 'send the email to delete');
    // The sender's copy (§4.3): an API world awaits the copy in box 1 until it is there, so
    // deleting that one would hold the clean-up to --delivery-timeout.
    const mine = await w.listed(box0);
    expectAt('4.6-R1', mine, `${box0} has exactly one email`).toHaveLength(1);
    const email = bound(w, box0, mine[0]!.id);
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
  { needs: ['mail', 'destructive'], concurrent: true },
);

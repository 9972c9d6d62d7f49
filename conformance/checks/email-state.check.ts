/**
 * §3.1, §4.4-§4.6: reading leaves the read flag alone; PATCH changes what list and detail
 * show; trash is recoverable; delete is permanent and answered 204 with no body.
 */
import { expect } from 'vitest';
import { rule } from '../src/check.ts';
import type { ApiClient } from '../src/client.ts';
import { ControlClient, createTenant } from '../src/control-client.ts';

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
  const listed = async (query: Record<string, string> = {}) =>
    (await api.request({ path: '/emails', query: { mailbox, ...query }, apiKey })).json<{
      emails: Detail[];
    }>().emails;
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
      expect(detail.read).toBe(false);
      expect(detail.attachments).toHaveLength(1);
      expect(detail.attachments[0]).toMatchObject({ name: 'notes.txt', size: 5 });
    }
    expect((await email.listed())[0]?.read).toBe(false);
  },
  { needs: ['control-plane'] },
);

rule(
  ['3.1-R1', '3.1-R3', '3.1-R4', '4.5-R1', 'D-20'],
  'applies PATCH of folder, read and starred to detail and list, and answers with the updated email',
  async ({ api, target }) => {
    const email = await oneEmail(api, new ControlClient(api, target.control!));
    const response = await email.patch({ folder: 'archive', read: true, starred: true });
    expect(response.status).toBe(200);
    expect(response.json<Detail>()).toMatchObject({
      id: email.id,
      folder: 'archive',
      read: true,
      starred: true,
    });
    expect(await email.get()).toMatchObject({ folder: 'archive', read: true, starred: true });
    expect(
      (await email.listed({ folder: 'archive', read: 'true', starred: 'true' })).map((e) => e.id),
    ).toEqual([email.id]);
    expect(await email.listed({ folder: 'inbox' })).toEqual([]);
    await email.patch({ read: false });
    expect(await email.get()).toMatchObject({ folder: 'archive', read: false, starred: true });
  },
  { needs: ['control-plane', 'destructive'] },
);

rule(
  ['3.1-R2', 'D-5'],
  'keeps an email moved to trash recoverable, and refuses an unknown folder',
  async ({ api, target }) => {
    const email = await oneEmail(api, new ControlClient(api, target.control!));
    expect((await email.patch({ folder: 'trash' })).status).toBe(200);
    expect((await email.listed({ folder: 'trash' })).map((e) => e.id)).toEqual([email.id]);
    expect((await email.patch({ folder: 'inbox' })).status).toBe(200);
    expect(await email.get()).toMatchObject({ folder: 'inbox' });
    const unknown = await email.patch({ folder: 'later' });
    expect(unknown.status).toBe(400);
    expect(unknown.json()).toMatchObject({ code: 'invalid_folder', field: 'folder' });
    expect(await email.get()).toMatchObject({ folder: 'inbox' });
  },
  { needs: ['control-plane', 'destructive'] },
);

rule(
  ['D-20', 'D-31', 'D-28', '4-R1'],
  'refuses an empty PATCH, unknown fields, wrong types, malformed JSON and a non-JSON Content-Type, changing nothing',
  async ({ api, target }) => {
    const email = await oneEmail(api, new ControlClient(api, target.control!));
    const cases: [
      unknown,
      Record<string, string> | undefined,
      number,
      string,
      string | undefined,
    ][] = [
      [{}, undefined, 400, 'missing_field', undefined],
      [{ read: true, colour: 'red' }, undefined, 400, 'unknown_field', 'colour'],
      [{ read: 'yes' }, undefined, 400, 'invalid_field', 'read'],
      [{ starred: 1 }, undefined, 400, 'invalid_field', 'starred'],
      [{ read: true }, { 'Content-Type': 'text/plain' }, 415, 'unsupported_media_type', undefined],
    ];
    for (const [json, headers, status, code, field] of cases) {
      const response = await email.patch(json, headers);
      expect(response.status, JSON.stringify(json)).toBe(status);
      expect(response.json<{ code: string; field?: string }>().code).toBe(code);
      if (field !== undefined) expect(response.json<{ field?: string }>().field).toBe(field);
    }
    const malformed = await api.request({
      method: 'PATCH',
      path: `/emails/${email.id}`,
      body: '{"read": tru',
      headers: { 'Content-Type': 'application/json' },
      apiKey: email.apiKey,
    });
    expect(malformed.status).toBe(400);
    expect(malformed.json()).toMatchObject({ code: 'invalid_json' });
    expect(await email.get()).toMatchObject({ folder: 'inbox', read: false, starred: false });
  },
  { needs: ['control-plane', 'destructive'] },
);

rule(
  ['3.1-R5', '4.6-R1', '7-R3'],
  'deletes permanently: 204 with no body, then 404 email_not_found for read, update, delete and gone from lists',
  async ({ api, target }) => {
    const email = await oneEmail(api, new ControlClient(api, target.control!));
    const deleted = await api.request({
      method: 'DELETE',
      path: `/emails/${email.id}`,
      apiKey: email.apiKey,
    });
    expect(deleted.status).toBe(204);
    expect(deleted.bytes.length).toBe(0);
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
      expect(response.status, method).toBe(404);
      expect(response.json()).toMatchObject({ code: 'email_not_found' });
    }
    expect(await email.listed()).toEqual([]);
  },
  { needs: ['control-plane', 'destructive'] },
);

/**
 * D-3, D-4, D-6, D-44: the record shapes mailtwin decided where §2.3, §4.2, §4.4 and §4.9 leave
 * them "not shown". Every response is also held to them by the contract (spec/openapi.yaml);
 * this check names them, so a deployment that chose other names warns on exactly these rows.
 */
import { expect } from 'vitest';
import { expectAt } from '../src/charge.ts';
import { rule } from '../src/check.ts';
import { ControlClient, createTenant } from '../src/control-client.ts';

const LIST_FIELDS = [
  'id',
  'mailbox',
  'folder',
  'read',
  'starred',
  'from',
  'to',
  'cc',
  'subject',
  'snippet',
  'attachmentCount',
  'receivedAt',
];
const DETAIL_FIELDS = [
  ...LIST_FIELDS,
  'bcc',
  'replyTo',
  'sentAt',
  'messageId',
  'inReplyTo',
  'references',
  'text',
  'html',
  'preheader',
  'attachments',
];

rule(
  ['D-3', 'D-4', 'D-6'],
  'names the list page, its emails and the email detail as decided',
  async ({ api, target }) => {
    const control = new ControlClient(api, target.control!);
    const tenant = await createTenant(control);
    const mailbox = tenant.mailboxes[0]!;
    const apiKey = tenant.key.secret;
    const { id } = await control.inject({
      mailbox,
      from: 'Bob Stone <bob@partner.test>',
      to: [mailbox],
      subject: 'Shapes',
      text: 'Body',
      attachments: [
        {
          name: 'notes.txt',
          contentType: 'text/plain',
          contentBase64: Buffer.from('hello').toString('base64'),
        },
      ],
    });
    const page = (await api.request({ path: '/emails', query: { mailbox }, apiKey })).json<
      Record<string, unknown>
    >();
    expectAt('D-6', Object.keys(page).sort()).toEqual(['emails', 'nextCursor']);
    const listed = (page.emails as Record<string, unknown>[] | undefined)?.[0] ?? {};
    expectAt('D-3', Object.keys(listed).sort()).toEqual([...LIST_FIELDS].sort());
    expectAt('D-3', listed.from).toEqual({ address: 'bob@partner.test', name: 'Bob Stone' });
    const detail = (await api.request({ path: `/emails/${id}`, apiKey })).json<
      Record<string, unknown>
    >();
    expectAt('D-4', Object.keys(detail).sort()).toEqual([...DETAIL_FIELDS].sort());
    expectAt('D-4', detail.attachments).toEqual([
      { id: expect.any(String), name: 'notes.txt', contentType: 'text/plain', size: 5 },
    ]);
  },
  { needs: ['crafted-mail', 'provisioning'] },
);

rule(
  ['D-44'],
  'answers an upload 201 with the media type of its file part',
  async ({ api, target }) => {
    const tenant = await createTenant(new ControlClient(api, target.control!));
    const apiKey = tenant.key.secret;
    const typed = new FormData();
    typed.append('file', new Blob(['a,b\n'], { type: 'text/csv' }), 'rows.csv');
    const answer = await api.request({ method: 'POST', path: '/attachments', body: typed, apiKey });
    expectAt('D-44', answer.status).toBe(201);
    expectAt('D-44', answer.json<{ contentType: string }>().contentType).toBe('text/csv');
  },
  { needs: ['provisioning', 'destructive'] },
);

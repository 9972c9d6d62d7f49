/**
 * D-3, D-4, D-6, D-44: the record shapes mailtwin decided where §2.3, §4.2, §4.4 and §4.9 leave
 * them "not shown". Every response is also held to them by the contract (spec/openapi.yaml);
 * this check names them, so a deployment that chose other names warns on exactly these rows.
 *
 * The email read is one the check sends from the world's first mailbox to its second
 * (send-world.ts), so both checks run on any target given mailboxes and --destructive.
 */
import { expect } from 'vitest';
import { expectAt } from '../src/contract/charge.ts';
import { MissingCapability, rule, type CheckContext } from '../src/check-runner/check.ts';
import { ControlClient, createTenant } from '../src/client/control-client.ts';
import { expectSuccess, world } from '../src/worlds/send-world.ts';

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

/**
 * The key a check that only uploads works with: in an API world the key given (an upload
 * needs no mailbox), in a control world a fresh owner's.
 */
async function uploaderKey({ api, target }: CheckContext): Promise<string> {
  if (target.control !== undefined)
    return (await createTenant(new ControlClient(api, target.control))).key.secret;
  if (target.apiKey === undefined) throw new MissingCapability('needs an API key (give --api-key)');
  return target.apiKey;
}

rule(
  ['D-3', 'D-4', 'D-6'],
  'names the list page, its emails and the email detail as decided',
  async (context) => {
    const w = await world(context, { rule: 'D-4' });
    const { api, apiKey } = w;
    const [sender, mailbox] = w.box as [string, string];
    const notes = await w.upload('notes.txt', Buffer.from('hello'), 'text/plain');
    const sent = await w.send({
      from: `Bob Stone <${sender}>`,
      to: mailbox,
      subject: w.subject('Shapes'),
      text: 'Body',
      attachmentIds: [notes.id],
    });
    expectSuccess('D-4', sent, 'POST /emails/send');
    // The received copy, however long it took to arrive (w.delivered awaits it).
    const { id } = await w.delivered(mailbox);
    const page = (
      await api.request({ path: '/emails', query: { mailbox, limit: 100 }, apiKey })
    ).json<Record<string, unknown>>();
    // Every field the target's binding names is there; one it adds is not checked (D-40).
    const named = (fields: readonly string[]) =>
      fields.filter((field) => api.dialect.hasEmailField(field));
    expectAt('D-6', Object.keys(page)).toEqual(expect.arrayContaining(['emails', 'nextCursor']));
    const emails = (page.emails as Record<string, unknown>[] | undefined) ?? [];
    const listed = emails.find((email) => email.id === id) ?? {};
    expectAt('D-3', Object.keys(listed)).toEqual(expect.arrayContaining(named(LIST_FIELDS)));
    expectAt('D-3', listed.from).toEqual({ address: sender, name: 'Bob Stone' });
    const detail = (await api.request({ path: `/emails/${id}`, apiKey })).json<
      Record<string, unknown>
    >();
    expectAt('D-4', Object.keys(detail)).toEqual(expect.arrayContaining(named(DETAIL_FIELDS)));
    expectAt('D-4', detail.attachments).toEqual([
      { id: expect.any(String), name: 'notes.txt', contentType: 'text/plain', size: 5 },
    ]);
  },
  { needs: ['mail', 'destructive'], concurrent: true },
);

rule(
  ['D-44'],
  'answers an upload 201 with the media type of its file part',
  async (context) => {
    const { api } = context;
    const apiKey = await uploaderKey(context);
    const typed = new FormData();
    typed.append('file', new Blob(['a,b\n'], { type: 'text/csv' }), 'rows.csv');
    const answer = await api.request({ method: 'POST', path: '/attachments', body: typed, apiKey });
    expectAt('D-44', answer.status).toBe(201);
    expectAt('D-44', answer.json<{ contentType: string }>().contentType).toBe('text/csv');
  },
  { needs: ['destructive'], concurrent: true },
);

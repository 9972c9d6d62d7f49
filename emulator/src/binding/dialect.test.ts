import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { packagePath } from '../package-root.ts';
import { bootDemo } from '../test-helpers/binding-app.ts';
import type { OutgoingDelivery } from '../webhook-delivery/connector.ts';
import { signatureFor } from '../webhook-delivery/signature.ts';
import { DEFAULT_BINDING_PATH, loadBindingFile } from './load.ts';

const variant = (name: string) =>
  loadBindingFile(join(packagePath('tests/variants/bindings'), `${name}.yaml`));
const API = '/openapi/v1';
const EMAIL = '01JD8Z3Q4T5V6W7X8Y9Z0A1B2C'; // billing@acme.test's rent invoice (fixtures/demo.json)
type Json = Record<string, any>;

async function json(response: Response): Promise<Json> {
  return (await response.json()) as Json;
}

/** Requests across every operation and a spread of errors, in order (later ones see earlier writes). */
const SCRIPT: [string, string, unknown?][] = [
  ['GET', '/mailboxes'],
  ['GET', '/emails?mailbox=billing@acme.test&limit=2'],
  ['GET', '/emails?mailbox=billing@acme.test&folder=inbox&read=false'],
  ['GET', '/emails?mailbox=billing@acme.test&folder=nope'],
  ['GET', '/emails?mailbox=nobody@acme.test'],
  ['GET', `/emails/${EMAIL}`],
  ['PATCH', `/emails/${EMAIL}`, { folder: 'archive', read: true }],
  ['PATCH', `/emails/${EMAIL}`, { flagged: true }],
  ['PATCH', `/emails/${EMAIL}`, { folder: 'elsewhere' }],
  [
    'POST',
    '/emails/send',
    { from: 'billing@acme.test', to: 'x@example.test', subject: 'Hi', text: 'a', preheader: 'p' },
  ],
  ['POST', '/emails/send', { from: 'billing@acme.test', to: 'x@example.test', subject: 'Hi' }],
  ['POST', `/emails/${EMAIL}/reply`, { text: 'Thanks' }],
  ['POST', `/emails/${EMAIL}/forward`, { to: 'maria.lopez@acme.test' }],
  ['POST', `/emails/${EMAIL}/forward`, {}],
  ['GET', '/emails/nope'],
  ['DELETE', `/emails/${EMAIL}`],
  ['GET', '/attachments/nope'],
];

async function transcript(app: Awaited<ReturnType<typeof bootDemo>>): Promise<string[]> {
  const lines: string[] = [];
  for (const [method, path, body] of SCRIPT) {
    const res = await app.call(method, `${API}${path}`, body);
    const headers = [...res.headers].map(([k, v]) => `${k}: ${v}`).join('\n');
    lines.push(`${method} ${path}\n${res.status}\n${headers}\n${await res.text()}`);
  }
  return lines;
}

describe('the default binding', () => {
  it('is spoken byte for byte as without --binding: nothing is mounted', async () => {
    const plain = await bootDemo(null);
    const bound = await bootDemo(loadBindingFile(DEFAULT_BINDING_PATH));
    expect(bound.services.dialect).toBeNull();
    const a = await transcript(plain);
    const b = await transcript(bound);
    expect(b).toEqual(a);
    expect(a.filter((line) => / 20[01]\n|\n20[014]\n/.test(line)).length).toBeGreaterThan(5);
  });
});

describe('a renaming binding at the edge', () => {
  it('lists under the bound array, nextCursor unchanged, and serves repeated pages from the cache in the same dialect', async () => {
    const app = await bootDemo(variant('list-array'));
    const url = `${API}/emails?mailbox=billing@acme.test&limit=1`;
    const first = await app.call('GET', url);
    const text = await first.text();
    const again = await (await app.call('GET', url)).text();
    expect(again).toBe(text);
    const page = JSON.parse(text) as Json;
    expect(Object.keys(page)).toEqual(['data', 'nextCursor']);
    expect(typeof page.nextCursor).toBe('string');
    const next = await json(
      await app.call('GET', `${url}&cursor=${encodeURIComponent(page.nextCursor)}`),
    );
    expect(next.data[0].id).not.toBe(page.data[0].id);
  });

  it("takes and answers the PATCH fields by their bound names, and refuses the emulator's own names as unknown (D-31)", async () => {
    const app = await bootDemo(variant('patch-fields'));
    const updated = await app.call('PATCH', `${API}/emails/${EMAIL}`, {
      isRead: true,
      flagged: true,
      parentFolder: 'archive',
    });
    expect(updated.status).toBe(200);
    const record = await json(updated);
    expect(record).toMatchObject({ isRead: true, flagged: true, parentFolder: 'archive' });
    expect(record).not.toHaveProperty('read');
    const refused = await app.call('PATCH', `${API}/emails/${EMAIL}`, {
      isRead: false,
      read: false,
    });
    expect(refused.status).toBe(400);
    expect(await json(refused)).toMatchObject({
      code: 'unknown_field',
      field: 'read',
      message: 'Unknown field "read".',
    });
    const wrongType = await json(
      await app.call('PATCH', `${API}/emails/${EMAIL}`, { isRead: 'yes' }),
    );
    expect(wrongType).toMatchObject({ code: 'invalid_field', field: 'isRead' });
    expect(wrongType.message).toMatch(/^isRead /);
    const list = await json(
      await app.call('GET', `${API}/emails?mailbox=billing@acme.test&read=true&folder=archive`),
    );
    expect(list.emails.map((e: Json) => e.id)).toContain(EMAIL);
  });

  it('reads the forward recipient from its bound path and names it in refusals', async () => {
    const app = await bootDemo(variant('forward-recipient'));
    const ok = await app.call('POST', `${API}/emails/${EMAIL}/forward`, {
      toRecipients: [{ emailAddress: { address: 'maria.lopez@acme.test' } }],
    });
    expect(ok.status).toBe(201);
    expect((await json(ok)).to).toEqual([{ address: 'maria.lopez@acme.test', name: null }]);
    const missing = await json(await app.call('POST', `${API}/emails/${EMAIL}/forward`, {}));
    expect(missing).toMatchObject({ code: 'missing_field', field: 'toRecipients' });
    const own = await json(
      await app.call('POST', `${API}/emails/${EMAIL}/forward`, { to: 'maria.lopez@acme.test' }),
    );
    expect(own).toMatchObject({ code: 'unknown_field', field: 'to' });
    const shape = await json(
      await app.call('POST', `${API}/emails/${EMAIL}/forward`, {
        toRecipients: 'maria.lopez@acme.test',
      }),
    );
    expect(shape).toMatchObject({ code: 'invalid_field', field: 'toRecipients' });
  });

  it('answers send, reply and forward 202 with only {id, status: "queued"}, the email readable at that id', async () => {
    const app = await bootDemo(variant('send-202-reference'));
    const sent = await app.call('POST', `${API}/emails/send`, {
      from: 'billing@acme.test',
      to: 'x@example.test',
      subject: 'Hi',
      text: 'a',
    });
    expect(sent.status).toBe(202);
    const answer = await json(sent);
    expect(Object.keys(answer).sort()).toEqual(['id', 'status']);
    expect(answer.status).toBe('queued');
    const read = await json(await app.call('GET', `${API}/emails/${answer.id}`));
    expect(read).toMatchObject({ id: answer.id, subject: 'Hi', folder: 'sent' });
    const reply = await app.call('POST', `${API}/emails/${EMAIL}/reply`, { text: 'x' });
    expect([reply.status, Object.keys(await json(reply)).sort()]).toEqual([202, ['id', 'status']]);
  });

  it('answers each error at its bound status and code, the body still {code, message, field?}', async () => {
    const app = await bootDemo(variant('error-table'));
    const notFound = await app.call('GET', `${API}/emails/nope`);
    expect([notFound.status, await json(notFound)]).toEqual([
      404,
      { code: 'not_found', message: 'No email nope is available to this key.', field: 'emailId' },
    ]);
    const bcc = Array.from({ length: 51 }, (_, i) => `r${i}@example.test`);
    const tooMany = await app.call('POST', `${API}/emails/send`, {
      from: 'billing@acme.test',
      to: 'x@example.test',
      subject: 'Hi',
      text: 'a',
      bcc,
    });
    expect(tooMany.status).toBe(422);
    expect((await json(tooMany)).code).toBe('recipients_limit');
    const unknown = await app.call('PATCH', `${API}/emails/${EMAIL}`, { colour: 'red' });
    expect([unknown.status, (await json(unknown)).code]).toEqual([422, 'unknown_parameter']);
    // A code the binding does not list keeps the emulator's own status and code.
    const method = await app.call('PUT', `${API}/emails/${EMAIL}`);
    expect([method.status, (await json(method)).code]).toEqual([405, 'method_not_allowed']);
  });

  it('speaks Graph folder names in records, filters and PATCH, and refuses a stored name the deployment lacks', async () => {
    const app = await bootDemo(variant('graph-folders'));
    const sent = await json(
      await app.call('POST', `${API}/emails/send`, {
        from: 'billing@acme.test',
        to: 'x@example.test',
        subject: 'Hi',
        text: 'a',
      }),
    );
    expect(sent.folder).toBe('sentitems');
    const list = await json(
      await app.call('GET', `${API}/emails?mailbox=billing@acme.test&folder=sentitems`),
    );
    expect(list.emails.map((e: Json) => e.id)).toContain(sent.id);
    expect(list.emails.every((e: Json) => e.folder === 'sentitems')).toBe(true);
    const moved = await json(
      await app.call('PATCH', `${API}/emails/${EMAIL}`, { folder: 'junkemail' }),
    );
    expect(moved.folder).toBe('junkemail');
    const refused = await app.call('GET', `${API}/emails?mailbox=billing@acme.test&folder=sent`);
    expect(refused.status).toBe(400);
    expect(await json(refused)).toEqual({
      code: 'invalid_folder',
      message: 'Unknown folder "sent"; use one of inbox, sentitems, archive, junkemail, trash.',
      field: 'folder',
    });
  });

  it('lists mailboxes as {email, name} under items', async () => {
    const app = await bootDemo(variant('mailbox-record'));
    const answer = await json(await app.call('GET', `${API}/mailboxes`));
    expect(answer.items[0]).toEqual({ email: 'billing@acme.test', name: 'Acme Billing' });
  });

  it('places the sender at a Graph-like path in list items and detail', async () => {
    const app = await bootDemo(variant('sender'));
    const detail = await json(await app.call('GET', `${API}/emails/${EMAIL}`));
    expect(detail.from).toEqual({
      emailAddress: { address: 'accounts@harbor-offices.test', name: 'Harbor Offices Accounts' },
    });
    expect(detail.toRecipients).toEqual([
      { emailAddress: { address: 'billing@acme.test', name: 'Acme Billing' } },
    ]);
    expect(detail).not.toHaveProperty('to');
    const list = await json(
      await app.call('GET', `${API}/emails?mailbox=billing@acme.test&limit=1`),
    );
    expect(list.emails[0].from.emailAddress.address).toBeTypeOf('string');
  });

  it('signs email.received over the renamed data: the signature covers the bytes sent', async () => {
    const sent: OutgoingDelivery[] = [];
    const app = await bootDemo(variant('webhook-data'), async (delivery) => {
      sent.push(delivery);
      return { status: 204 };
    });
    const { services } = app;
    const { secret } = services.webhooks.create({
      ownerId: 'own_acme',
      url: 'https://hooks.example.test/in',
      scope: 'follow-owner',
    });
    services.inbound.injectJson({
      mailbox: 'billing@acme.test',
      from: 'Carol <carol@partner.test>',
      to: ['billing@acme.test'],
      cc: ['team@acme-labs.test'],
      subject: 'Invoice 77',
      text: 'Paid.',
    });
    await services.dispatcher.runDue();
    const delivery = sent.find((d) => d.url.hostname === 'hooks.example.test');
    expect(delivery).toBeDefined();
    const body = delivery!.body.toString('utf8');
    const timestamp = delivery!.headers['X-Service-Timestamp'] as string;
    expect(delivery!.headers['X-Service-Signature']).toBe(signatureFor(secret, timestamp, body));
    const data = (JSON.parse(body) as Json).data;
    expect(data).toMatchObject({
      mailbox: 'billing@acme.test',
      sender: { email: 'carol@partner.test', name: 'Carol' },
      recipients: [{ email: 'billing@acme.test', name: null }],
      copies: ['team@acme-labs.test'],
      subject: 'Invoice 77',
    });
    expect(typeof data.id).toBe('string');
    expect(data).not.toHaveProperty('from');
    expect(data).not.toHaveProperty('cc');
  });
});

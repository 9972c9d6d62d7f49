/**
 * What the checks of sending, templates and reply/forward share: a fresh tenant with request
 * helpers bound to its key, and the assertions every write check makes on the answers
 * (201 with the sent copy, an error with its code and field, nothing stored or sent).
 */
import { randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import type { CheckContext } from './check.ts';
import type { ApiResponse } from './client.ts';
import { ControlClient, createTenant, type InboundEmail } from './control-client.ts';

/** An address as the API returns it: the address and the display name, if any. */
export interface Address {
  address: string;
  name: string | null;
}

/** The fields of an email as GET /emails/{id} and the 201 of send, reply and forward return it. */
export interface EmailDetail {
  id: string;
  mailbox: string;
  folder: string;
  read: boolean;
  from: Address;
  to: Address[];
  cc: Address[];
  bcc: Address[];
  replyTo: Address[];
  subject: string;
  messageId: string;
  inReplyTo: string | null;
  references: string[];
  text: string | null;
  html: string | null;
  preheader: string | null;
  attachments: { id: string; name: string; contentType: string; size: number }[];
}

/** The control plane's inbound email with the threading headers spec/control.yaml accepts. */
export type Inbound = InboundEmail & { messageId?: string; references?: string[] };

/** Eight random hex digits, to make addresses and Message-IDs unique to one check. */
export const randomTag = () => randomBytes(4).toString('hex');

/** An address outside the target: mail to it goes to the outbox, never to a real domain. */
export const external = (tag: string) => `${tag}-${randomTag()}@external.conformance.test`;

/** The bare addresses of a list of addresses, in order. */
export const addresses = (list: Address[]) => list.map((a) => a.address);

/** The folders a mailbox has, for looking through all of them. */
const FOLDERS = ['inbox', 'sent', 'archive', 'spam', 'trash'];

/** How {@link world} builds its tenant. */
export interface WorldOptions {
  /** How many mailboxes the tenant gets (default 2). */
  boxes?: number;
}

/**
 * A fresh tenant, made through the control plane, with `boxes` mailboxes and helpers bound to
 * its key: send, reply and forward requests (answers returned as they are, for the check to
 * judge), reads that must succeed (`get`, `delivered`, `download`), listings, the tenant's
 * outbox entries, inbound mail and uploads.
 */
export async function world({ api, target }: CheckContext, { boxes = 2 }: WorldOptions = {}) {
  const control = new ControlClient(api, target.control!);
  const tenant = await createTenant(control, boxes);
  const apiKey = tenant.key.secret;
  const box = tenant.mailboxes;
  /** POST /emails/send, with extra headers if given (to try another Content-Type). */
  const send = (json: unknown, headers?: Record<string, string>) =>
    api.request({
      method: 'POST',
      path: '/emails/send',
      json,
      apiKey,
      ...(headers ? { headers } : {}),
    });
  const post = (what: 'reply' | 'forward') => (id: string, json: unknown) =>
    api.request({
      method: 'POST',
      path: `/emails/${encodeURIComponent(id)}/${what}`,
      json,
      apiKey,
    });
  /** GET /emails/{id}, which must answer 200. */
  const get = async (id: string) => {
    const response = await api.request({ path: `/emails/${encodeURIComponent(id)}`, apiKey });
    expect(response.status, `GET /emails/${id}`).toBe(200);
    return response.json<EmailDetail>();
  };
  /** Up to 100 emails of one folder of one mailbox. */
  const listed = async (mailbox: string, folder: string) =>
    (await api.request({ path: '/emails', query: { mailbox, folder, limit: 100 }, apiKey })).json<{
      emails: EmailDetail[];
    }>().emails;
  /** The one copy in a mailbox's inbox, read in full. */
  const delivered = async (mailbox: string) => {
    const inbox = await listed(mailbox, 'inbox');
    expect(inbox, `${mailbox} has exactly one email in inbox`).toHaveLength(1);
    return get(inbox[0]!.id);
  };
  /** Outbox entries of this tenant's mail (the outbox is shared by every check). */
  const outbox = async () =>
    (await control.outbox()).filter((entry) => entry.from.endsWith(`@${tenant.domain}`));
  /** Every email in every folder of every mailbox of the tenant, plus its outbox entries. */
  const everything = async () => {
    const emails: EmailDetail[] = [];
    for (const mailbox of box) {
      for (const folder of FOLDERS) emails.push(...(await listed(mailbox, folder)));
    }
    return { emails, outbox: await outbox() };
  };
  /** An inbound email put into a mailbox through the control plane; its id. */
  const inject = async (email: Inbound) => (await control.inject(email)).id;
  /** POST /attachments of one file, which must answer 201. */
  const upload = async (name: string, bytes: Uint8Array, type: string) => {
    const form = new FormData();
    form.append('file', new Blob([bytes], { type }), name);
    const response = await api.request({
      method: 'POST',
      path: '/attachments',
      body: form,
      apiKey,
    });
    expect(response.status, `upload ${name}: ${response.text.slice(0, 200)}`).toBe(201);
    return response.json<{ id: string; name: string; size: number }>();
  };
  /** The bytes of an attachment, whose GET must answer 200. */
  const download = async (id: string) => {
    const response = await api.request({
      path: `/attachments/${encodeURIComponent(id)}`,
      apiKey,
    });
    expect(response.status, `GET /attachments/${id}`).toBe(200);
    return Buffer.from(response.bytes);
  };
  return {
    api,
    control,
    tenant,
    apiKey,
    box,
    send,
    reply: post('reply'),
    forward: post('forward'),
    get,
    listed,
    delivered,
    outbox,
    everything,
    inject,
    upload,
    download,
  };
}

/** What {@link world} returns. */
export type World = Awaited<ReturnType<typeof world>>;

/**
 * Asserts an error answer: its status, its `code` and, when `field` is given, the field it
 * names; `label` says which case of a check the answer belongs to.
 */
export function expectError(
  response: ApiResponse,
  status: number,
  code: string,
  field?: string,
  label = '',
): void {
  const what = label === '' ? '' : `${label}: `;
  expect(response.status, `${what}status (body ${response.text.slice(0, 300)})`).toBe(status);
  const body = response.json<{ code?: string; field?: string }>();
  expect(body.code, `${what}error code`).toBe(code);
  if (field !== undefined) expect(body.field, `${what}error field`).toBe(field);
}

/** Asserts a 201 answer and returns its body, the sent copy (D-21). */
export function expectCreated(response: ApiResponse, label = ''): EmailDetail {
  expect(
    response.status,
    `${label === '' ? '' : `${label}: `}status (body ${response.text.slice(0, 300)})`,
  ).toBe(201);
  return response.json<EmailDetail>();
}

/**
 * D-21: the 201 has a Location naming the sent copy, and a GET of that Location answers the
 * 201 body.
 */
export async function expectLocation(w: World, response: ApiResponse, sent: EmailDetail) {
  const location = response.headers.get('location');
  expect(location, 'a Location header').not.toBeNull();
  const url = new URL(location!, `${w.api.baseUrl}/`);
  const basePath = new URL(w.api.baseUrl).pathname;
  expect(url.pathname, 'Location names the sent copy').toBe(
    `${basePath}/emails/${encodeURIComponent(sent.id)}`,
  );
  const again = await w.api.request({
    path: url.pathname.slice(basePath.length),
    apiKey: w.apiKey,
  });
  expect(again.status, `GET ${url.pathname}`).toBe(200);
  expect(again.json(), 'GET of the Location equals the 201 body').toEqual(sent);
}

/**
 * Asserts that nothing is stored in any folder of the tenant's mailboxes and nothing was sent
 * from them, after requests that had to be refused; `why` says after what.
 */
export async function expectNothingStored(w: World, why: string) {
  const { emails, outbox } = await w.everything();
  expect(
    emails.map((e) => `${e.mailbox}/${e.folder}: ${e.subject}`),
    `${why}: no email may be stored in any mailbox`,
  ).toEqual([]);
  expect(
    outbox.map((e) => `${e.recipients.join(',')}: ${e.subject}`),
    `${why}: nothing may be sent`,
  ).toEqual([]);
}

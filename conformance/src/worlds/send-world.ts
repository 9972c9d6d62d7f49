/**
 * What the checks of sending, templates and reply/forward share: a fresh tenant with request
 * helpers bound to its key, and the assertions every write check makes on the answers
 * (a success with the sent copy, an error with its code and field, nothing stored or sent).
 *
 * Every assertion is charged to one rule (GUIDE "One assertion, one rule"), and the helpers
 * assume only what the service document says: a mailbox's mail is listed without a folder
 * filter (folders beyond inbox and trash are the target's choice, D-5); a success is any 2xx
 * (201 is D-21, asserted only where a check names it); a refusal is a 4xx whose exact status,
 * code and field are the decided part, charged to the D-rule that chose them.
 */
import { randomBytes } from 'node:crypto';
import { expectAt } from '../contract/charge.ts';
import { MissingCapability, type CheckContext } from './context.ts';
import type { ApiResponse } from '../client/client.ts';
import { ControlClient, createTenant, type InboundEmail } from '../client/control-client.ts';
import { MailWatch } from './mail-watch.ts';
import { tagged } from './claims.ts';

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
  receivedAt: string;
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

/** How {@link world} builds its tenant. */
export interface WorldOptions {
  /** How many mailboxes the tenant gets (default 2). */
  boxes?: number;
  /**
   * The documented rule the check's premises serve: a read of an email the check made, an
   * upload or a download it relies on is charged to it when it fails.
   */
  rule: string;
}

/**
 * A fresh tenant, made through the control plane, with `boxes` mailboxes and helpers bound to
 * its key: send, reply and forward requests (answers returned as they are, for the check to
 * judge), reads that must succeed (`get`, `delivered`, `download`), listings, the tenant's
 * outbox entries, inbound mail and uploads.
 */
export async function world(context: CheckContext, { boxes = 2, rule }: WorldOptions) {
  const { api, target } = context;
  const control = target.control === undefined ? undefined : new ControlClient(api, target.control);
  const tenant =
    control === undefined ? apiTenant(context, boxes) : await createTenant(control, boxes);
  const apiKey = tenant.key.secret;
  const box = tenant.mailboxes;
  // An API world's mailboxes are the target's own: the watch tells this check's mail apart,
  // waits for it to arrive, and deletes it when the check ends (mail-watch.ts).
  const watch =
    control === undefined
      ? new MailWatch(api, apiKey, box, target.deliveryTimeoutMs, true, context.tag)
      : undefined;
  if (watch !== undefined) {
    await watch.start();
    context.cleanup(() => watch.removeAll());
  }
  const recorded = async (request: Promise<ApiResponse>) => {
    const response = await request;
    watch?.recordWrite(response);
    return response;
  };
  /** POST /emails/send, with extra headers if given (to try another Content-Type). */
  const send = (json: unknown, headers?: Record<string, string>) =>
    recorded(
      api.request({
        method: 'POST',
        path: '/emails/send',
        json,
        apiKey,
        ...(headers ? { headers } : {}),
      }),
    );
  const post = (what: 'reply' | 'forward') => (id: string, json: unknown) =>
    recorded(
      api.request({
        method: 'POST',
        path: `/emails/${encodeURIComponent(id)}/${what}`,
        json,
        apiKey,
      }),
    );
  /** What only a control plane gives, asked of an API world: the check is skipped, saying so. */
  const controlOnly = (what: string): ControlClient => {
    if (control === undefined)
      throw new MissingCapability(`needs ${what}, which only a control plane gives`);
    return control;
  };
  /** GET /emails/{id}, which must answer 200 (§4.4); a failure is charged to `at`. */
  const get = async (id: string, at = rule) => {
    const response = await api.request({ path: `/emails/${encodeURIComponent(id)}`, apiKey });
    expectAt(at, response.status, `GET /emails/${id}`).toBe(200);
    return response.json<EmailDetail>();
  };
  /**
   * Up to 100 emails of one mailbox: of one folder when `folder` is given, else of every
   * folder (the folder parameter of §4.2 is an optional filter).
   */
  const listed = async (mailbox: string, folder?: string): Promise<EmailDetail[]> =>
    watch !== undefined
      ? ((await watch.newEmails(mailbox, folder)) as unknown as EmailDetail[])
      : (
          await api.request({
            path: '/emails',
            query: { mailbox, ...(folder === undefined ? {} : { folder }), limit: 100 },
            apiKey,
          })
        ).json<{
          emails: EmailDetail[];
        }>().emails;
  /**
   * The one email in a mailbox that only received it, read in full: whatever folder the
   * target files received mail in (inbox is D-48's choice, asserted by the checks naming it).
   */
  const delivered = async (mailbox: string, at = rule) => {
    // The check's own sent copies are not mail the mailbox received (one mailbox may be both).
    const all = (await listed(mailbox)).filter((e) => !(watch?.isCreated(e.id) ?? false));
    expectAt(at, all, `${mailbox} has exactly one email`).toHaveLength(1);
    return get(all[0]!.id, at);
  };
  /** Outbox entries of this tenant's mail (the outbox is shared by every check). */
  const outbox = async () =>
    (await controlOnly("the emulator's outbox").outbox()).filter((entry) =>
      entry.from.endsWith(`@${tenant.domain}`),
    );
  /**
   * Every email of every mailbox of the tenant, plus its outbox entries: listed without a
   * folder filter, and in inbox and trash (the two folders §3.1 names) in case the target
   * leaves a folder out of the unfiltered list.
   */
  const everything = async () => {
    const byId = new Map<string, EmailDetail>();
    for (const mailbox of box) {
      for (const folder of [undefined, 'inbox', 'trash'])
        for (const email of await listed(mailbox, folder)) byId.set(email.id, email);
    }
    // Through the API alone, mail sent to outside addresses cannot be seen.
    return { emails: [...byId.values()], outbox: control === undefined ? [] : await outbox() };
  };
  /** An inbound email put into a mailbox through the control plane; its id. */
  const inject = async (email: Inbound) =>
    (await controlOnly('mail with chosen senders, times or headers').inject(email)).id;
  /** POST /attachments of one file, which must succeed (§4.9; 201 is D-44's choice). */
  const upload = async (name: string, bytes: Uint8Array, type: string, at = rule) => {
    const form = new FormData();
    form.append('file', new Blob([bytes], { type }), name);
    const response = await api.request({
      method: 'POST',
      path: '/attachments',
      body: form,
      apiKey,
    });
    expectSuccess(at, response, `upload ${name}`);
    return response.json<{ id: string; name: string; size: number }>();
  };
  /** The bytes of an attachment, whose GET must answer 200 (§4.10). */
  const download = async (id: string, at = rule) => {
    const response = await api.request({
      path: `/attachments/${encodeURIComponent(id)}`,
      apiKey,
    });
    expectAt(at, response.status, `GET /attachments/${id}`).toBe(200);
    return Buffer.from(response.bytes);
  };
  /**
   * A subject for mail the check sends: `text` as it is, or tagged with the check's own tag
   * when it runs side by side with others in an API world (worlds/claims.ts).
   */
  const subject = (text: string) => (context.tag === undefined ? text : tagged(text, context.tag));
  return {
    rule,
    api,
    subject,
    /** The control plane; in an API world, asking for it skips the check (MissingCapability). */
    get control() {
      return controlOnly('the control plane');
    },
    /** An API world: no control plane; the check's mail is sent, awaited and cleaned up. */
    apiWorld: watch !== undefined,
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

/**
 * An API world's tenant: the key and mailboxes the suite was given. A check sending between
 * `boxes` mailboxes is skipped, saying so, when fewer were given.
 */
function apiTenant({ target }: CheckContext, boxes: number) {
  const mailboxes = [...(target.mailboxes ?? [])];
  if (target.apiKey === undefined || mailboxes.length < boxes)
    throw new MissingCapability(
      `needs ${boxes} mailboxes of one owner (give --mailbox ${boxes} times; ${mailboxes.length} given)`,
    );
  const domain = mailboxes[0]!.split('@')[1]!;
  return {
    ownerId: undefined,
    domain,
    mailboxes: mailboxes.slice(0, boxes),
    key: { id: 'given', secret: target.apiKey, scope: 'follow-owner' as const },
  };
}

/** What {@link world} returns. */
export type World = Awaited<ReturnType<typeof world>>;

/**
 * The rules an error answer is charged to: `refused` requires the refusal (a 4xx, or a 5xx
 * where the status asked for is one), `decided` chose its exact status, `code` and `field`.
 * One id charges both (a refusal only a decision requires).
 */
export type ErrorRules = string | readonly [refused: string, decided: string];

/**
 * Asserts an error answer: that the request was refused (charged to the documented rule that
 * requires it), then its exact status, `code` and, when `field` is given, the field it names
 * (charged to the decision that chose them); `label` says which case of a check it is.
 */
export function expectError(
  rules: ErrorRules,
  response: ApiResponse,
  status: number,
  code: string,
  field?: string,
  label = '',
): void {
  const [refused, decided] = typeof rules === 'string' ? [rules, rules] : rules;
  const what = label === '' ? '' : `${label}: `;
  const body = `(body ${response.text.slice(0, 300)})`;
  const [low, high] = status >= 500 ? [500, 599] : [400, 499];
  expectAt(
    refused,
    response.status >= low && response.status <= high,
    `${what}refused with a ${low / 100}xx status, got ${response.status} ${body}`,
  ).toBe(true);
  // The target's own answer for the condition (its binding) is the decided status and code,
  // even where it answers several conditions alike.
  const bound = response.answersError?.(code) === true;
  if (!bound) expectAt(decided, response.status, `${what}status ${body}`).toBe(status);
  const answer = response.json<{ code?: string; field?: string }>();
  if (!bound) expectAt(decided, answer.code, `${what}error code`).toBe(code);
  if (field !== undefined) expectAt(decided, answer.field, `${what}error field`).toBe(field);
}

/** Asserts a 2xx answer, charged to `rule`: the request was carried out. */
export function expectSuccess(rule: string, response: ApiResponse, label = ''): void {
  const what = label === '' ? '' : `${label}: `;
  expectAt(
    rule,
    response.status >= 200 && response.status <= 299,
    `${what}a 2xx answer, got ${response.status} (body ${response.text.slice(0, 300)})`,
  ).toBe(true);
}

/**
 * Asserts that a send, reply or forward was carried out (a 2xx, charged to `rule`) and that
 * its answer is the sent copy, an email with its id and mailbox (D-21: the document shows no
 * response shape, so a check that reads the answer names D-21); returns the sent copy. The
 * exact status 201 is D-21 too, asserted with {@link expectCreatedStatus} where a check names it.
 */
export function expectCreated(rule: string, response: ApiResponse, label = ''): EmailDetail {
  expectSuccess(rule, response, label);
  const sent = response.json<EmailDetail>();
  const what = label === '' ? '' : `${label}: `;
  expectAt(
    'D-21',
    typeof sent?.id === 'string' && typeof sent?.mailbox === 'string',
    `${what}the answer is the sent copy, an email (D-21): ${response.text.slice(0, 300)}`,
  ).toBe(true);
  return sent;
}

/** D-21: send, reply and forward answer 201 Created. */
export function expectCreatedStatus(response: ApiResponse, label = ''): void {
  expectAt('D-21', response.status, `${label === '' ? '' : `${label}: `}201 Created`).toBe(201);
}

/**
 * D-21: the answer has a Location naming the sent copy, and a GET of that Location answers
 * the same body.
 */
export async function expectLocation(w: World, response: ApiResponse, sent: EmailDetail) {
  const location = response.headers.get('location');
  expectAt('D-21', location, 'a Location header').not.toBeNull();
  const url = new URL(location!, `${w.api.baseUrl}/`);
  const basePath = new URL(w.api.baseUrl).pathname;
  expectAt('D-21', url.pathname, 'Location names the sent copy').toBe(
    `${basePath}/emails/${encodeURIComponent(sent.id)}`,
  );
  const again = await w.api.request({
    path: url.pathname.slice(basePath.length),
    apiKey: w.apiKey,
  });
  expectAt('D-21', again.status, `GET ${url.pathname}`).toBe(200);
  expectAt('D-21', again.json(), 'GET of the Location equals the answer').toEqual(sent);
}

/**
 * Asserts that nothing is stored in any mailbox of the tenant and nothing was sent from them,
 * after requests that had to be refused (charged to `rule`, which requires the refusal to
 * come before sending); `why` says after what.
 */
export async function expectNothingStored(w: World, rule: string, why: string) {
  const { emails, outbox } = await w.everything();
  expectAt(
    rule,
    emails.map((e) => `${e.mailbox}/${e.folder}: ${e.subject}`),
    `${why}: no email may be stored in any mailbox`,
  ).toEqual([]);
  expectAt(
    rule,
    outbox.map((e) => `${e.recipients.join(',')}: ${e.subject}`),
    `${why}: nothing may be sent`,
  ).toEqual([]);
}

/**
 * A valid request for every operation that takes a bounded or a string value, against the demo
 * world, and a way to put one value in one place of it. The limit and echo tests change exactly
 * one value of such a request, so whatever the answer says is about that value.
 */
import type { Json, Operation } from './spec-walk.ts';
import { EXTERNAL, pathOf, SENDER, type Call, type World } from './demo-world.ts';

/** Where a value goes: a parameter, or a path into the JSON body (numbers index lists). */
export interface Slot {
  operation: Operation;
  in: 'path' | 'query' | 'body';
  at: (string | number)[];
}

interface Base {
  path?: Record<string, string>;
  query?: Record<string, string>;
  body?: Json;
  /** A raw message (`POST /inbound` with `message/rfc822`). */
  raw?: string;
  contentType?: string;
}

const RAW_MESSAGE =
  'From: bob@partner.test\r\nTo: hello@acme.test\r\nSubject: Limits\r\n\r\nHello.\r\n';
const owner = { ownerId: 'own_acme' };

/** The scope fields a key or webhook needs when the value under test is its domain or list. */
function scopeFor(slot: Slot, world: World): Json {
  if (slot.at[0] === 'domain') return { scope: 'one-domain', domain: world.longDomain };
  if (slot.at[0] === 'mailboxes') return { scope: 'selected-mailbox', mailboxes: [SENDER] };
  return { scope: 'follow-owner' };
}

/**
 * A request each operation accepts as it is, by operationId. A new operation with a bounded or
 * string value needs a line here; the tests say so by name.
 */
const BASES: Record<string, (world: World, slot: Slot, tag: string) => Base> = {
  // The API (spec/openapi.yaml), as the demo key of Acme.
  listEmails: () => ({ query: { mailbox: SENDER } }),
  sendEmail: () => ({ body: { from: SENDER, to: EXTERNAL, subject: 'Limits', text: 'Hello.' } }),
  getEmail: (w) => ({ path: { emailId: w.emailId } }),
  updateEmail: (w) => ({ path: { emailId: w.emailId }, body: { read: true } }),
  deleteEmail: () => ({ path: { emailId: 'no-such-email' } }),
  replyToEmail: (w) => ({ path: { emailId: w.emailId }, body: { text: 'Thanks.' } }),
  forwardEmail: (w) => ({ path: { emailId: w.emailId }, body: { to: EXTERNAL } }),
  downloadAttachment: (w) => ({ path: { attachmentId: w.uploadIds[0] as string } }),
  // The control plane (spec/control.yaml), with the control token.
  createOwner: (_w, _s, tag) => ({ body: { name: 'Limits Ltd', id: `own_${tag}` } }),
  getOwner: () => ({ path: owner }),
  disableOwner: () => ({ path: { ownerId: 'own_nobody' } }),
  enableOwner: () => ({ path: owner }),
  listGrants: () => ({ path: owner }),
  grantMailbox: () => ({ path: { ...owner, address: SENDER } }),
  revokeMailbox: () => ({ path: { ...owner, address: 'nobody@acme.test' } }),
  createDomain: (_w, _s, tag) => ({ body: { name: `${tag}.limits.test` } }),
  createMailbox: (_w, _s, tag) => ({ body: { address: `${tag}@limits.test` } }),
  createKey: (w, slot) => ({ body: { ...owner, name: 'Limits key', ...scopeFor(slot, w) } }),
  disableKey: () => ({ path: { keyId: 'key_nobody' } }),
  enableKey: () => ({ path: { keyId: 'key_acme_demo' } }),
  createSuppression: (_w, _s, tag) => ({ body: { address: `${tag}@limits.test` } }),
  deleteSuppression: () => ({ path: { address: 'nobody@limits.test' } }),
  injectInboundEmail: (_w, slot) =>
    slot.in === 'query'
      ? { query: { mailbox: SENDER }, raw: RAW_MESSAGE, contentType: 'message/rfc822' }
      : { body: { mailbox: SENDER, from: 'bob@partner.test', subject: 'Limits', text: 'Hello.' } },
  listOutbox: () => ({ query: {} }),
  createTenant: () => ({ body: {} }),
  getTenant: () => ({ path: { tenantId: 'tnt_nobody' } }),
  deleteTenant: () => ({ path: { tenantId: 'tnt_nobody' } }),
  // No such mailbox or tenant: answered 404 at once, never a wait.
  waitForEmails: () => ({ query: { mailbox: 'nobody@acme.test', timeoutMs: '0' } }),
  waitForOutbox: () => ({ query: { tenant: 'tnt_nobody', timeoutMs: '0' } }),
  getOutboxEntry: () => ({ path: { outboxId: 'out_nobody' } }),
  getOutboxEml: () => ({ path: { outboxId: 'out_nobody' } }),
  armFault: () => ({ body: { mode: 'error', operations: ['forward'], count: 1 } }),
  armChaos: () => ({ body: { rules: [] } }),
  createWebhook: (w, slot) => ({
    body: {
      ...owner,
      url: 'https://hooks.example.com/mail',
      ...scopeFor(slot, w),
      ...(slot.at[0] === 'domain' ? { domain: 'acme.test' } : {}),
    },
  }),
  getWebhook: () => ({ path: { webhookId: 'wh_demo_sink' } }),
  deleteWebhook: () => ({ path: { webhookId: 'wh_nobody' } }),
  enableWebhook: () => ({ path: { webhookId: 'wh_demo_sink' } }),
  testWebhook: () => ({ path: { webhookId: 'wh_nobody' } }),
  listDeliveries: () => ({ path: { webhookId: 'wh_demo_sink' } }),
  moveClock: () => ({ body: {} }),
  loadFixture: () => ({ body: {} }),
  setRateLimit: () => ({ body: { rateLimit: null } }),
};

/** After a request that changes the world for the requests that follow, put it back. */
export const CLEAN_UP: Record<string, Call> = {
  armFault: { base: '/_mailtwin/v1', method: 'delete', path: '/faults' },
  armChaos: { base: '/_mailtwin/v1', method: 'delete', path: '/chaos' },
};

export function hasBase(operationId: string): boolean {
  return BASES[operationId] !== undefined;
}

/** The base request of `slot`'s operation with `value` put in its place. */
export function callWith(world: World, slot: Slot, value: unknown, tag: string): Call {
  const { operation } = slot;
  const make = BASES[operation.operationId];
  if (make === undefined) {
    throw new Error(
      `no base request for ${operation.operationId}: add one to tests/unit/limits/requests.ts`,
    );
  }
  const base = make(world, slot, tag);
  const pathValues = { ...base.path };
  const query = { ...base.query };
  let body = base.body === undefined ? undefined : structuredClone(base.body);
  const name = String(slot.at[0]);
  if (slot.in === 'path') pathValues[name] = String(value);
  else if (slot.in === 'query') query[name] = String(value);
  else body = setAt(body ?? {}, slot.at, value);
  return {
    base: operation.spec.basePath as Call['base'],
    method: operation.method,
    path: pathOf(operation.template, pathValues),
    query,
    ...(base.raw === undefined
      ? { body }
      : { raw: base.raw, contentType: base.contentType ?? 'text/plain' }),
  };
}

/** A valid item of a list of objects, for a value put inside one (`attachments[0].name`). */
const ITEMS: Record<string, Json | ((at: (string | number)[]) => Json)> = {
  attachments: { name: 'a.txt', contentType: 'text/plain', contentBase64: 'YQ==' },
  // A chaos rule of the surface the value belongs to, which never fires.
  rules: (at) =>
    at.includes('webhookId')
      ? { surface: 'webhook', probability: 0 }
      : at.includes('reply')
        ? { surface: 'smtp', probability: 0, reply: { code: 451 } }
        : { surface: 'http', probability: 0, error: { status: 503 } },
};

/** A copy of `body` with `value` at `at`; a number makes a one-item list (`cc[0]`). */
function setAt(body: Json, at: (string | number)[], value: unknown): Json {
  const copy = structuredClone(body);
  let node: Record<string | number, unknown> = copy;
  at.forEach((part, i) => {
    if (i === at.length - 1) {
      node[part] = value;
      return;
    }
    const next = at[i + 1];
    const item = ITEMS[String(part)];
    if (typeof next === 'number')
      node[part] = [structuredClone(typeof item === 'function' ? item(at) : (item ?? {}))];
    else node[part] ??= {};
    node = node[part] as Record<string | number, unknown>;
  });
  return copy;
}

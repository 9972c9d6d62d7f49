import { Hono, type Context } from 'hono';
import { ApiError, quoteForMessage } from '../errors.ts';
import { emailDetail } from '../domain/email-view.ts';
import { encodeCursor, parseListQuery } from '../domain/list-query.ts';
import type { Email, Folder } from '../domain/types.ts';
import type { ApiEnv } from '../http/auth.ts';
import { readJsonObject, SMALL_BODY_MAX_BYTES } from '../http/json-body.ts';
import type { EmulatorEvents } from '../events.ts';
import { answerReady } from '../http/response-cache.ts';
import { queriesOf } from '../http/request-url.ts';
import type { RequestValidator } from '../http/request-validator.ts';
import type { JsonPage } from '../store/email-store.ts';
import type { Store } from '../store/store.ts';

/** An email the key may touch, or 404 exactly like a missing one (D-26). */
export function emailInScope(c: Context<ApiEnv>, store: Store): Email {
  return inScope(c, (id) => store.emails.get(id));
}

/**
 * The id and mailbox of an email the key may touch, or 404 exactly like `emailInScope`, reading
 * neither bodies nor attachments: a PATCH or a DELETE needs no more to decide.
 */
function emailRefInScope(c: Context<ApiEnv>, store: Store): { id: string; mailbox: string } {
  return inScope(c, (id) => store.emails.headline(id));
}

function inScope<T extends { mailbox: string }>(
  c: Context<ApiEnv>,
  read: (id: string) => T | undefined,
): T {
  const id = c.req.param('emailId') ?? '';
  const email = id.length > 128 ? undefined : read(id);
  if (email === undefined || !c.get('access').mailboxes.has(email.mailbox)) {
    throw new ApiError(
      'email_not_found',
      `No email ${quoteForMessage(id)} is available to this key.`,
      'emailId',
    );
  }
  return email;
}

const EMAILS_OPEN = Buffer.from('{"emails":[');

/**
 * The list answer's bytes (§4.2, D-16): `{"emails":[` the page's summaries `],"nextCursor":…}`,
 * allocated once at its length and written once. The summaries come as one JSON string
 * (store/summary-json.ts, EmailStore.listJson): copied, not rebuilt, and not first made into
 * bytes of their own and concatenated again (issue 31 item 1: two copies of every answer).
 */
export function listAnswer(page: JsonPage, nextCursor: string | null): Buffer<ArrayBuffer> {
  const rest = `],${JSON.stringify({ nextCursor }).slice(1)}`;
  const restAt = EMAILS_OPEN.length + page.bytes;
  const body = Buffer.allocUnsafe(restAt + Buffer.byteLength(rest));
  EMAILS_OPEN.copy(body, 0);
  body.write(page.json, EMAILS_OPEN.length);
  body.write(rest, restAt);
  return body;
}

/** §4.2, §4.4-§4.6: list and search, read, update and delete email. */
export function emailRoutes(
  store: Store,
  validator: RequestValidator,
  events: EmulatorEvents,
): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();

  app.get('/', (c) => {
    const query = parseListQuery(queriesOf(c));
    if (!c.get('access').mailboxes.has(query.filter.mailbox)) {
      throw new ApiError(
        'mailbox_not_found',
        `No mailbox ${quoteForMessage(query.filter.mailbox)} is available to this key.`,
        'mailbox',
      );
    }
    const page = store.emails.listJson(query.filter, query.limit, query.after);
    const last = page.last;
    const nextCursor = page.more && last ? encodeCursor(last, query.fingerprint) : null;
    return answerReady(c, listAnswer(page, nextCursor), page.version);
  });

  app.get('/:emailId', (c) => c.json(emailDetail(emailInScope(c, store))));

  app.patch('/:emailId', async (c) => {
    // The whole email is read once, with the change, for the answer.
    const email = emailRefInScope(c, store);
    const body = await readJsonObject(c, SMALL_BODY_MAX_BYTES);
    validator.check('UpdateEmailRequest', body);
    const changes = body as { folder?: Folder; read?: boolean; starred?: boolean };
    const changed = store.emails.change(email.id, changes);
    events.publish({ type: 'email.updated', emailId: email.id, mailbox: email.mailbox });
    return c.json(emailDetail(changed as Email));
  });

  app.delete('/:emailId', (c) => {
    const email = emailRefInScope(c, store);
    store.emails.delete(email.id);
    return c.body(null, 204);
  });

  return app;
}

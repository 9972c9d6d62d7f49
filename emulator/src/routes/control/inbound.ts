import { Hono, type Context } from 'hono';
import type { Services } from '../../deps.ts';
import { ApiError } from '../../errors.ts';
import { emailDetail } from '../../domain/email-view.ts';
import { parseBooleanParam } from '../../domain/query-params.ts';
import type { Email, Folder } from '../../domain/types.ts';
import { isJsonMediaType } from '../../http/json-body.ts';
import type { InboundEmail, Placement } from '../../services/inbound-service.ts';
import { nextTurn } from '../../services/next-turn.ts';
import { readControlBody } from './body.ts';

/**
 * 201 with the email's detail. A raw message's detail carries its whole text (megabytes): it is
 * encoded to bytes once and written as those bytes, where `c.json` measured a string answer
 * (Buffer.byteLength) and the socket encoded it again, about 80 ms of the event loop for a
 * 4.5 MB text (as routes/sending.ts answers a send). The bytes are those `c.json` wrote.
 */
function answer(c: Context, email: Email): Response {
  const body = Buffer.from(JSON.stringify(emailDetail(email)), 'utf8');
  return c.body(body, 201, { 'Content-Type': 'application/json' });
}

const RAW_QUERY = ['mailbox', 'folder', 'read', 'starred', 'receivedAt'];

function isRawMessage(contentType: string | undefined): boolean {
  return /^message\/rfc822\s*(;.*)?$/i.test(contentType?.trim() ?? '');
}

/** The first query parameter not in `allowed`, in code-unit order (as D-31 for body fields). */
function refuseUnknownQuery(c: Context, allowed: string[], why: string): void {
  const unknown = Object.keys(c.req.queries())
    .filter((name) => !allowed.includes(name))
    .sort()[0];
  if (unknown !== undefined) throw new ApiError('unknown_field', why, unknown);
}

/** Where a raw message lands, from the query: `mailbox` required, the rest as the JSON form. */
function placementFromQuery(c: Context): Placement {
  refuseUnknownQuery(c, RAW_QUERY, `Query parameters of a raw message: ${RAW_QUERY.join(', ')}.`);
  const mailbox = c.req.query('mailbox');
  if (mailbox === undefined || mailbox === '') {
    throw new ApiError(
      'missing_field',
      'Give the mailbox of a raw message as ?mailbox=.',
      'mailbox',
    );
  }
  const flag = (name: 'read' | 'starred') => {
    const raw = c.req.query(name);
    return raw === undefined ? undefined : parseBooleanParam(name, raw);
  };
  return {
    mailbox,
    folder: c.req.query('folder') as Folder | undefined,
    read: flag('read'),
    starred: flag('starred'),
    receivedAt: c.req.query('receivedAt'),
  };
}

/**
 * New email reaching a mailbox (§6.1): `/inbound`, as JSON fields or as a raw RFC 822 message.
 * Either way the answer is the email detail exactly as the API renders it (D-4).
 */
export function controlInboundRoutes({ inbound }: Services): Hono {
  const app = new Hono();

  app.post('/', async (c) => {
    const contentType = c.req.header('content-type');
    if (isRawMessage(contentType)) {
      const placement = placementFromQuery(c);
      const raw = new Uint8Array(await c.req.arrayBuffer());
      const { detail } = await inbound.receiveRaw(raw, placement);
      // Stored (with its webhook deliveries) in one turn; answered in the next (issue 27 item 1),
      // with the detail's bytes its webhooks were given (or made now, if none heard of it).
      await nextTurn();
      return c.body(detail(), 201, { 'Content-Type': 'application/json' });
    }
    if (!isJsonMediaType(contentType)) {
      throw new ApiError(
        'unsupported_media_type',
        'Send the email as application/json or the raw message as message/rfc822.',
      );
    }
    refuseUnknownQuery(c, [], 'Query parameters apply only to a raw message (message/rfc822).');
    const email = await readControlBody<InboundEmail>(c, 'InboundEmailRequest');
    return answer(c, inbound.injectJson(email));
  });

  return app;
}

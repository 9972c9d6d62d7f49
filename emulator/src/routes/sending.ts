import { Hono, type Context } from 'hono';
import { emailDetail } from '../domain/email-view.ts';
import type { Email } from '../domain/types.ts';
import type { ApiEnv } from '../http/auth.ts';
import type { SendRequests, SendSchema } from '../http/send-request.ts';
import type { SendService } from '../services/send-service.ts';
import type { Store } from '../store/store.ts';
import { emailInScope } from './emails.ts';

/**
 * D-21: 201, the sent copy as detail, and where to read it again. The detail carries the whole
 * body (up to 5 MiB): it is encoded to bytes once here and written as those bytes, where a
 * string answer was measured (Buffer.byteLength) and encoded again as it was written, about
 * 120 ms of the event loop for a 4.9 MB text (issue 27 item 1).
 */
function created(c: Context<ApiEnv>, sent: Email): Response {
  const base = new URL(c.req.url);
  const location = `${base.origin}/openapi/v1/emails/${encodeURIComponent(sent.id)}`;
  const body = Buffer.from(JSON.stringify(emailDetail(sent)), 'utf8');
  return c.body(body, 201, { 'Content-Type': 'application/json', Location: location });
}

/**
 * §4.3, §4.7, §4.8: send, reply and forward. Not idempotent: every call makes new mail. Each
 * body is checked against its schema here, at the edge, before SendService sees it.
 */
export function sendingRoutes(
  store: Store,
  sender: SendService,
  requests: SendRequests,
): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  const origin = (c: Context) => new URL(c.req.url).origin;
  // A large body is parsed and validated on a render thread (issue 27 item 1).
  const read = (c: Context, schema: SendSchema) => requests.read(c, schema);

  app.post('/send', async (c) => {
    const body = await read(c, 'SendEmailRequest');
    return created(c, await sender.send(c.get('access'), body, origin(c)));
  });

  app.post('/:emailId/reply', async (c) => {
    const original = emailInScope(c, store);
    const body = await read(c, 'ReplyRequest');
    return created(c, await sender.reply(c.get('access'), original, body, origin(c)));
  });

  app.post('/:emailId/forward', async (c) => {
    const original = emailInScope(c, store);
    const body = await read(c, 'ForwardRequest');
    return created(c, await sender.forward(c.get('access'), original, body, origin(c)));
  });

  return app;
}

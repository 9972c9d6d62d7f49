import { Hono } from 'hono';
import type { Services } from '../../deps.ts';
import { encodeCursor, parseListQuery } from '../../domain/list-query.ts';
import type { TenantService } from '../../services/tenant-service.ts';
import { parseWaitTimeout, waitFor } from '../../services/waits.ts';
import { listAnswer } from '../emails.ts';
import { outboxView } from './outbox.ts';
import { parseOutboxQuery } from './outbox-query.ts';

/** The query without `timeoutMs`, which is the wait's own. */
function split(params: Record<string, string[]>): [Record<string, string[]>, number] {
  const { timeoutMs, ...rest } = params;
  if (timeoutMs !== undefined && timeoutMs.length > 1) return [params, parseWaitTimeout('x')]; // refused as invalid_field timeoutMs
  return [rest, parseWaitTimeout(timeoutMs?.[0])];
}

/**
 * Long polls (issue 30 item 2, D-71). `GET /wait/emails` takes every parameter of `GET /emails`
 * (§4.2) and answers that list's first page as soon as it has an email; `GET /wait/outbox`
 * takes the outbox's filters and answers the matching captured messages as soon as there is
 * one. Both wake on the emulator's event bus; past `timeoutMs` they answer 408 `wait_timeout`.
 */
export function controlWaitRoutes({ deps, directory }: Services, tenants: TenantService): Hono {
  const app = new Hono();
  const { store } = deps;

  app.get('/emails', async (c) => {
    const [params, timeoutMs] = split(c.req.queries());
    const query = parseListQuery(params);
    directory.mailbox(query.filter.mailbox); // 404 mailbox_not_found for no such mailbox
    const page = await waitFor(
      deps.events,
      () => {
        const found = store.emails.listJson(query.filter, query.limit, query.after);
        return found.last !== undefined ? found : undefined;
      },
      (event) =>
        (event.type === 'email.stored' || event.type === 'email.updated') &&
        event.mailbox === query.filter.mailbox,
      timeoutMs,
      c.req.raw.signal,
    );
    const body = listAnswer(
      page,
      page.more && page.last ? encodeCursor(page.last, query.fingerprint) : null,
    );
    return c.body(new Uint8Array(body), 200, { 'Content-Type': 'application/json' });
  });

  app.get('/outbox', async (c) => {
    const [params, timeoutMs] = split(c.req.queries());
    const { filter } = parseOutboxQuery(params, tenants, false);
    const entries = await waitFor(
      deps.events,
      () => {
        const found = store.outbox.find(filter, 100).entries;
        return found.length > 0 ? found : undefined;
      },
      // Captured messages are written with the sender's copy, in its transaction.
      (event) => event.type === 'email.stored' && event.folder === 'sent',
      timeoutMs,
      c.req.raw.signal,
    );
    return c.json(entries.map(outboxView));
  });

  return app;
}

import { Hono } from 'hono';
import type { Services } from '../../deps.ts';
import { ApiError, quoteForMessage } from '../../errors.ts';
import type { OutboxEntry } from '../../store/outbox-store.ts';
import type { TenantService } from '../../services/tenant-service.ts';
import { encodeOutboxCursor, parseOutboxQuery } from './outbox-query.ts';

/** Field by field as spec/control.yaml's OutboxEntry lists them (never the raw bytes). */
export const outboxView = (e: OutboxEntry) => ({
  id: e.id,
  sentEmailId: e.sentEmailId,
  from: e.from,
  recipients: e.recipients,
  subject: e.subject,
  messageId: e.messageId,
  size: e.size,
  createdAt: e.createdAt,
});

/**
 * The outbox: `/outbox`. Mail to addresses that are not mailboxes of this emulator is captured
 * here instead of leaving the machine (§4.3), so a client developer can see exactly what would
 * have been sent, down to the bytes of the message.
 */
export function controlOutboxRoutes({ deps }: Services, tenants: TenantService): Hono {
  const app = new Hono();
  const found = (id: string) => {
    const captured = deps.store.outbox.get(id);
    if (captured === undefined) {
      throw new ApiError(
        'not_found',
        `No captured message ${quoteForMessage(id)} in the outbox.`,
        'outboxId',
      );
    }
    return captured;
  };

  // D-71: filters, and a page with a cursor in a `Link: <…>; rel="next"` header when `limit`
  // or `cursor` is given; the body stays the bare array it always was.
  app.get('/', (c) => {
    const query = parseOutboxQuery(c.req.queries(), tenants, true);
    const page = deps.store.outbox.find(query.filter, query.limit, query.afterSeq);
    const headers: Record<string, string> = {};
    if (page.more && page.last !== undefined) {
      const next = new URL(c.req.url);
      next.searchParams.set('cursor', encodeOutboxCursor(page.last, query.fingerprint));
      headers.Link = `<${next.pathname}${next.search}>; rel="next"`;
    }
    return c.json(page.entries.map(outboxView), 200, headers);
  });

  app.delete('/', (c) => {
    deps.store.outbox.clear();
    return c.body(null, 204);
  });

  app.get('/:outboxId', (c) => c.json(outboxView(found(c.req.param('outboxId')).entry)));

  app.get('/:outboxId/eml', (c) => {
    const { entry, raw } = found(c.req.param('outboxId'));
    return c.body(new Uint8Array(raw), 200, {
      'Content-Type': 'message/rfc822',
      'Content-Disposition': `attachment; filename="${entry.id}.eml"`,
    });
  });

  return app;
}

import { Hono } from 'hono';
import type { Services } from '../../app.ts';
import { ApiError, quoteForMessage } from '../../errors.ts';
import type { OutboxEntry } from '../../store/outbox-store.ts';

/** Field by field as spec/control.yaml's OutboxEntry lists them (never the raw bytes). */
const outboxView = (e: OutboxEntry) => ({
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
export function controlOutboxRoutes({ deps }: Services): Hono {
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

  app.get('/', (c) => c.json(deps.store.outbox.list().map(outboxView)));

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

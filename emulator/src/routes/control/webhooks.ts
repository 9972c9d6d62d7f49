import { Hono } from 'hono';
import type { Services } from '../../deps.ts';
import type { Webhook } from '../../store/webhook-store.ts';
import type { NewWebhook } from '../../services/webhook-service.ts';
import { readControlBody } from './body.ts';

const view = (w: Webhook) => ({
  id: w.id,
  ownerId: w.ownerId,
  url: w.url,
  scope: w.scope,
  domain: w.domain,
  mailboxes: w.mailboxes,
  status: w.status,
  consecutiveFailures: w.consecutiveFailures,
  createdAt: w.createdAt,
});

/** §2.5, §3.2, §6.1, §6.4: webhooks as the dashboard manages them. */
export function controlWebhookRoutes({ webhooks }: Services): Hono {
  const app = new Hono();
  app.get('/', (c) => c.json(webhooks.list().map(view)));
  app.post('/', async (c) => {
    const { webhook, secret } = webhooks.create(
      await readControlBody<NewWebhook>(c, 'CreateWebhookRequest'),
    );
    return c.json({ ...view(webhook), secret }, 201);
  });
  app.get('/:webhookId', (c) => c.json(view(webhooks.get(c.req.param('webhookId')))));
  app.delete('/:webhookId', (c) => {
    webhooks.delete(c.req.param('webhookId'));
    return c.body(null, 204);
  });
  app.post('/:webhookId/enable', (c) => c.json(view(webhooks.enable(c.req.param('webhookId')))));
  app.post('/:webhookId/test', async (c) => c.json(await webhooks.test(c.req.param('webhookId'))));
  app.get('/:webhookId/deliveries', (c) =>
    c.json(
      webhooks.deliveries(c.req.param('webhookId')).map((d) => ({
        id: d.id,
        event: d.event,
        emailId: d.emailId,
        status: d.status,
        attempts: d.attemptLog,
        nextAttemptAt: d.nextAttemptAt,
        createdAt: d.createdAt,
      })),
    ),
  );
  return app;
}

/** The demo sink's log (`GET /sink`), and emptying it. */
export function controlSinkRoutes({ sink }: Services): Hono {
  const app = new Hono();
  app.get('/', (c) => c.json(sink.list()));
  app.delete('/', (c) => {
    sink.clear();
    return c.body(null, 204);
  });
  return app;
}

import { Hono } from 'hono';
import type { Services } from '../../deps.ts';
import { readControlBody } from './body.ts';
import { mailboxView, suppressionView } from './views.ts';

/** Domains: `/domains`. A mailbox's domain is also created with the mailbox. */
export function controlDomainRoutes({ directory }: Services): Hono {
  const app = new Hono();

  app.get('/', (c) => c.json(directory.domains().map((name) => ({ name }))));

  app.post('/', async (c) => {
    const { name } = await readControlBody<{ name: string }>(c, 'CreateDomainRequest');
    return c.json({ name: directory.createDomain(name) }, 201);
  });

  return app;
}

/** Every mailbox of the emulator (§2.2), whoever may touch it: `/mailboxes`. */
export function controlMailboxRoutes({ directory }: Services): Hono {
  const app = new Hono();

  app.get('/', (c) => c.json(directory.mailboxes().map(mailboxView)));

  app.post('/', async (c) => {
    const body = await readControlBody<{ address: string; displayName?: string | null }>(
      c,
      'CreateMailboxRequest',
    );
    return c.json(mailboxView(directory.createMailbox(body)), 201);
  });

  return app;
}

/** Suppressed addresses (§4.3 rule 4): `/suppressions`. */
export function controlSuppressionRoutes({ directory }: Services): Hono {
  const app = new Hono();

  app.get('/', (c) => c.json(directory.suppressions().map(suppressionView)));

  app.post('/', async (c) => {
    const { address, reason } = await readControlBody<{ address: string; reason?: string }>(
      c,
      'CreateSuppressionRequest',
    );
    return c.json(suppressionView(directory.suppress(address, reason)), 201);
  });

  app.delete('/:address', (c) => {
    directory.unsuppress(c.req.param('address'));
    return c.body(null, 204);
  });

  return app;
}

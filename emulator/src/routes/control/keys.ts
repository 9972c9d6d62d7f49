import { Hono } from 'hono';
import type { Services } from '../../deps.ts';
import type { Scope } from '../../domain/types.ts';
import { readControlBody } from './body.ts';
import { keyView } from './views.ts';

interface CreateKeyBody {
  ownerId: string;
  name: string;
  scope: Scope;
  domain?: string | null;
  mailboxes?: string[];
  secret?: string;
}

/** API keys, as the dashboard's Developer → API keys makes them (§2.1): `/keys`. */
export function controlKeyRoutes({ directory }: Services): Hono {
  const app = new Hono();

  app.get('/', (c) => c.json(directory.keys().map(keyView)));

  app.post('/', async (c) => {
    const body = await readControlBody<CreateKeyBody>(c, 'CreateKeyRequest');
    const { key, secret } = directory.createKey(body);
    return c.json({ ...keyView(key), secret }, 201);
  });

  app.post('/:keyId/disable', (c) =>
    c.json(keyView(directory.setKeyDisabled(c.req.param('keyId'), true))),
  );

  app.post('/:keyId/enable', (c) =>
    c.json(keyView(directory.setKeyDisabled(c.req.param('keyId'), false))),
  );

  return app;
}

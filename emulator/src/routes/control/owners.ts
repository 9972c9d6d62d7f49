import { Hono } from 'hono';
import type { Services } from '../../deps.ts';
import { readControlBody } from './body.ts';
import { mailboxView, ownerView } from './views.ts';

interface CreateOwnerBody {
  name: string;
  id?: string;
}

/** Owners (§2.1) and the mailboxes they are granted: `/owners`, `/owners/{ownerId}/grants`. */
export function controlOwnerRoutes({ directory }: Services): Hono {
  const app = new Hono();

  app.get('/', (c) => c.json(directory.owners().map(ownerView)));

  app.post('/', async (c) => {
    const { name, id } = await readControlBody<CreateOwnerBody>(c, 'CreateOwnerRequest');
    return c.json(ownerView(directory.createOwner({ name, id })), 201);
  });

  app.get('/:ownerId', (c) => {
    const owner = directory.owner(c.req.param('ownerId'));
    const mailboxes = directory.grantsOf(owner.id).map((m) => m.address);
    return c.json({ ...ownerView(owner), mailboxes });
  });

  app.post('/:ownerId/disable', (c) =>
    c.json(ownerView(directory.setOwnerDisabled(c.req.param('ownerId'), true))),
  );

  app.post('/:ownerId/enable', (c) =>
    c.json(ownerView(directory.setOwnerDisabled(c.req.param('ownerId'), false))),
  );

  app.get('/:ownerId/grants', (c) =>
    c.json(directory.grantsOf(c.req.param('ownerId')).map(mailboxView)),
  );

  app.put('/:ownerId/grants/:address', (c) => {
    directory.grant(c.req.param('ownerId'), c.req.param('address'));
    return c.body(null, 204);
  });

  app.delete('/:ownerId/grants/:address', (c) => {
    directory.revoke(c.req.param('ownerId'), c.req.param('address'));
    return c.body(null, 204);
  });

  return app;
}

import { Hono } from 'hono';
import type { NewTenant, TenantService } from '../../services/tenant-service.ts';
import type { Tenant } from '../../store/tenant-store.ts';
import { readControlBody } from './body.ts';

/** spec/control.yaml Tenant: never a secret (they are shown once, at creation). */
const tenantView = (t: Tenant, mailboxes: string[]) => ({
  id: t.id,
  name: t.name,
  ownerId: t.ownerId,
  domain: t.domain,
  mailboxes,
  createdAt: t.createdAt,
});

/**
 * Tenants (issue 30 item 1, D-70): `POST /tenants` makes a private world and answers every
 * secret of it, with the API's base URL as this request reached it; `DELETE /tenants/{id}`
 * removes it all.
 */
export function controlTenantRoutes(tenants: TenantService): Hono {
  const app = new Hono();

  app.get('/', (c) => c.json(tenants.list().map((t) => tenantView(t, tenants.mailboxesOf(t)))));

  app.post('/', async (c) => {
    const made = tenants.create(await readControlBody<NewTenant>(c, 'CreateTenantRequest'));
    const origin = new URL(c.req.url).origin;
    return c.json(
      {
        ...tenantView(made.tenant, made.mailboxes),
        baseUrl: `${origin}/openapi/v1`,
        keys: made.keys,
        webhook: made.webhook,
      },
      201,
    );
  });

  app.get('/:tenantId', (c) => {
    const tenant = tenants.get(c.req.param('tenantId'));
    return c.json(tenantView(tenant, tenants.mailboxesOf(tenant)));
  });

  app.delete('/:tenantId', (c) => {
    tenants.delete(c.req.param('tenantId'));
    return c.body(null, 204);
  });

  return app;
}

import { Hono } from 'hono';
import type { Services } from '../deps.ts';
import { parameterLimits } from '../http/parameter-limits.ts';
import { controlSpec, controlValidator } from './control/body.ts';
import {
  controlDomainRoutes,
  controlMailboxRoutes,
  controlSuppressionRoutes,
} from './control/directory.ts';
import { controlEmulatorRoutes } from './control/emulator.ts';
import { controlChaosRoutes } from './control/chaos.ts';
import { controlFaultRoutes } from './control/faults.ts';
import { controlFixtureRoutes } from './control/fixtures.ts';
import { controlInboundRoutes } from './control/inbound.ts';
import { controlKeyRoutes } from './control/keys.ts';
import { controlOutboxRoutes } from './control/outbox.ts';
import { controlOwnerRoutes } from './control/owners.ts';
import { controlRateLimitRoutes } from './control/rate-limit.ts';
import { controlSinkRoutes, controlWebhookRoutes } from './control/webhooks.ts';
import { controlTenantRoutes } from './control/tenants.ts';
import { controlWaitRoutes } from './control/wait.ts';
import { TenantService } from '../services/tenant-service.ts';
import { requireControlToken } from './control/token.ts';

/**
 * The control plane, `/_mailtwin/v1` (spec/control.yaml): the stand-in for the web dashboard
 * the service document keeps out of the API (§1, §2.1 keys, §2.2 mailboxes, §6.1 new mail),
 * for tests and for people. Every request needs the control token; routes parse and render,
 * the directory and inbound services decide.
 */
export function controlRoutes(services: Services): Hono {
  controlValidator(); // Reads spec/control.yaml now, so a broken contract fails at start-up.
  const app = new Hono();
  const { deps } = services;
  const tenants = new TenantService(
    deps.store,
    deps.clock,
    deps.ids,
    services.directory,
    services.webhooks,
  );
  app.use('*', requireControlToken(services.deps.controlToken));
  app.use('*', parameterLimits(controlSpec(), '/_mailtwin/v1'));
  app.route('/owners', controlOwnerRoutes(services));
  app.route('/domains', controlDomainRoutes(services));
  app.route('/mailboxes', controlMailboxRoutes(services));
  app.route('/keys', controlKeyRoutes(services));
  app.route('/suppressions', controlSuppressionRoutes(services));
  app.route('/inbound', controlInboundRoutes(services));
  app.route('/fixtures', controlFixtureRoutes(services));
  app.route('/webhooks', controlWebhookRoutes(services));
  app.route('/sink', controlSinkRoutes(services));
  app.route('/outbox', controlOutboxRoutes(services, tenants));
  app.route('/tenants', controlTenantRoutes(tenants));
  app.route('/wait', controlWaitRoutes(services, tenants));
  app.route('/faults', controlFaultRoutes(services));
  app.route('/chaos', controlChaosRoutes(services));
  app.route('/rate-limit', controlRateLimitRoutes(services));
  app.route('/', controlEmulatorRoutes(services));
  return app;
}

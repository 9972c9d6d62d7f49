import { Hono, type Context } from 'hono';
import type { Services } from '../deps.ts';
import { ExchangeLog } from './exchange-log.ts';

/**
 * The dashboard's routes (`/` and `/dashboard/*`), with its code loaded on the first visit:
 * its pages are a fifth of the emulator's modules, and an API client never needs them, so
 * start-up does not wait for them. The webhook exchange log starts with the emulator, so a
 * first visit still shows every delivery made before it.
 */
export function dashboardMount(services: Services): Hono {
  const exchanges = new ExchangeLog(services.deps.events);
  let dashboard: Promise<Hono> | undefined;
  const forward = async (c: Context) => {
    dashboard ??= import('./index.ts').then(
      (m) => m.dashboardRoutes(services, exchanges),
      (error: unknown) => {
        dashboard = undefined; // a failed load is tried again on the next visit
        throw error;
      },
    );
    return (await dashboard).fetch(c.req.raw, c.env);
  };
  // Exactly what the dashboard answers: GET / (other methods on / keep the API's JSON 404), and
  // everything under /dashboard/, unknown pages included (its own HTML 404).
  return new Hono().get('/', forward).all('/dashboard/*', forward);
}

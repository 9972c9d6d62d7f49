import { Hono } from 'hono';
import type { Services } from '../../deps.ts';
import type { ChaosRuleSetInput } from '../../chaos/rules.ts';
import { readControlBody } from './body.ts';

/**
 * Chaos rules, `/chaos` (docs/chaos.md): `PUT` arms an ordered, seeded rule set over API
 * operations, SMTP stages and webhook deliveries (replacing the last one), `GET` lists it with
 * how often each rule matched and fired, `DELETE` clears it. The send/reply/forward faults of
 * `/faults` stay as they are.
 */
export function controlChaosRoutes({ chaos }: Services): Hono {
  const app = new Hono();

  app.get('/', (c) => c.json(chaos.list()));

  app.put('/', async (c) => {
    const body = await readControlBody<ChaosRuleSetInput>(c, 'ChaosRuleSetRequest');
    return c.json(chaos.arm(body));
  });

  app.delete('/', (c) => {
    chaos.clear();
    return c.body(null, 204);
  });

  return app;
}

import { Hono } from 'hono';

/**
 * `GET /readyz` (issue 30 item 5), as Mailpit names it: 200 once the emulator answers requests.
 * The server listens only after its store is open and its fixture loaded, so answering at all
 * means ready; a CI step polls it (`curl --retry-connrefused`) before the tests start. No
 * credentials: it tells nothing but that the emulator is up.
 */
export function healthRoutes(): Hono {
  const app = new Hono();
  app.get('/readyz', (c) => c.json({ status: 'ready' }));
  return app;
}

import { Hono } from 'hono';
import type { Services } from '../../deps.ts';
import type { RateLimit } from '../../domain/rate-limit.ts';
import { readControlBody } from './body.ts';

interface RateLimitSetting {
  rateLimit: RateLimit | null;
}

/**
 * The API's request rate limit per key (D-38), `/rate-limit`: what `--rate-limit` set at
 * start-up, read and replaced at run time so a test can turn it on, rehearse 429 and turn it
 * off without restarting. A new setting starts every key's count afresh.
 */
export function controlRateLimitRoutes({ rateLimiter }: Services): Hono {
  const app = new Hono();
  const view = (): RateLimitSetting => ({ rateLimit: rateLimiter.limit });

  app.get('/', (c) => c.json(view()));

  app.put('/', async (c) => {
    const body = await readControlBody<RateLimitSetting>(c, 'RateLimitSetting');
    rateLimiter.configure(body.rateLimit);
    return c.json(view());
  });

  return app;
}

import { Hono } from 'hono';
import type { ApiEnv } from '../http/auth.ts';

/** §4.1: the mailboxes the key may touch, a bare array ordered by address (D-1, D-2). */
export function mailboxRoutes(): Hono<ApiEnv> {
  return new Hono<ApiEnv>().get('/', (c) => {
    const mailboxes = [...c.get('access').mailboxes.values()].sort((a, b) =>
      a.address < b.address ? -1 : 1,
    );
    return c.json(
      mailboxes.map(({ address, domain, displayName }) => ({ address, domain, displayName })),
    );
  });
}

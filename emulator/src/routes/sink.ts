import { Hono } from 'hono';
import type { WebhookSink } from '../services/webhook-sink.ts';

/** `POST /_mailtwin/sink`: the demo webhook's receiver on the emulator itself (no key: signed). */
export function sinkRoutes(sink: WebhookSink): Hono {
  return new Hono().post('/', async (c) => {
    const status = sink.receive(c.req.raw.headers, new Uint8Array(await c.req.arrayBuffer()));
    return c.json({ received: status === 200 }, status);
  });
}

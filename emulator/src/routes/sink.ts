import { Hono } from 'hono';
import { ApiError } from '../errors.ts';
import type { WebhookSink } from '../services/webhook-sink.ts';

/**
 * `POST /_mailtwin/sink`: the demo webhook's receiver on the emulator itself (no key: signed).
 * A delivery whose signature fails is answered 401 (§6.3 rule 4) in the Error shape, as every
 * error the emulator sends.
 */
export function sinkRoutes(sink: WebhookSink): Hono {
  return new Hono().post('/', async (c) => {
    const record = sink.receive(c.req.raw.headers, new Uint8Array(await c.req.arrayBuffer()));
    if (record.verified) return c.json({ received: true }, 200);
    const refusal = new ApiError(
      'invalid_signature',
      `The delivery was not verified: ${record.error ?? 'unknown reason'}.`,
    );
    return c.json(refusal.toBody(), 401);
  });
}

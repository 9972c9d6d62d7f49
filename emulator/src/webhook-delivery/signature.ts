import { createHmac } from 'node:crypto';

/**
 * The `X-Service-Signature` value for one delivery: `sha256=` and the lowercase hex HMAC-SHA256 of
 * `<timestamp>.<raw body>` (§6.3 rules 1 and 2).
 *
 * The key is the UTF-8 bytes of the whole signing secret, `whsec_` prefix included, and the digest
 * is lowercase hex (D-36), so a receiver needs no decoding step: `createHmac('sha256', secret)`
 * works as is. The emulator's delivery code signs with this; receivers check it with
 * `verifyWebhook` from `mailtwin/webhooks`.
 *
 * @param secret - the webhook's signing secret, exactly as shown at creation (`whsec_...`).
 * @param timestamp - the exact `X-Service-Timestamp` header value that goes out with the delivery.
 * @param rawBody - the exact body bytes that go on the wire; a string is taken as its UTF-8 bytes.
 */
export function signatureFor(
  secret: string,
  timestamp: string,
  rawBody: Uint8Array | string,
): string {
  // node:crypto takes a string key or input as its UTF-8 bytes, so strings need no conversion.
  const digest = createHmac('sha256', secret).update(`${timestamp}.`).update(rawBody).digest('hex');
  return `sha256=${digest}`;
}

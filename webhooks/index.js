// Receiver-side verification of signed webhook deliveries (§6.3, D-36), as `mailtwin/webhooks`.
// Plain ESM JavaScript so it runs wherever the package is installed, with no TypeScript tooling;
// the types and the documentation of every export are in index.d.ts beside this file.
import { createHmac, timingSafeEqual } from 'node:crypto';

/** Header names of a delivery (§6.2), lowercase as Node gives them. */
export const WEBHOOK_HEADERS = Object.freeze({
  event: 'x-service-event',
  webhookId: 'x-service-webhook-id',
  timestamp: 'x-service-timestamp',
  signature: 'x-service-signature',
});

/** Every `code` a WebhookVerificationError can carry, in the order the checks run. */
export const WEBHOOK_ERROR_CODES = Object.freeze([
  'missing_header',
  'malformed_signature',
  'malformed_timestamp',
  'signature_mismatch',
  'timestamp_outside_tolerance',
  'malformed_body',
  'header_body_mismatch',
]);

/** Replay window used when the caller chooses none (§6.3 rule 3 leaves it to the receiver). */
export const DEFAULT_TOLERANCE_SECONDS = 300;

const SIGNATURE_PATTERN = /^sha256=([0-9a-f]{64})$/;
const ANY_CASE_SIGNATURE_PATTERN = /^sha256=[0-9a-fA-F]{64}$/;
const TIMESTAMP_PATTERN = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const DIGEST_BYTES = 32;
const utf8 = new TextDecoder('utf-8', { fatal: true });

/** A delivery that must not be processed; `code` says why, `header` names the header at fault. */
export class WebhookVerificationError extends Error {
  /**
   * @param {string} code
   * @param {string} message
   * @param {string} [header]
   */
  constructor(code, message, header) {
    super(message);
    this.name = 'WebhookVerificationError';
    this.code = code;
    if (header !== undefined) this.header = header;
  }
}

/**
 * Verifies one delivery, then parses it. Order: headers present and well formed, signature over the
 * exact raw bytes (constant time), timestamp inside the window, and only then the JSON body.
 * @param {{secret: string, headers: object, rawBody: Uint8Array | string,
 *   toleranceSeconds?: number, now?: Date | number}} options
 */
export function verifyWebhook(options) {
  const { secret, headers, rawBody } = options;
  const toleranceSeconds = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  const nowMs = toEpochMs(options.now ?? new Date());
  checkSecret(secret);
  const body = toBytes(rawBody);
  if (
    typeof toleranceSeconds !== 'number' ||
    !Number.isFinite(toleranceSeconds) ||
    toleranceSeconds < 0
  ) {
    throw new TypeError(
      `toleranceSeconds must be a finite number >= 0, got ${String(toleranceSeconds)}`,
    );
  }

  const signature = requiredHeader(headers, WEBHOOK_HEADERS.signature);
  const timestamp = requiredHeader(headers, WEBHOOK_HEADERS.timestamp);
  const webhookId = requiredHeader(headers, WEBHOOK_HEADERS.webhookId);
  const eventHeader = readHeader(headers, WEBHOOK_HEADERS.event);

  const given = parseSignature(signature);
  const timestampMs = parseTimestamp(timestamp);

  const expected = createHmac('sha256', Buffer.from(secret, 'utf8'))
    .update(Buffer.from(`${timestamp}.`, 'utf8'))
    .update(body)
    .digest();
  // Both are 32 bytes whenever the header passed parseSignature, so this length check depends only
  // on the header's public shape, never on the secret; timingSafeEqual then compares in constant
  // time (it throws on unequal lengths, hence the check).
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    throw new WebhookVerificationError(
      'signature_mismatch',
      'X-Service-Signature does not match the HMAC-SHA256 of "<X-Service-Timestamp>.<raw body>" ' +
        'under this secret: wrong secret, or the body or timestamp changed on the way (§6.3)',
      WEBHOOK_HEADERS.signature,
    );
  }

  const skewMs = nowMs - timestampMs;
  if (Math.abs(skewMs) > toleranceSeconds * 1000) {
    const direction = skewMs > 0 ? 'old' : 'in the future';
    throw new WebhookVerificationError(
      'timestamp_outside_tolerance',
      `X-Service-Timestamp ${timestamp} is ${Math.abs(skewMs) / 1000} s ${direction}, outside ` +
        `the replay window of ${toleranceSeconds} s (§6.3 rule 3)`,
      WEBHOOK_HEADERS.timestamp,
    );
  }

  const payload = parseBody(body);
  checkSame(WEBHOOK_HEADERS.webhookId, webhookId, 'webhookId', payload.webhookId);
  checkSame(WEBHOOK_HEADERS.timestamp, timestamp, 'timestamp', payload.timestamp);
  if (eventHeader !== undefined) {
    checkSame(WEBHOOK_HEADERS.event, eventHeader, 'event', payload.event);
  }
  return { event: payload.event, webhookId, timestamp, payload };
}

/** @param {unknown} secret */
function checkSecret(secret) {
  if (typeof secret !== 'string' || !secret.startsWith('whsec_')) {
    throw new TypeError(
      'secret must be the whole signing secret as shown at creation, whsec_ prefix included ' +
        '(§2.5, D-36: the HMAC key is the UTF-8 bytes of that whole string)',
    );
  }
}

/** @param {unknown} rawBody */
function toBytes(rawBody) {
  if (typeof rawBody === 'string') return Buffer.from(rawBody, 'utf8');
  if (rawBody instanceof Uint8Array) return rawBody;
  throw new TypeError(
    'rawBody must be the exact bytes received (Buffer, Uint8Array, or a string taken as UTF-8), ' +
      'not a parsed body: the signature covers the raw bytes (§6.3 rule 3)',
  );
}

/** @param {unknown} now */
function toEpochMs(now) {
  const ms = now instanceof Date ? now.getTime() : now;
  if (typeof ms !== 'number' || !Number.isFinite(ms)) {
    throw new TypeError('now must be a valid Date or a number of milliseconds since the epoch');
  }
  return ms;
}

/**
 * The header's value, or undefined when absent. A Fetch `Headers` is asked with get(), which is
 * case-insensitive and joins repeated values with ", "; a plain object (Node's req.headers, or
 * any casing of names) is searched the same way, with string[] values joined like Node joins them.
 * @param {unknown} headers
 * @param {string} name lowercase
 * @returns {string | undefined}
 */
function readHeader(headers, name) {
  if (headers === null || typeof headers !== 'object') {
    throw new TypeError('headers must be a Headers object or an object of header names to values');
  }
  const getter = /** @type {{get?: unknown}} */ (headers).get;
  if (typeof getter === 'function') {
    const value = getter.call(headers, name);
    return typeof value === 'string' && value !== '' ? value : undefined;
  }
  /** @type {string[]} */
  const values = [];
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() !== name) continue;
    if (Array.isArray(value)) values.push(...value.map(String));
    else if (value !== undefined && value !== null) values.push(String(value));
  }
  const joined = values.join(', ');
  return joined === '' ? undefined : joined;
}

/**
 * @param {unknown} headers
 * @param {string} name
 */
function requiredHeader(headers, name) {
  const value = readHeader(headers, name);
  if (value === undefined) {
    throw new WebhookVerificationError(
      'missing_header',
      `${name} header is missing or empty (§6.2)`,
      name,
    );
  }
  return value;
}

/** @param {string} header */
function parseSignature(header) {
  const match = SIGNATURE_PATTERN.exec(header);
  if (match === null || match[1] === undefined) {
    const why = ANY_CASE_SIGNATURE_PATTERN.test(header)
      ? 'its hex digest must be lowercase (D-36)'
      : 'it must be "sha256=" followed by 64 lowercase hex digits (§6.3 rule 2)';
    throw new WebhookVerificationError(
      'malformed_signature',
      `X-Service-Signature is malformed: ${why}`,
      WEBHOOK_HEADERS.signature,
    );
  }
  const bytes = Buffer.from(match[1], 'hex');
  if (bytes.length !== DIGEST_BYTES) throw new Error('unreachable: 64 hex digits are 32 bytes');
  return bytes;
}

/** @param {string} header */
function parseTimestamp(header) {
  const ms = TIMESTAMP_PATTERN.test(header) ? Date.parse(header) : Number.NaN;
  // The round trip rejects dates that match the pattern but do not exist (2026-02-30, 25:00).
  if (!Number.isFinite(ms) || new Date(ms).toISOString() !== header) {
    throw new WebhookVerificationError(
      'malformed_timestamp',
      'X-Service-Timestamp must be ISO 8601 UTC with milliseconds, like 2026-11-20T09:15:01.250Z (§6.2)',
      WEBHOOK_HEADERS.timestamp,
    );
  }
  return ms;
}

/** @param {Uint8Array} body */
function parseBody(body) {
  let parsed;
  try {
    parsed = JSON.parse(utf8.decode(body));
  } catch {
    throw new WebhookVerificationError('malformed_body', 'the body is not UTF-8 JSON (§6.2)');
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new WebhookVerificationError('malformed_body', 'the body is not a JSON object (§6.2)');
  }
  for (const field of ['event', 'webhookId', 'timestamp']) {
    if (typeof parsed[field] !== 'string') {
      throw new WebhookVerificationError(
        'malformed_body',
        `the body's ${field} is not a string (§6.2)`,
      );
    }
  }
  const data = parsed.data;
  if (data === null || typeof data !== 'object' || Array.isArray(data)) {
    throw new WebhookVerificationError('malformed_body', "the body's data is not an object (§6.2)");
  }
  return parsed;
}

/**
 * @param {string} header
 * @param {string} headerValue
 * @param {string} field
 * @param {string} bodyValue
 */
function checkSame(header, headerValue, field, bodyValue) {
  if (headerValue !== bodyValue) {
    throw new WebhookVerificationError(
      'header_body_mismatch',
      `${header} (${JSON.stringify(headerValue)}) differs from the body's ${field} ` +
        `(${JSON.stringify(bodyValue)}) (§6.2)`,
      header,
    );
  }
}

/**
 * Receiver-side verification of the Email Service's signed webhook deliveries (§6.2, §6.3, D-36).
 *
 * ```ts
 * import { verifyWebhook, WebhookVerificationError } from 'mailtwin/webhooks';
 *
 * const delivery = verifyWebhook({ secret: process.env.WEBHOOK_SECRET!, headers: req.headers, rawBody });
 * ```
 *
 * `examples/receiver.ts` in the mailtwin repository is a whole receiver built on it.
 *
 * @packageDocumentation
 */

/** Header names of a delivery (§6.2), lowercase as Node gives them. */
export declare const WEBHOOK_HEADERS: {
  readonly event: 'x-service-event';
  readonly webhookId: 'x-service-webhook-id';
  readonly timestamp: 'x-service-timestamp';
  readonly signature: 'x-service-signature';
};

/** One of the delivery headers, lowercase. */
export type WebhookHeaderName = (typeof WEBHOOK_HEADERS)[keyof typeof WEBHOOK_HEADERS];

/**
 * Why a delivery was refused.
 *
 * - `missing_header`: `X-Service-Signature`, `X-Service-Timestamp` or `X-Service-Webhook-Id` is
 *   absent or empty (`header` names it).
 * - `malformed_signature`: not `sha256=` and 64 lowercase hex digits; an uppercase digest is
 *   malformed too, since D-36 fixes lowercase.
 * - `malformed_timestamp`: not ISO 8601 UTC with milliseconds (`2026-11-20T09:15:01.250Z`), or not
 *   a real date.
 * - `signature_mismatch`: well formed, but not the HMAC of `<timestamp>.<raw body>` under this
 *   secret. A receiver answers this with 401 (§6.3 rule 4).
 * - `timestamp_outside_tolerance`: authentic, but further than `toleranceSeconds` from `now`
 *   either way: a replay, or a clock that is off.
 * - `malformed_body`: authentic and fresh, but not a UTF-8 JSON object with string `event`,
 *   `webhookId` and `timestamp` and an object `data`.
 * - `header_body_mismatch`: authentic, but `X-Service-Webhook-Id`, `X-Service-Timestamp` or (when
 *   sent) `X-Service-Event` differs from the body's `webhookId`, `timestamp` or `event`.
 */
export type WebhookVerificationErrorCode =
  | 'missing_header'
  | 'malformed_signature'
  | 'malformed_timestamp'
  | 'signature_mismatch'
  | 'timestamp_outside_tolerance'
  | 'malformed_body'
  | 'header_body_mismatch';

/** Every {@link WebhookVerificationErrorCode}, in the order the checks run. */
export declare const WEBHOOK_ERROR_CODES: readonly WebhookVerificationErrorCode[];

/** The replay window, in seconds, when `toleranceSeconds` is not given (§6.3 rule 3). */
export declare const DEFAULT_TOLERANCE_SECONDS: 300;

/**
 * A delivery that must not be processed. Thrown by {@link verifyWebhook}; anything else it throws
 * (a `TypeError`) is a mistake in the calling code, not in the delivery.
 */
export declare class WebhookVerificationError extends Error {
  readonly name: 'WebhookVerificationError';
  /** Why the delivery was refused. */
  readonly code: WebhookVerificationErrorCode;
  /** The header at fault, where one is. */
  readonly header?: WebhookHeaderName;
  constructor(code: WebhookVerificationErrorCode, message: string, header?: WebhookHeaderName);
}

/** A Fetch `Headers` (global, or undici's): `get` is case-insensitive, `null` when absent. */
export interface HeadersLike {
  get(name: string): string | null;
}

/**
 * Headers as a plain object, names in any case, values as Node gives them (`req.headers`).
 * Repeated values (an array, or several casings of one name) are joined with `", "` as Node does.
 */
export type HeaderRecord = Readonly<Record<string, string | readonly string[] | undefined>>;

/** What {@link verifyWebhook} needs. */
export interface VerifyWebhookOptions {
  /**
   * The webhook's signing secret, whole, exactly as shown at creation: `whsec_...`. The HMAC key is
   * the UTF-8 bytes of that whole string, prefix included (D-36); a secret without the prefix is
   * refused with a `TypeError`.
   */
  secret: string;
  /** The request headers. */
  headers: HeadersLike | HeaderRecord;
  /**
   * The exact body bytes as received, before any parsing: the signature covers these bytes and a
   * re-serialised body would not match (§6.3 rule 3). A string is taken as its UTF-8 bytes.
   */
  rawBody: Uint8Array | string;
  /**
   * The replay window in seconds, either side of `now` (inclusive). Default
   * {@link DEFAULT_TOLERANCE_SECONDS}.
   */
  toleranceSeconds?: number;
  /** The receiver's current time, a `Date` or epoch milliseconds. Default: the real clock. */
  now?: Date | number;
}

/**
 * The parsed body of a delivery (§6.2). Only the envelope is checked; `data` is the email detail
 * for `email.received` (D-37) and `{ test: true, message }` for `webhook.test`, and should be
 * narrowed by the caller.
 */
export interface WebhookPayload {
  /** The event kind: `email.received`, or `webhook.test` for the dashboard's test delivery. */
  readonly event: string;
  /** The webhook's ID, equal to `X-Service-Webhook-Id`. */
  readonly webhookId: string;
  /** The same string as `X-Service-Timestamp`. */
  readonly timestamp: string;
  /** The event's data; for `email.received`, `data.id` is the email ID to deduplicate on (§6.4). */
  readonly data: Readonly<Record<string, unknown>>;
  readonly [field: string]: unknown;
}

/** A delivery that passed every check. */
export interface VerifiedWebhook {
  /** The body's `event`. */
  readonly event: string;
  /** `X-Service-Webhook-Id`, equal to the body's `webhookId`. */
  readonly webhookId: string;
  /** `X-Service-Timestamp`, equal to the body's `timestamp`. */
  readonly timestamp: string;
  /** The body, parsed only after the signature and the timestamp were verified. */
  readonly payload: WebhookPayload;
}

/**
 * Verifies a webhook delivery and only then parses it (§6.3 rule 3).
 *
 * Checks, in order: the signature, timestamp and webhook ID headers are present; the signature is
 * `sha256=` and 64 lowercase hex digits; the timestamp is ISO 8601 UTC with milliseconds; the
 * signature equals the HMAC-SHA256 of `<timestamp>.<rawBody>` keyed with the whole secret,
 * compared in constant time (§6.3, D-36); the timestamp lies within `toleranceSeconds` of `now`;
 * then the body is parsed and its `webhookId`, `timestamp` and `event` must equal the headers.
 *
 * Answer `signature_mismatch` with HTTP 401 (§6.3 rule 4). Process idempotently on `data.id` and
 * `webhookId` (§6.4): a delivery can arrive more than once.
 *
 * @throws {@link WebhookVerificationError} when the delivery must not be processed.
 * @throws `TypeError` when the options themselves are wrong (no `whsec_` secret, a parsed body).
 */
export declare function verifyWebhook(options: VerifyWebhookOptions): VerifiedWebhook;

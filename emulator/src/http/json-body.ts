import type { Context } from 'hono';
import { ApiError } from '../errors.ts';

/** D-28: a JSON body must be sent as application/json (parameters such as charset allowed). */
export function isJsonMediaType(contentType: string | undefined): boolean {
  return /^application\/json\s*(;.*)?$/i.test(contentType?.trim() ?? '');
}

/**
 * The most bytes a body whose schema bounds every member may have (`PATCH /emails/{emailId}`:
 * a valid one is a few dozen bytes): 64 KiB, whitespace to spare. A larger one is refused with
 * 413 `request_too_large` before it is parsed (D-27): parsing an 8 MB array held the event loop
 * for every other request (issue 27 item 1).
 */
export const SMALL_BODY_MAX_BYTES = 64 * 1024;

/**
 * Reads a request's JSON object body: 415 `unsupported_media_type` for another Content-Type,
 * 400 `invalid_json` for bytes that are not one JSON object. (The size limit, 413, is enforced
 * before this, by the body-limit middleware; `maxBytes` is a lower one for this body, judged
 * by its Content-Length before it is read, else by its length before it is parsed.)
 */
export async function readJsonObject(
  c: Context,
  maxBytes = Number.POSITIVE_INFINITY,
): Promise<Record<string, unknown>> {
  checkJsonMediaType(c);
  const declared = Number(c.req.header('content-length') ?? 0);
  if (declared > maxBytes) throw bodyTooLarge(maxBytes);
  if (maxBytes === Number.POSITIVE_INFINITY) return parseJsonObject(await c.req.text());
  const bytes = await c.req.arrayBuffer();
  if (bytes.byteLength > maxBytes) throw bodyTooLarge(maxBytes);
  return parseJsonObject(UTF8.decode(bytes));
}

/**
 * One decoder for every body: decoding a whole buffer (not a stream) keeps no state between
 * calls, and a decoder made a call cost more than the decoding of a PATCH body.
 */
export const UTF8 = new TextDecoder();

function bodyTooLarge(maxBytes: number): ApiError {
  return new ApiError(
    'request_too_large',
    `This request's body may have at most ${maxBytes} bytes; no valid one is larger.`,
  );
}

/** A request body: parsed, or (from `rawFrom` bytes on) the bytes, for a render thread to parse. */
export type JsonBody =
  { kind: 'parsed'; value: Record<string, unknown> } | { kind: 'raw'; bytes: Uint8Array };

/**
 * As readJsonObject, but a body of more than `rawFrom` bytes is not parsed here: parsing
 * megabytes would hold the event loop (issue 27 item 1), so its bytes are returned for a
 * worker thread (prepare-request.ts) to parse with the same rules.
 */
export async function readJsonBody(c: Context, rawFrom: number): Promise<JsonBody> {
  checkJsonMediaType(c);
  const buffer = await c.req.arrayBuffer();
  if (buffer.byteLength > rawFrom) return { kind: 'raw', bytes: new Uint8Array(buffer) };
  return { kind: 'parsed', value: parseJsonObject(UTF8.decode(buffer)) };
}

function checkJsonMediaType(c: Context): void {
  if (!isJsonMediaType(c.req.header('content-type'))) {
    throw new ApiError(
      'unsupported_media_type',
      'Send the body with Content-Type application/json.',
    );
  }
}

/** One JSON object from the text of a body, else 400 `invalid_json`. */
export function parseJsonObject(text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new ApiError('invalid_json', 'The body is not valid JSON.');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ApiError('invalid_json', 'The body must be a JSON object.');
  }
  return value as Record<string, unknown>;
}

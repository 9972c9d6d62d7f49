import type { Context } from 'hono';
import { ApiError } from '../errors.ts';

/** D-28: a JSON body must be sent as application/json (parameters such as charset allowed). */
export function isJsonMediaType(contentType: string | undefined): boolean {
  return /^application\/json\s*(;.*)?$/i.test(contentType?.trim() ?? '');
}

/**
 * Reads a request's JSON object body: 415 `unsupported_media_type` for another Content-Type,
 * 400 `invalid_json` for bytes that are not one JSON object. (The size limit, 413, is enforced
 * before this, by the body-limit middleware.)
 */
export async function readJsonObject(c: Context): Promise<Record<string, unknown>> {
  if (!isJsonMediaType(c.req.header('content-type'))) {
    throw new ApiError(
      'unsupported_media_type',
      'Send the body with Content-Type application/json.',
    );
  }
  const text = await c.req.text();
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

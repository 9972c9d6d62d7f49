/**
 * The first, pure part of a large send, reply or forward request (issue 27 item 1): decoding
 * and parsing its JSON, validating it against the contract's schema and finding the variables
 * its templates use. For a body of megabytes each of these holds a thread for hundreds of
 * milliseconds (JSON.parse of 24 MB: about 200 ms; the placeholders of 4.8M `{{a}}`: 230 ms),
 * so a large request's bytes are handed to a render thread (render-pool.ts) and this runs
 * there. What comes back is small: the request with its large strings taken out, and each of
 * those as UTF-8 bytes (moved, not copied) with its length and the variables it uses. It is
 * the edge's validation (send-request.ts), run on another thread.
 */
import { ApiError } from '../errors.ts';
import { parseJsonObject } from './json-body.ts';
import { RequestValidator } from './request-validator.ts';
import { loadSpec, type OpenApiDocument } from '../spec.ts';
import { variablesUsed } from '../domain/templates.ts';
import {
  LARGE_FIELDS,
  LARGE_FIELD_CHARACTERS,
  type LargeField,
  type LargeFieldName,
} from '../services/checked-request.ts';

export type Prepared =
  | {
      ok: true;
      /** The request, valid for its schema; each large field is left as the empty string. */
      body: Record<string, unknown>;
      large: Partial<Record<LargeFieldName, LargeField>>;
    }
  | { ok: false; error: { code: string; message: string; field?: string } };

let validator: RequestValidator | undefined;

/**
 * Parses and validates `bytes` as the named request schema; ApiErrors (invalid_json, every
 * refusal of the schema) come back as their fields, anything else is thrown.
 */
export function prepareRequest(
  schemaName: string,
  bytes: Uint8Array,
  spec: () => OpenApiDocument = loadSpec,
): Prepared {
  try {
    const body = parseJsonObject(new TextDecoder().decode(bytes));
    (validator ??= new RequestValidator(spec())).check(schemaName, body);
    const large: Partial<Record<LargeFieldName, LargeField>> = {};
    const encoder = new TextEncoder();
    for (const field of LARGE_FIELDS) {
      const value = body[field];
      if (typeof value !== 'string' || value.length <= LARGE_FIELD_CHARACTERS) continue;
      large[field] = {
        bytes: encoder.encode(value),
        used: field === 'html' ? [] : variablesUsed(value),
      };
      body[field] = '';
    }
    return { ok: true, body, large };
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    return {
      ok: false,
      error: {
        code: error.code,
        message: error.message,
        ...(error.field === undefined ? {} : { field: error.field }),
      },
    };
  }
}

/** The buffers a Prepared answer moves to the other thread. */
export function transfersOf(prepared: Prepared): ArrayBuffer[] {
  if (!prepared.ok) return [];
  return Object.values(prepared.large).map((f) => f.bytes.buffer as ArrayBuffer);
}

/**
 * A send, reply or forward request as the edge hands it to SendService: valid for its schema
 * (checked at the edge, http/send-request.ts), with its large strings taken out as bytes. The
 * service never sees a request body that was not checked, nor parses one.
 */

/** The request fields that may be large: the body (§4.3); the others have a maxLength. */
export const LARGE_FIELDS = ['text', 'markdown', 'html'] as const;
export type LargeFieldName = (typeof LARGE_FIELDS)[number];

/** Strings longer than this leave the request as bytes. */
export const LARGE_FIELD_CHARACTERS = 16 * 1024;

/** A large string of the request, as UTF-8 bytes. */
export interface LargeField {
  bytes: Uint8Array;
  /** `used` of variablesUsed; none for `html` (§2.6: variables never apply to raw HTML). */
  used: string[];
}

/** A request valid for its schema; each large field is left as the empty string in `request`. */
export interface CheckedRequest {
  request: Record<string, unknown>;
  large: Partial<Record<LargeFieldName, LargeField>>;
}

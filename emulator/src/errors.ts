/**
 * The one error type of the API and the catalogue of its codes (service document §7, D-12).
 * Anything thrown anywhere is rendered once, by `renderError`, as the spec's Error schema.
 */

/** Every stable error code, with the HTTP status it is always answered with. */
export const ERROR_STATUS = {
  invalid_json: 400,
  missing_field: 400,
  invalid_field: 400,
  unknown_field: 400,
  invalid_address: 400,
  invalid_folder: 400,
  invalid_cursor: 400,
  body_required: 400,
  body_conflict: 400,
  missing_variable: 400,
  reserved_variable: 400,
  invalid_variable: 400,
  file_missing: 400,
  file_empty: 400,
  too_many_files: 400,
  invalid_multipart: 400,
  invalid_message: 400,
  invalid_webhook_url: 400,
  bad_request: 400,
  subject_too_long: 400,
  too_many_recipients: 400,
  limit_too_large: 400,
  too_many_attachments: 400,
  attachments_too_large: 400,
  message_too_large: 400,
  body_too_complex: 400,
  missing_api_key: 401,
  invalid_api_key: 401,
  invalid_control_token: 401,
  invalid_signature: 401,
  host_not_allowed: 403,
  mailbox_not_found: 404,
  email_not_found: 404,
  attachment_not_found: 404,
  not_found: 404,
  owner_not_found: 404,
  key_not_found: 404,
  webhook_not_found: 404,
  tenant_not_found: 404,
  method_not_allowed: 405,
  request_timeout: 408,
  wait_timeout: 408,
  already_exists: 409,
  request_too_large: 413,
  unsupported_media_type: 415,
  headers_too_large: 431,
  recipient_suppressed: 422,
  rate_limited: 429,
  internal_error: 500,
  bad_gateway: 502,
  service_unavailable: 503,
  gateway_timeout: 504,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;
export type ErrorStatus = (typeof ERROR_STATUS)[ErrorCode];

/** The JSON body of every failure: `{code, message, field?}`. */
export interface ErrorBody {
  code: ErrorCode;
  message: string;
  field?: string;
}

/** How many code points of a client's value an error repeats (D-62). */
export const QUOTE_LIMIT = 100;

/**
 * A client's value as an error message may repeat it (D-62): at most 100 code points, then an
 * ellipsis, so no answer grows with the input (a 3 MB owner ID is not sent back). Counted in
 * code points (D-9), so an astral character is never cut in half. Adds no quotation marks.
 */
export function quoteForMessage(value: unknown): string {
  const text = String(value);
  if (text.length <= QUOTE_LIMIT) return text;
  let quoted = '';
  let count = 0;
  for (const char of text) {
    if (count === QUOTE_LIMIT) return `${quoted}…`;
    quoted += char;
    count += 1;
  }
  return quoted;
}

/** Thrown by routes and domain code; its status always follows from its code. */
export class ApiError extends Error {
  readonly status: ErrorStatus;
  /** The offending field; a name the client made up (an unknown member) is bounded (D-62). */
  readonly field?: string;

  constructor(
    readonly code: ErrorCode,
    message: string,
    field?: string,
  ) {
    super(message);
    this.name = 'ApiError';
    this.status = ERROR_STATUS[code];
    if (field !== undefined) this.field = quoteForMessage(field);
  }

  toBody(): ErrorBody {
    return this.field === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, field: this.field };
  }
}

/** Turns anything thrown into an ApiError; unknown errors become `internal_error`, never a stack. */
export function toApiError(error: unknown): { apiError: ApiError; unexpected: boolean } {
  if (error instanceof ApiError) return { apiError: error, unexpected: false };
  return {
    apiError: new ApiError('internal_error', 'An unexpected error occurred.'),
    unexpected: true,
  };
}

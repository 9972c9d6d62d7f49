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
  invalid_webhook_url: 400,
  subject_too_long: 400,
  too_many_recipients: 400,
  limit_too_large: 400,
  too_many_attachments: 400,
  attachments_too_large: 400,
  message_too_large: 400,
  missing_api_key: 401,
  invalid_api_key: 401,
  invalid_control_token: 401,
  mailbox_not_found: 404,
  email_not_found: 404,
  attachment_not_found: 404,
  not_found: 404,
  owner_not_found: 404,
  key_not_found: 404,
  webhook_not_found: 404,
  method_not_allowed: 405,
  already_exists: 409,
  request_too_large: 413,
  unsupported_media_type: 415,
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

/** Thrown by routes and domain code; its status always follows from its code. */
export class ApiError extends Error {
  readonly status: ErrorStatus;

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly field?: string,
  ) {
    super(message);
    this.name = 'ApiError';
    this.status = ERROR_STATUS[code];
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

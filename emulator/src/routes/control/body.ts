import type { Context } from 'hono';
import { ApiError } from '../../errors.ts';
import { readJsonObject } from '../../http/json-body.ts';
import { RequestValidator } from '../../http/request-validator.ts';
import { loadSpec, type OpenApiDocument } from '../../spec.ts';
import { packagePath } from '../../package-root.ts';

/** The control plane's contract, beside the API's (spec/control.yaml). */
export const CONTROL_SPEC_PATH = packagePath('spec/control.yaml');

let shared: RequestValidator | undefined;
let document: OpenApiDocument | undefined;

/** spec/control.yaml, parsed once per process. */
export function controlSpec(): OpenApiDocument {
  document ??= loadSpec(CONTROL_SPEC_PATH);
  return document;
}

/**
 * Checks request bodies against the request schemas of spec/control.yaml, as the API's routes
 * do against spec/openapi.yaml, so the control plane and its contract cannot drift apart. The
 * document is read once per process (every app of a test run shares it).
 */
export function controlValidator(): RequestValidator {
  // Only the subject keeps §8's own code here: the control plane's lists are not a message's
  // recipients or attachments, so too many of them is `invalid_field` (D-61).
  shared ??= new RequestValidator(controlSpec(), { 'maxLength subject': 'subject_too_long' });
  return shared;
}

/**
 * Reads a JSON object body and checks it against `schemaName` of spec/control.yaml: 415
 * `unsupported_media_type`, 400 `invalid_json`, `unknown_field`, `missing_field` or
 * `invalid_field` naming the field, exactly as the API answers (D-28, D-31). The shape is
 * then the schema's; the rules beyond shape are the services'.
 */
export async function readControlBody<T>(c: Context, schemaName: string): Promise<T> {
  const body = await readJsonObject(c);
  try {
    controlValidator().check(schemaName, body);
  } catch (error) {
    // The validator names a field whose name is the empty string as field "", which the Error
    // schema (field: minLength 1) does not allow; such a field is reported without `field`.
    if (error instanceof ApiError && error.field === '')
      throw new ApiError(error.code, error.message);
    throw error;
  }
  return body as T;
}

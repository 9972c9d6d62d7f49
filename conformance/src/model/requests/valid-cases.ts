/**
 * Per-operation assembly of valid requests: a valid body (a JSON object, the query of
 * listEmails or the form of uploadAttachment) and the request case a check sends for it.
 */
import fc from 'fast-check';
import { contract, operationInfo } from './operations.ts';
import { encodeMultipart, uploadExpectation, validForm } from './multipart.ts';
import { bodyRule } from './prose.ts';
import type { RequestCase, RequestContext, UploadForm } from './request-types.ts';
import { asQuery, validObject } from './valid-values.ts';

/**
 * A valid body: a JSON object for JSON operations, the query parameters (name → string) for
 * listEmails, an UploadForm for uploadAttachment.
 */
export function validBody(operationId: string, context: RequestContext): fc.Arbitrary<object> {
  const spec = context.spec ?? contract();
  const info = operationInfo(operationId, spec);
  if (info.kind === 'multipart') return validForm(info, spec);
  const body = validObject(info.schema, info.kind, context, spec, bodyRule(info));
  return info.kind === 'query' ? body.map(asQuery) : body;
}

/** A valid body as a request case (what the check sends). */
export function validCase(operationId: string, body: object): RequestCase {
  const info = operationInfo(operationId);
  if (info.kind === 'multipart') {
    const form = body as UploadForm;
    return {
      body: encodeMultipart(form.parts, form.boundary),
      contentType: `multipart/form-data; boundary=${form.boundary}`,
      expectedCodes: [],
      why: 'a valid form',
      expectedResponse: uploadExpectation(form),
    };
  }
  return {
    body,
    contentType: info.kind === 'json' ? 'application/json' : '',
    expectedCodes: [],
    why: 'a valid body',
  };
}

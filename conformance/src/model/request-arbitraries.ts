/**
 * Requests generated from the contract: the request schemas of spec/openapi.yaml
 * (SendEmailRequest, ReplyRequest, ForwardRequest, UpdateEmailRequest, UploadRequest and the
 * query parameters of listEmails) are read at run time and turned into fast-check arbitraries
 * generically, keyword by keyword (type, type arrays, enum, properties, required, maxLength,
 * maxItems, maxProperties, propertyNames, additionalProperties, minimum, maximum, local $refs).
 *
 * Where the contract's prose adds a rule that a schema cannot express, a named hook supplies it
 * (PROSE below): addresses (D-11) that are the tenant's mailboxes or `*@external.conformance.test`
 * and never any other domain, exactly one / at most one body field (§4.3 rule 1, read from the
 * operation's `body_required` / `body_conflict` codes), templates (§2.6: the fields whose
 * description says "Variables apply"), reserved variables (D-24), upload ids (§2.4), the limits
 * of `x-limits` and the fields they measure (§8), search words (D-13), dates (D-18), opaque
 * cursors (D-16) and the multipart form (§4.9).
 *
 * - `validBody(operationId, context)`: bodies (for listEmails the query, for uploadAttachment
 *   the form) the contract says must be accepted.
 * - `edgeCase(operationId, context)`: valid requests at the edges (values at their limits,
 *   odd Unicode, other spellings of the media type and of the JSON text, templates), which must
 *   be accepted too.
 * - `invalidBody(operationId, context)`: one mutation of a valid body, with the error codes
 *   and the `field` the contract expects.
 * - `caseRule` / `codeRule`: the rule a case checks, and the rule its code and field are
 *   charged to.
 *
 * This module is the generators' public entry; requests/ holds their parts, one job each:
 * operations.ts (schema walking), prose.ts (the prose's hooks), text-values.ts and
 * valid-values.ts (valid values per format and per schema), multipart.ts (upload forms),
 * slots.ts (what a mutation changes), valid-cases.ts, edge-cases.ts and invalid-cases.ts
 * (per-operation assembly) with prose-mutations.ts, json-text-mutations.ts and
 * invalid-forms.ts (invalid mutations), and case-rules.ts (the rule each case checks).
 */
export type {
  FormPart,
  RequestCase,
  RequestContext,
  RequestKind,
  Schema,
  UploadForm,
} from './requests/request-types.ts';
export { contract, operationInfo, type OperationInfo } from './requests/operations.ts';
export { EXTERNAL_DOMAIN } from './requests/prose.ts';
export { INVALID_ADDRESSES, ODD_UNICODE, codePoints } from './requests/text-values.ts';
export { encodeMultipart } from './requests/multipart.ts';
export { validBody, validCase } from './requests/valid-cases.ts';
export { edgeCase } from './requests/edge-cases.ts';
export { invalidBody } from './requests/invalid-cases.ts';
export { caseRule, codeRule } from './requests/case-rules.ts';

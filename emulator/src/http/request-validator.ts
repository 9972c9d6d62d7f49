import type { Ajv2020, ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';
import { ApiError, quoteForMessage, type ErrorCode } from '../errors.ts';
import { newAjv2020 } from '../json-schema.ts';
import type { OpenApiDocument } from '../spec.ts';

const SPEC_ID = 'mailtwin:contract';

/**
 * Validates request bodies against the request schemas of spec/openapi.yaml, so the contract
 * and the emulator cannot drift apart. The first problem becomes an ApiError naming the field
 * (D-12, D-31); limits of §8 keep their own codes.
 */
export class RequestValidator {
  /** Made with the first body checked (json-schema.ts): start-up does not wait for ajv. */
  private ajv: Ajv2020 | undefined;
  private readonly compiled = new Map<string, ValidateFunction>();

  /**
   * `limitCodes` are the codes of the limits a schema keyword carries (`maxItems cc` →
   * `too_many_recipients`); every other broken bound is `invalid_field` (D-51).
   */
  constructor(
    private readonly spec: OpenApiDocument,
    private readonly limitCodes: Record<string, ErrorCode> = LIMIT_CODES,
  ) {}

  /** Throws the most useful ApiError when `body` breaks the named component schema. */
  check(schemaName: string, body: unknown): void {
    let validate = this.compiled.get(schemaName);
    if (validate === undefined) {
      this.ajv ??= newAjv2020({ strict: false, allErrors: true, validateSchema: false })
        .addFormat('binary', true)
        .addSchema(this.spec, SPEC_ID);
      validate = this.ajv.compile({ $ref: `${SPEC_ID}#/components/schemas/${schemaName}` });
      this.compiled.set(schemaName, validate);
    }
    if (validate(body)) return;
    throw toApiError(validate.errors ?? [], this.limitCodes);
  }
}

/** `/cc/3` → `cc[3]`, `/variables/name` → `variables.name`. */
export function fieldPath(pointer: string, child?: string): string {
  const parts = pointer
    .split('/')
    .slice(1)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  // Digits in the pointer are array indexes (the request schemas have no digit-named members);
  // `child` is always a member name, even "0" (an unknown field of an object).
  const path = parts.reduce((acc, part) => join(acc, part, /^\d+$/.test(part)), '');
  return child === undefined ? path : join(path, child, false);
}

function join(path: string, part: string, index: boolean): string {
  if (index) return `${path}[${part}]`;
  // An empty member name still has to be named: the Error schema wants a non-empty field.
  const name = part === '' ? '""' : part;
  return path === '' ? name : `${path}.${name}`;
}

/** Limits of §8 that a schema keyword expresses, answered with the limit's own code. */
const LIMIT_CODES: Record<string, ErrorCode> = {
  'maxLength subject': 'subject_too_long',
  'maxItems cc': 'too_many_recipients',
  'maxItems bcc': 'too_many_recipients',
  'maxItems attachmentIds': 'too_many_attachments',
};

function toApiError(errors: ErrorObject[], limitCodes: Record<string, ErrorCode>): ApiError {
  const unknown = errors
    .filter((e) => e.keyword === 'additionalProperties')
    .map((e) => fieldPath(e.instancePath, String(e.params.additionalProperty)))
    .sort();
  if (unknown[0] !== undefined)
    return new ApiError(
      'unknown_field',
      `Unknown field "${quoteForMessage(unknown[0])}".`,
      unknown[0],
    );

  const missing = errors.find((e) => e.keyword === 'required');
  if (missing !== undefined) {
    const field = fieldPath(missing.instancePath, String(missing.params.missingProperty));
    return new ApiError('missing_field', `${quoteForMessage(field)} is required.`, field);
  }
  const empty = errors.find((e) => e.keyword === 'minProperties' && e.instancePath === '');
  if (empty !== undefined)
    return new ApiError('missing_field', 'Give at least one field to change.');

  // The innermost problem is the most specific; ajv lists them as it meets them.
  const error =
    errors.find((e) => !['anyOf', 'oneOf', 'allOf', 'if'].includes(e.keyword)) ?? errors[0];
  if (error === undefined) return new ApiError('invalid_field', 'The body is not valid.');
  const field = fieldPath(error.instancePath);
  // A path may hold member names the client made up (`variables.<name>`): quoted, bounded (D-62).
  const shown = quoteForMessage(field);
  const limit = limitCodes[`${error.keyword} ${field}`];
  if (limit !== undefined)
    return new ApiError(limit, `${shown} ${error.message ?? 'is too long'}.`, field);
  if (field === 'variables' || field.startsWith('variables.')) {
    return new ApiError(
      'invalid_variable',
      `Variables are a flat map of names ([A-Za-z_][A-Za-z0-9_]*) to strings, numbers or booleans: ${shown} ${error.message ?? 'is not valid'}.`,
      field,
    );
  }
  if (error.keyword === 'enum' && field === 'folder') {
    return new ApiError(
      'invalid_folder',
      `Unknown folder; use one of ${(error.params.allowedValues as string[]).join(', ')}.`,
      field,
    );
  }
  const where = field === '' ? 'The body' : shown;
  return new ApiError(
    'invalid_field',
    `${where} ${error.message ?? 'is not valid'}.`,
    field === '' ? undefined : field,
  );
}

/**
 * What one layer of the contract says of one response (spec/openapi.yaml, or its documented
 * layer): each way the response breaks it, with the pointers charged-rule.ts needs to find the
 * rule it is charged to.
 */
import type { ValidateFunction } from 'ajv/dist/2020.js';
import { resolvePointer, type Json } from './documented-contract.ts';
import { escapePointer, responsesPointer, type OperationMatch } from './operation-table.ts';

/** One problem found in one layer, with what is needed to locate its marks. */
export interface Finding {
  text: string;
  kind: 'operation' | 'status' | 'media' | 'body' | 'code';
  /** JSON pointer (into the layer's spec) of the response object, when there is one. */
  responsePointer?: string;
  schemaPointer?: string;
  instancePath?: string;
  keyword?: string;
  params?: Record<string, unknown>;
  status: number;
  match?: OperationMatch;
}

/** One layer of the contract: a spec and its id in ajv. */
export interface Layer {
  id: string;
  spec: Json;
}

/** What the contract says about one documented response. */
interface ExpectedResponse {
  /** JSON pointer (into the spec) of the JSON schema, when the response has a JSON body. */
  jsonSchemaPointer?: string;
  /** Other media types the response may have (e.g. binary downloads). */
  otherMediaTypes: string[];
  /** Error codes the contract lists for this response (`x-error-codes`). */
  errorCodes?: string[];
}

/** A response as the validator needs it: status, media type and the raw bytes. */
export interface ResponseToValidate {
  method: string;
  /** The path relative to `{base_url}`, e.g. `/emails/abc`. */
  path: string;
  status: number;
  contentType: string | null;
  body: Uint8Array;
}

/**
 * Every way a response breaks one layer of the contract: an operation or status the layer does
 * not document, a media type it does not allow, a body its schema refuses, an error code it does
 * not list. `[]` when the response conforms to the layer.
 */
export function responseFindings(
  layer: Layer,
  response: ResponseToValidate,
  match: OperationMatch | undefined,
  compile: (layer: Layer, pointer: string) => ValidateFunction,
): Finding[] {
  const status = response.status;
  if (match === undefined) {
    return [
      {
        kind: 'operation',
        status,
        text: `${response.method.toUpperCase()} ${response.path} is not an operation of the contract`,
      },
    ];
  }
  const where = `${match.operationId} (${match.method.toUpperCase()} ${match.pathTemplate}) status ${status}`;
  const expected = expectedResponse(layer, match, status);
  const base = { status, match };
  if (expected === undefined)
    return [{ ...base, kind: 'status', text: `${where}: the contract documents no such status` }];
  const at = { ...base, responsePointer: expected.pointer };

  const mediaType = response.contentType?.split(';')[0]?.trim().toLowerCase() ?? null;
  if (expected.jsonSchemaPointer === undefined && expected.otherMediaTypes.length === 0) {
    return response.body.length === 0
      ? []
      : [
          {
            ...at,
            kind: 'media',
            text: `${where}: expected no body, got ${response.body.length} bytes`,
          },
        ];
  }
  if (expected.jsonSchemaPointer === undefined) return []; // binary or other media: bytes are opaque
  if (mediaType !== 'application/json') {
    if (expected.otherMediaTypes.length > 0) return [];
    return [
      {
        ...at,
        kind: 'media',
        text: `${where}: expected Content-Type application/json, got ${response.contentType ?? 'none'}`,
      },
    ];
  }
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(response.body));
  } catch {
    return [{ ...at, kind: 'media', text: `${where}: body is not valid UTF-8 JSON` }];
  }
  const validate = compile(layer, expected.jsonSchemaPointer);
  const found: Finding[] = [];
  if (!validate(value)) {
    for (const error of validate.errors ?? []) {
      found.push({
        ...at,
        kind: 'body',
        schemaPointer: expected.jsonSchemaPointer,
        instancePath: error.instancePath,
        keyword: error.keyword,
        params: error.params as Record<string, unknown>,
        text: `${where}: body${error.instancePath || ''} ${error.message ?? 'is invalid'}`,
      });
    }
  }
  const code = (value as { code?: unknown } | null)?.code;
  if (
    expected.errorCodes !== undefined &&
    typeof code === 'string' &&
    !expected.errorCodes.includes(code)
  ) {
    found.push({
      ...at,
      kind: 'code',
      text: `${where}: error code "${code}" is not one the contract lists for this response (${expected.errorCodes.join(', ')})`,
    });
  }
  return found;
}

/** What the layer says of one status of an operation, and where it says it. */
function expectedResponse(
  layer: Layer,
  match: OperationMatch,
  status: number,
): (ExpectedResponse & { pointer: string }) | undefined {
  const pointerBase = responsesPointer(match);
  const responses = resolvePointer(layer.spec, pointerBase) as Json;
  const key = [String(status), `${String(status)[0]}XX`, 'default'].find((k) => k in responses);
  if (key === undefined) return undefined;
  let pointer = `${pointerBase}/${escapePointer(key)}`;
  let response = responses[key] as Json;
  if (typeof response.$ref === 'string') {
    pointer = response.$ref.slice(1);
    response = resolvePointer(layer.spec, pointer) as Json;
  }
  const content = (response.content ?? {}) as Json;
  const mediaTypes = Object.keys(content);
  const errorCodes = response['x-error-codes'] as string[] | undefined;
  const json = content['application/json'] as Json | undefined;
  return {
    pointer,
    ...(json?.schema !== undefined
      ? { jsonSchemaPointer: `${pointer}/content/application~1json/schema` }
      : {}),
    otherMediaTypes: mediaTypes.filter((t) => t !== 'application/json'),
    ...(errorCodes === undefined ? {} : { errorCodes }),
  };
}

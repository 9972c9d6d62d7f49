import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { parse } from 'yaml';

// ajv-formats is CommonJS; under NodeNext its default import is the module namespace.
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

/** The suite's own copy of the contract: it judges a deployment by this, not by what it serves. */
export const CONTRACT_PATH = fileURLToPath(new URL('../../spec/openapi.yaml', import.meta.url));

const METHODS = ['get', 'put', 'post', 'patch', 'delete', 'head', 'options', 'trace'] as const;
const SPEC_ID = 'mailtwin:openapi';

type Json = Record<string, unknown>;

/** What the contract says about one documented response. */
interface ExpectedResponse {
  /** JSON pointer (into the spec) of the JSON schema, when the response has a JSON body. */
  jsonSchemaPointer?: string;
  /** Other media types the response may have (e.g. binary downloads). */
  otherMediaTypes: string[];
  /** Error codes the contract lists for this response (`x-error-codes`). */
  errorCodes?: string[];
}

export interface OperationMatch {
  operationId: string;
  method: string;
  pathTemplate: string;
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
 * Validates every response the suite receives against spec/openapi.yaml with ajv (JSON Schema
 * 2020-12, the dialect of OpenAPI 3.1). Returns human-readable violations; empty means valid.
 */
export class SpecValidator {
  readonly spec: Json;
  private readonly ajv: Ajv2020;
  private readonly compiled = new Map<string, ValidateFunction>();
  private readonly routes: { method: string; template: string; regex: RegExp; operation: Json }[] =
    [];

  constructor(spec: Json = parse(readFileSync(CONTRACT_PATH, 'utf8')) as Json) {
    this.spec = spec;
    this.ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
    addFormats(this.ajv);
    this.ajv.addFormat('binary', true);
    this.ajv.addSchema(spec, SPEC_ID);
    const paths = (spec.paths ?? {}) as Record<string, Json>;
    for (const [template, item] of Object.entries(paths)) {
      for (const method of METHODS) {
        const operation = item[method] as Json | undefined;
        if (operation === undefined) continue;
        this.routes.push({ method, template, regex: templateToRegex(template), operation });
      }
    }
  }

  /** The operations of the contract as `METHOD /path` strings. */
  operationKeys(): string[] {
    return this.routes.map((r) => `${r.method.toUpperCase()} ${r.template}`).sort();
  }

  /** Finds the documented operation for a method and a concrete path, if any. */
  match(method: string, path: string): OperationMatch | undefined {
    const m = method.toLowerCase();
    // Literal segments win over parameters (`/emails/send` before `/emails/{emailId}`).
    const candidates = this.routes
      .filter((r) => r.method === m && r.regex.test(path))
      .sort((a, b) => literalWeight(b.template) - literalWeight(a.template));
    const route = candidates[0];
    if (route === undefined) return undefined;
    return {
      operationId: String(route.operation.operationId),
      method: m,
      pathTemplate: route.template,
    };
  }

  /** Every way the response breaks the contract, as sentences; `[]` when it conforms. */
  validate(response: ResponseToValidate): string[] {
    return this.validateResponse(response);
  }

  /** Every way a webhook delivery body breaks the contract's `webhooks.<event>` section. */
  validateWebhookBody(event: string, body: unknown): string[] {
    const pointer = `/webhooks/${escapePointer(event)}/post/requestBody/content/application~1json/schema`;
    if (this.resolvePointer(pointer) === undefined)
      return [`the contract describes no webhook event "${event}"`];
    const validate = this.compile(pointer);
    if (validate(body)) return [];
    return (validate.errors ?? []).map(
      (e) => `webhook ${event} body${e.instancePath || ''} ${e.message ?? 'is invalid'}`,
    );
  }

  private validateResponse(response: ResponseToValidate): string[] {
    const match = this.match(response.method, response.path);
    if (match === undefined) {
      return [
        `${response.method.toUpperCase()} ${response.path} is not an operation of the contract`,
      ];
    }
    const where = `${match.operationId} (${match.method.toUpperCase()} ${match.pathTemplate}) status ${response.status}`;
    const expected = this.expectedResponse(match, response.status);
    if (expected === undefined) return [`${where}: the contract documents no such status`];

    const mediaType = response.contentType?.split(';')[0]?.trim().toLowerCase() ?? null;
    if (expected.jsonSchemaPointer === undefined && expected.otherMediaTypes.length === 0) {
      return response.body.length === 0
        ? []
        : [`${where}: expected no body, got ${response.body.length} bytes`];
    }
    if (expected.jsonSchemaPointer === undefined) return []; // binary or other media: bytes are opaque
    if (mediaType !== 'application/json') {
      if (expected.otherMediaTypes.length > 0) return [];
      return [
        `${where}: expected Content-Type application/json, got ${response.contentType ?? 'none'}`,
      ];
    }
    let value: unknown;
    try {
      value = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(response.body));
    } catch {
      return [`${where}: body is not valid UTF-8 JSON`];
    }
    const validate = this.compile(expected.jsonSchemaPointer);
    const violations: string[] = [];
    if (!validate(value)) {
      for (const error of validate.errors ?? []) {
        violations.push(
          `${where}: body${error.instancePath || ''} ${error.message ?? 'is invalid'}`,
        );
      }
    }
    const code = (value as { code?: unknown } | null)?.code;
    if (
      expected.errorCodes !== undefined &&
      typeof code === 'string' &&
      !expected.errorCodes.includes(code)
    ) {
      violations.push(
        `${where}: error code "${code}" is not one the contract lists for this response (${expected.errorCodes.join(', ')})`,
      );
    }
    return violations;
  }

  private expectedResponse(match: OperationMatch, status: number): ExpectedResponse | undefined {
    const pointerBase = `/paths/${escapePointer(match.pathTemplate)}/${match.method}/responses`;
    const responses = this.resolvePointer(pointerBase) as Json;
    const key = [String(status), `${String(status)[0]}XX`, 'default'].find((k) => k in responses);
    if (key === undefined) return undefined;
    let pointer = `${pointerBase}/${key}`;
    let response = responses[key] as Json;
    if (typeof response.$ref === 'string') {
      pointer = response.$ref.slice(1);
      response = this.resolvePointer(pointer) as Json;
    }
    const content = (response.content ?? {}) as Json;
    const mediaTypes = Object.keys(content);
    const errorCodes = response['x-error-codes'] as string[] | undefined;
    return {
      ...('application/json' in content
        ? { jsonSchemaPointer: `${pointer}/content/application~1json/schema` }
        : {}),
      otherMediaTypes: mediaTypes.filter((t) => t !== 'application/json'),
      ...(errorCodes === undefined ? {} : { errorCodes }),
    };
  }

  private compile(pointer: string): ValidateFunction {
    let validate = this.compiled.get(pointer);
    if (validate === undefined) {
      validate = this.ajv.compile({ $ref: `${SPEC_ID}#${pointer}` });
      this.compiled.set(pointer, validate);
    }
    return validate;
  }

  private resolvePointer(pointer: string): unknown {
    return pointer
      .split('/')
      .slice(1)
      .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
      .reduce<unknown>((node, part) => (node as Json | undefined)?.[part], this.spec);
  }
}

function escapePointer(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

function templateToRegex(template: string): RegExp {
  const source = template
    .split(/(\{[^}]+\})/)
    .map((part) => (part.startsWith('{') ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${source}$`);
}

function literalWeight(template: string): number {
  return template.split('/').filter((s) => s !== '' && !s.startsWith('{')).length;
}

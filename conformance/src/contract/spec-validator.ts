import { readFileSync } from 'node:fs';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { parse } from 'yaml';
import {
  deref,
  documentedContract,
  marksAlong,
  marksOf,
  pickRule,
  resolvePointer,
  type Json,
} from './documented-contract.ts';
import { ruleById } from './rules.ts';
import { packagePath } from '../package-root.ts';

// ajv-formats is CommonJS; under NodeNext its default import is the module namespace.
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

/** The suite's own copy of the contract: it judges a deployment by this, not by what it serves. */
export const CONTRACT_PATH = packagePath('spec/openapi.yaml');

const METHODS = ['get', 'put', 'post', 'patch', 'delete', 'head', 'options', 'trace'] as const;
const SPEC_ID = 'mailtwin:openapi';
const DOCUMENTED_ID = 'mailtwin:openapi-documented';

/** Which layer of the contract a response broke (spec/openapi.yaml `x-contract-layers`). */
export type ContractLayer = 'documented' | 'decided';

/** How a response that breaks the contract is charged: one rule, and the layer it is in. */
export interface ContractCharge {
  /** The rule of conformance/rules.yaml the failure counts against. */
  ruleId: string;
  /**
   * `documented`: the response breaks what the service document requires (the rule fails).
   * `decided`: it breaks only parts spec/DECISIONS.md decided (the rule warns unless strict).
   */
  layer: ContractLayer;
}

/** Every way a response breaks the contract, and the one rule that is charged. */
export interface Judgement {
  /** Sentences naming the operation, status and problem, each ending in its layer and rule. */
  violations: string[];
  /** Absent when the response conforms. */
  charge?: ContractCharge;
}

/** One problem found in one layer, with what is needed to locate its marks. */
interface Finding {
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
interface Layer {
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
  /** The documented contract derived from `spec` (documented-contract.ts). */
  readonly documented: Json;
  private readonly ajv: Ajv2020;
  private readonly full: Layer;
  private readonly layer: Layer;
  private readonly isRule: (id: string, source: 'documented' | 'decided') => boolean;
  private readonly compiled = new Map<string, ValidateFunction>();
  private readonly routes: { method: string; template: string; regex: RegExp; operation: Json }[] =
    [];

  /**
   * `isRule` says whether an id is a rule of that source in conformance/rules.yaml (a charge
   * prefers one); tests may pass their own.
   */
  /** The target's own published document, when the run judges decided parts by it. */
  private readonly published: (SpecValidator & { origin: string }) | undefined;

  constructor(
    spec: Json = parse(readFileSync(CONTRACT_PATH, 'utf8')) as Json,
    isRule: (id: string, source: 'documented' | 'decided') => boolean = (id, source) =>
      ruleById(id)?.source === source,
    published?: { document: Json; origin: string },
  ) {
    this.spec = spec;
    this.documented = documentedContract(spec);
    this.isRule = isRule;
    this.full = { id: SPEC_ID, spec };
    this.layer = { id: DOCUMENTED_ID, spec: this.documented };
    this.ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
    addFormats(this.ajv);
    this.ajv.addFormat('binary', true);
    this.ajv.addSchema(spec, SPEC_ID);
    this.ajv.addSchema(this.documented, DOCUMENTED_ID);
    const paths = (spec.paths ?? {}) as Record<string, Json>;
    for (const [template, item] of Object.entries(paths)) {
      for (const method of METHODS) {
        const operation = item[method] as Json | undefined;
        if (operation === undefined) continue;
        this.routes.push({ method, template, regex: templateToRegex(template), operation });
      }
    }
    this.published =
      published === undefined
        ? undefined
        : Object.assign(new SpecValidator(published.document, isRule), {
            origin: published.origin,
          });
  }

  /** Every error code the contract lists for an operation (`x-error-codes` of its responses). */
  errorCodesOf(operationId: string): ReadonlySet<string> {
    const codes = new Set<string>();
    const route = this.routes.find((r) => r.operation.operationId === operationId);
    const responses = (route?.operation.responses ?? {}) as Record<string, Json>;
    for (const response of Object.values(responses)) {
      const resolved = deref(this.spec, response) as Json | undefined;
      const listed = resolved?.['x-error-codes'];
      if (Array.isArray(listed)) for (const code of listed) codes.add(String(code));
    }
    return codes;
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

  /**
   * Every way the response breaks the whole contract (both layers), as sentences; `[]` when it
   * conforms.
   */
  validate(response: ResponseToValidate): string[] {
    return this.findings(this.full, response).map((f) => f.text);
  }

  /**
   * Validates the response against both layers and charges a failure to one rule. Breaking the
   * documented contract is charged to the nearest `x-documented` rule (a documented rule
   * fails); a response that passes it but breaks the whole contract broke only decided parts,
   * and is charged to the nearest `x-decided` row that conformance/rules.yaml asserts.
   */
  judge(response: ResponseToValidate, canonical: ResponseToValidate = response): Judgement {
    const documented = this.findings(this.layer, response);
    const decidedFindings = () =>
      this.published === undefined
        ? this.findings(this.full, canonical).map((f) => ({
            finding: f,
            rule: this.decidedRule(f),
          }))
        : this.publishedFindings(response);
    if (documented.length > 0) {
      const rules = documented.map((f) => this.documentedRule(f));
      const decidedOnly = decidedFindings().filter(
        ({ finding }) => !documented.some((d) => d.text === finding.text),
      );
      return {
        violations: [
          ...documented.map((f, i) => `${f.text} [documented: ${rules[i]}]`),
          ...decidedOnly.map(({ finding, rule }) => `${finding.text} [decided: ${rule}]`),
        ],
        charge: { ruleId: rules[0]!, layer: 'documented' },
      };
    }
    const decided = decidedFindings();
    if (decided.length === 0) return { violations: [] };
    return {
      violations: decided.map(({ finding, rule }) => `${finding.text} [decided: ${rule}]`),
      charge: { ruleId: decided[0]!.rule, layer: 'decided' },
    };
  }

  /**
   * A response judged by the target's own published document, its decided layer (issue 26):
   * each finding says so, and is charged to the D-row our contract gives that answer.
   */
  private publishedFindings(response: ResponseToValidate): { finding: Finding; rule: string }[] {
    const published = this.published!;
    const ours = this.match(response.method, response.path);
    const theirs = published.match(response.method, response.path);
    if (ours === undefined || theirs === undefined) return [];
    return published.findings(published.full, response).map((finding) => {
      const rule = this.decidedRule({ ...finding, kind: 'status', match: ours });
      return {
        finding: {
          ...finding,
          text: `${finding.text} (the target's own published contract, ${published.origin})`,
        },
        rule,
      };
    });
  }

  /** Every way a webhook delivery body breaks the contract's `webhooks.<event>` section. */
  validateWebhookBody(event: string, body: unknown): string[] {
    const pointer = `/webhooks/${escapePointer(event)}/post/requestBody/content/application~1json/schema`;
    if (resolvePointer(this.spec, pointer) === undefined)
      return [`the contract describes no webhook event "${event}"`];
    const validate = this.compile(this.full, pointer);
    if (validate(body)) return [];
    return (validate.errors ?? []).map(
      (e) => `webhook ${event} body${e.instancePath || ''} ${e.message ?? 'is invalid'}`,
    );
  }

  /** The documented rule a finding of the documented layer is charged to. */
  private documentedRule(finding: Finding): string {
    const spec = this.documented;
    const isRule = (id: string) => this.isRule(id, 'documented');
    const fallback = finding.status >= 400 ? '7-R1' : '4-R2';
    if (finding.kind === 'operation') return '4-R3';
    const candidates: string[] = [];
    if (finding.kind === 'body' && finding.schemaPointer !== undefined) {
      candidates.push(
        ...marksAlong(
          spec,
          finding.schemaPointer,
          finding.instancePath ?? '',
          finding.keyword ?? '',
          finding.params,
        ).documented,
      );
    }
    if (finding.responsePointer !== undefined) {
      candidates.push(...marksOf(resolvePointer(spec, finding.responsePointer)).documented);
    }
    if (finding.kind === 'status' && finding.match !== undefined) {
      // A status the document does not allow: the documented statuses of its class say why.
      const responses = this.responsesOf(spec, finding.match);
      for (const [status, response] of Object.entries(responses)) {
        if (status[0] === String(finding.status)[0])
          candidates.push(...marksOf(deref(spec, response)).documented);
      }
    }
    return pickRule(candidates, isRule, fallback);
  }

  /** The decided rule a finding of the whole contract (the documented one passed) is charged to. */
  private decidedRule(finding: Finding): string {
    const spec = this.spec;
    const isRule = (id: string) => this.isRule(id, 'decided');
    const candidates: string[] = [];
    if (finding.kind === 'body' && finding.schemaPointer !== undefined) {
      candidates.push(
        ...marksAlong(
          spec,
          finding.schemaPointer,
          finding.instancePath ?? '',
          finding.keyword ?? '',
          finding.params,
        ).decided,
      );
    }
    if (finding.responsePointer !== undefined) {
      candidates.push(...marksOf(resolvePointer(spec, finding.responsePointer)).decided);
    }
    if (finding.kind === 'status' && finding.match !== undefined) {
      // A status of a class whose statuses are decided: the row they share comes first (D-12
      // for errors), then each one's own.
      const rows = Object.entries(this.responsesOf(spec, finding.match))
        .filter(([status]) => status[0] === String(finding.status)[0])
        .map(([, response]) => marksOf(deref(spec, response)).decided);
      const shared =
        rows.length === 0 ? [] : rows[0]!.filter((r) => rows.every((x) => x.includes(r)));
      candidates.push(...shared.filter(isRule), ...rows.flat());
    }
    return pickRule(candidates, isRule, 'D-12');
  }

  private responsesOf(spec: Json, match: OperationMatch): Json {
    const pointer = `/paths/${escapePointer(match.pathTemplate)}/${match.method}/responses`;
    return (resolvePointer(spec, pointer) ?? {}) as Json;
  }

  private findings(layer: Layer, response: ResponseToValidate): Finding[] {
    const status = response.status;
    const match = this.match(response.method, response.path);
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
    const expected = this.expectedResponse(layer, match, status);
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
    const validate = this.compile(layer, expected.jsonSchemaPointer);
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

  private expectedResponse(
    layer: Layer,
    match: OperationMatch,
    status: number,
  ): (ExpectedResponse & { pointer: string }) | undefined {
    const pointerBase = `/paths/${escapePointer(match.pathTemplate)}/${match.method}/responses`;
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

  private compile(layer: Layer, pointer: string): ValidateFunction {
    const key = `${layer.id}#${pointer}`;
    let validate = this.compiled.get(key);
    if (validate === undefined) {
      validate = this.ajv.compile({ $ref: key });
      this.compiled.set(key, validate);
    }
    return validate;
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

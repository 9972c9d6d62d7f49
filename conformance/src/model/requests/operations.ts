/**
 * Schema walking: spec/openapi.yaml parsed once, an operation's request schema, kind, success
 * status and `x-limits` (OperationInfo), and the small helpers that follow local `$ref`s and
 * read an object schema's properties and types.
 */
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { CONTRACT_PATH } from '../../contract/spec-validator.ts';
import type { Json, RequestKind, Schema } from './request-types.ts';

let contractCache: Json | undefined;

/** spec/openapi.yaml, parsed once. */
export function contract(): Json {
  contractCache ??= parse(readFileSync(CONTRACT_PATH, 'utf8')) as Json;
  return contractCache;
}

const METHODS = ['get', 'put', 'post', 'patch', 'delete'];

/** A limit of `x-limits` that applies to an operation, with the field and keyword it bounds. */
export interface Limit {
  name: string;
  value: number;
  errorCode: string;
  field: string;
  keyword: 'maxLength' | 'maxItems' | 'maximum' | 'count';
}

export interface OperationInfo {
  operationId: string;
  method: string;
  /** The path template, e.g. `/emails/{emailId}/reply`. */
  path: string;
  kind: RequestKind;
  /** The request schema; for listEmails an object schema made of the query parameters. */
  schema: Schema;
  /** The documented 2xx status. */
  successStatus: number;
  /** `x-error-codes` of the 400 response. */
  badRequestCodes: string[];
  limits: Limit[];
}

/**
 * §8 names each limit; which request field it measures is prose (the limit's name), so it is
 * written down here and checked against the schema keyword carrying the same value.
 */
const LIMIT_FIELDS: Record<string, { fields: string[]; keyword: Limit['keyword'] }> = {
  subjectLength: { fields: ['subject'], keyword: 'maxLength' },
  recipientsPerMessage: { fields: ['cc', 'bcc'], keyword: 'maxItems' },
  attachmentsPerMessage: { fields: ['attachmentIds'], keyword: 'maxItems' },
  pageSize: { fields: ['limit'], keyword: 'maximum' },
  filesPerUpload: { fields: ['file'], keyword: 'count' },
};

const infoCache = new Map<string, OperationInfo>();

export function operationInfo(operationId: string, spec: Json = contract()): OperationInfo {
  const cached = spec === contract() ? infoCache.get(operationId) : undefined;
  if (cached !== undefined) return cached;
  for (const [path, item] of Object.entries((spec.paths ?? {}) as Record<string, Json>)) {
    for (const method of METHODS) {
      const operation = item[method] as Json | undefined;
      if (operation?.operationId !== operationId) continue;
      const info = describeOperation(spec, operationId, method, path, operation);
      if (spec === contract()) infoCache.set(operationId, info);
      return info;
    }
  }
  throw new Error(`spec/openapi.yaml has no operation ${operationId}`);
}

function describeOperation(
  spec: Json,
  operationId: string,
  method: string,
  path: string,
  operation: Json,
): OperationInfo {
  const responses = (operation.responses ?? {}) as Record<string, Json>;
  const successStatus = Number(Object.keys(responses).find((s) => /^2\d\d$/.test(s)));
  const bad = resolveRef(spec, responses['400'] ?? {});
  const badRequestCodes = (bad['x-error-codes'] as string[] | undefined) ?? [];
  const content = (resolveRef(spec, (operation.requestBody ?? {}) as Json).content ?? {}) as Record<
    string,
    Json
  >;
  let kind: RequestKind;
  let schema: Schema;
  if (content['application/json'] !== undefined) {
    kind = 'json';
    schema = deref(spec, content['application/json'].schema as Schema).schema;
  } else if (content['multipart/form-data'] !== undefined) {
    kind = 'multipart';
    schema = deref(spec, content['multipart/form-data'].schema as Schema).schema;
  } else {
    kind = 'query';
    const parameters = ((operation.parameters ?? []) as Json[])
      .map((p) => resolveRef(spec, p))
      .filter((p) => p.in === 'query');
    schema = {
      type: 'object',
      properties: Object.fromEntries(parameters.map((p) => [p.name, p.schema])),
      required: parameters.filter((p) => p.required === true).map((p) => p.name),
    };
  }
  const limits: Limit[] = [];
  for (const [name, limit] of Object.entries((spec['x-limits'] ?? {}) as Record<string, Json>)) {
    if (typeof limit !== 'object' || limit === null) continue;
    const applies = limit.appliesTo;
    if (applies !== 'all' && !(Array.isArray(applies) && applies.includes(operationId))) continue;
    const mapping = LIMIT_FIELDS[name];
    if (mapping === undefined) continue;
    for (const field of mapping.fields) {
      const property = propertiesOf(spec, schema).find(([n]) => n === field);
      if (property === undefined && mapping.keyword !== 'count') continue;
      if (property !== undefined && mapping.keyword !== 'count') {
        const bound = property[1][mapping.keyword];
        if (bound !== limit.value) {
          throw new Error(
            `x-limits.${name} is ${String(limit.value)} but ${operationId} ${field} has ${mapping.keyword} ${String(bound)}`,
          );
        }
      }
      limits.push({
        name,
        value: Number(limit.value),
        errorCode: String(limit.errorCode),
        field,
        keyword: mapping.keyword,
      });
    }
  }
  return { operationId, method, path, kind, schema, successStatus, badRequestCodes, limits };
}

function resolveRef(spec: Json, node: Json): Json {
  return deref(spec, node).schema;
}

/** Follows local `$ref`s, keeping sibling keywords; returns the last component name met. */
export function deref(spec: Json, node: Json): { schema: Schema; ref?: string } {
  let schema = node;
  let ref: string | undefined;
  for (let depth = 0; typeof schema.$ref === 'string'; depth += 1) {
    if (depth > 20) throw new Error(`$ref loop at ${schema.$ref}`);
    const pointer = schema.$ref;
    if (!pointer.startsWith('#/')) throw new Error(`only local $refs are supported: ${pointer}`);
    const target = pointer
      .slice(2)
      .split('/')
      .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
      .reduce<unknown>((n, part) => (n as Json | undefined)?.[part], spec) as Json | undefined;
    if (target === undefined) throw new Error(`unresolved $ref ${pointer}`);
    ref = pointer.slice(pointer.lastIndexOf('/') + 1);
    const { $ref: _ignored, ...siblings } = schema;
    schema = { ...target, ...siblings };
  }
  return ref === undefined ? { schema } : { schema, ref };
}

/** The properties of an object schema, each dereferenced. */
export function propertiesOf(spec: Json, schema: Schema): [string, Schema, string | undefined][] {
  return Object.entries((schema.properties ?? {}) as Record<string, Json>).map(([name, s]) => {
    const { schema: resolved, ref } = deref(spec, s);
    return [name, resolved, ref];
  });
}

export function typesOf(schema: Schema): string[] {
  if (Array.isArray(schema.type)) return schema.type as string[];
  if (typeof schema.type === 'string') return [schema.type];
  if (Array.isArray(schema.enum)) return [...new Set(schema.enum.map(jsonType))];
  return [];
}

function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

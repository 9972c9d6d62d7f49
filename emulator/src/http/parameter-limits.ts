import type { MiddlewareHandler } from 'hono';
import { ApiError, ERROR_STATUS, type ErrorCode } from '../errors.ts';
import type { OpenApiDocument } from '../spec.ts';

type Json = Record<string, unknown>;

/** A path or query parameter the spec bounds with `maxLength`. */
interface BoundedParameter {
  name: string;
  in: 'path' | 'query';
  maxLength: number;
  code: ErrorCode;
}

/** One operation of the spec, as a matcher on the path below the contract's base path. */
interface Operation {
  template: string;
  method: string;
  pattern: RegExp;
  /** The path parameters' names, in the order of the pattern's groups. */
  names: string[];
  bounded: BoundedParameter[];
}

const METHODS = ['get', 'put', 'post', 'patch', 'delete'];

/**
 * Refuses a path or query parameter longer than its `maxLength` in the spec with 400 naming it
 * (D-51): `invalid_field`, or the code `x-limits` gives that parameter. It runs before any route,
 * so an over-long ID is refused, never looked up and answered 404 (D-52), and the bound the
 * emulator applies is the spec's own value, read from the document, for the API and the control
 * plane alike. Lengths are counted in code points (D-9), as JSON Schema counts them.
 */
export function parameterLimits(spec: OpenApiDocument, basePath: string): MiddlewareHandler {
  const operations = operationsOf(spec);
  return async (c, next) => {
    const { pathname } = new URL(c.req.url);
    if (pathname.startsWith(`${basePath}/`)) {
      const operation = find(operations, pathname.slice(basePath.length), c.req.method);
      if (operation !== undefined)
        check(operation, pathname.slice(basePath.length), c.req.queries());
    }
    await next();
  };
}

function check(operation: Operation, path: string, queries: Record<string, string[]>): void {
  const segments = operation.pattern.exec(path)?.slice(1) ?? [];
  const pathValues = new Map(operation.names.map((name, i) => [name, decode(segments[i] ?? '')]));
  for (const parameter of operation.bounded) {
    const values =
      parameter.in === 'path'
        ? [pathValues.get(parameter.name) ?? '']
        : (queries[parameter.name] ?? []);
    for (const value of values) {
      if (codePointsOver(value, parameter.maxLength)) {
        throw new ApiError(
          parameter.code,
          `${parameter.name} is longer than ${parameter.maxLength} characters.`,
          parameter.name,
        );
      }
    }
  }
}

/** The operation for `path` and `method`; a literal path (`/emails/send`) beats a template. */
function find(operations: Operation[], path: string, method: string): Operation | undefined {
  const matching = operations.filter((o) => o.pattern.test(path));
  const literal = matching.filter((o) => o.names.length === 0);
  const candidates = literal.length > 0 ? literal : matching;
  return candidates.find((o) => o.method === method.toLowerCase());
}

function operationsOf(spec: OpenApiDocument): Operation[] {
  const limits = limitCodes(spec);
  const operations: Operation[] = [];
  for (const [template, item] of Object.entries((spec.paths ?? {}) as Record<string, Json>)) {
    const names: string[] = [];
    const source = template
      .split(/(\{[^}]+\})/)
      .map((part) => {
        const name = /^\{([^}]+)\}$/.exec(part)?.[1];
        if (name === undefined) return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
        names.push(name);
        return '([^/]+)';
      })
      .join('');
    const pattern = new RegExp(`^${source}/?$`);
    for (const method of METHODS) {
      const operation = item[method] as Json | undefined;
      if (operation === undefined) continue;
      const parameters = [
        ...((item.parameters ?? []) as Json[]),
        ...((operation.parameters ?? []) as Json[]),
      ].map((p) => resolve(spec, p));
      const bounded: BoundedParameter[] = [];
      for (const parameter of parameters) {
        const schema = resolve(spec, (parameter.schema ?? {}) as Json);
        if (parameter.in !== 'path' && parameter.in !== 'query') continue;
        if (typeof schema.maxLength !== 'number') continue;
        const name = String(parameter.name);
        bounded.push({
          name,
          in: parameter.in,
          maxLength: schema.maxLength,
          code: limits.get(`${String(operation.operationId)} ${name}`) ?? 'invalid_field',
        });
      }
      operations.push({ template, method, pattern, names, bounded });
    }
  }
  return operations;
}

/** `operationId name` → the error code `x-limits` gives a parameter's `maxLength`. */
function limitCodes(spec: OpenApiDocument): Map<string, ErrorCode> {
  const codes = new Map<string, ErrorCode>();
  for (const limit of Object.values((spec['x-limits'] ?? {}) as Record<string, unknown>)) {
    if (typeof limit !== 'object' || limit === null) continue;
    const { keyword, fields, appliesTo, errorCode } = limit as Json;
    if (keyword !== 'maxLength' || !Array.isArray(fields) || !Array.isArray(appliesTo)) continue;
    if (typeof errorCode !== 'string' || !(errorCode in ERROR_STATUS)) continue;
    for (const operationId of appliesTo)
      for (const field of fields)
        codes.set(`${String(operationId)} ${String(field)}`, errorCode as ErrorCode);
  }
  return codes;
}

/** Follows a local `$ref` (`#/components/parameters/EmailId`). */
function resolve(spec: OpenApiDocument, node: Json): Json {
  let current = node;
  for (let depth = 0; typeof current.$ref === 'string' && depth < 10; depth += 1) {
    const target = current.$ref
      .replace(/^#\//, '')
      .split('/')
      .reduce<unknown>((n, key) => (n as Json | undefined)?.[key], spec);
    current = (target ?? {}) as Json;
  }
  return current;
}

/** A path segment as the routes see it (Hono decodes `%2F`); a malformed escape stays as sent. */
function decode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** Whether `value` has more than `max` code points, without splitting a huge value apart. */
function codePointsOver(value: string, max: number): boolean {
  if (value.length <= max) return false;
  let count = 0;
  for (const _ of value) {
    count += 1;
    if (count > max) return true;
  }
  return false;
}

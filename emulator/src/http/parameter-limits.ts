import type { MiddlewareHandler } from 'hono';
import { ApiError, ERROR_STATUS, type ErrorCode } from '../errors.ts';
import type { OpenApiDocument } from '../spec.ts';
import { pathnameOf, queriesOf } from './request-url.ts';
import { passesOn } from './one-handler.ts';

type Json = Record<string, unknown>;

/** A path or query parameter the spec bounds with `maxLength`. */
interface BoundedParameter {
  name: string;
  in: 'path' | 'query';
  maxLength: number;
  code: ErrorCode;
  /** A path parameter's segment (below the base path). */
  segment?: number;
}

/** One operation of the spec, as a matcher on the path below the contract's base path. */
interface Operation {
  template: string;
  method: string;
  /** Each path segment: a literal to equal, or (null) a parameter taking any non-empty segment. */
  segments: (string | null)[];
  /** The path parameters' names, in the order of their segments. */
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
  const bySegmentCount = new Map<number, Operation[]>();
  for (const operation of operationsOf(spec)) {
    const same = bySegmentCount.get(operation.segments.length) ?? [];
    same.push(operation);
    bySegmentCount.set(operation.segments.length, same);
  }
  const prefix = `${basePath}/`;
  /** What each method and path asks to check, or null for nothing (most paths have no bound). */
  const checks = new Map<string, Bounded | null>();
  const checksOf = (method: string, pathname: string): Bounded | null => {
    if (!pathname.startsWith(prefix)) return null;
    // `/emails/x/` is `/emails/x`, as the spec's paths match with an optional final slash.
    const segments = pathname.slice(prefix.length).split('/');
    if (segments.length > 1 && segments.at(-1) === '') segments.pop();
    const operation = find(bySegmentCount.get(segments.length) ?? [], segments, method);
    return operation !== undefined && operation.bounded.length > 0 ? { operation, segments } : null;
  };
  // Not async: a request passes with its route's own promise, one fewer a request.
  return passesOn((c, next) => {
    const pathname = pathnameOf(c.req.url);
    let bounded: Bounded | null | undefined;
    if (pathname.length > MAX_KEPT_PATH) bounded = checksOf(c.req.method, pathname);
    else {
      const key = `${c.req.method} ${pathname}`;
      bounded = checks.get(key);
      if (bounded === undefined) {
        bounded = checksOf(c.req.method, pathname);
        if (checks.size >= MAX_KEPT) checks.clear();
        checks.set(key, bounded);
      }
    }
    if (bounded !== null) check(c, bounded.operation, bounded.segments);
    return next();
  });
}

/** An operation with bounded parameters, and the path's segments that name it. */
interface Bounded {
  operation: Operation;
  segments: readonly string[];
}

/**
 * The methods and paths whose operation is remembered (issue 31 item 1: matching it filtered
 * every operation of the spec on every request), as the router remembers its matches; a
 * longer path is matched each time, not kept.
 */
const MAX_KEPT = 1024;
const MAX_KEPT_PATH = 256;

function check(
  c: Parameters<MiddlewareHandler>[0],
  operation: Operation,
  segments: readonly string[],
): void {
  let queries: Record<string, string[]> | undefined;
  for (const parameter of operation.bounded) {
    let values: string[];
    if (parameter.in === 'path') {
      values = [decode(segments[parameter.segment ?? -1] ?? '')];
    } else {
      queries ??= queriesOf(c);
      values = queries[parameter.name] ?? [];
    }
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

/**
 * The operation for `segments` and `method` among those with as many segments; a literal path
 * (`/emails/send`) beats a template, whatever the method.
 */
function find(
  operations: Operation[],
  segments: readonly string[],
  method: string,
): Operation | undefined {
  const matching = operations.filter((o) =>
    o.segments.every((want, i) => (want === null ? segments[i] !== '' : want === segments[i])),
  );
  const literal = matching.filter((o) => o.names.length === 0);
  const candidates = literal.length > 0 ? literal : matching;
  const lower = method.toLowerCase();
  return candidates.find((o) => o.method === lower);
}

function operationsOf(spec: OpenApiDocument): Operation[] {
  const limits = limitCodes(spec);
  const operations: Operation[] = [];
  for (const [template, item] of Object.entries((spec.paths ?? {}) as Record<string, Json>)) {
    const names: string[] = [];
    const segments = template
      .slice(1)
      .split('/')
      .map((part) => {
        const name = /^\{([^}]+)\}$/.exec(part)?.[1];
        if (name === undefined) {
          if (part.includes('{'))
            throw new Error(`parameterLimits: ${template}: a parameter must be a whole segment`);
          return part;
        }
        names.push(name);
        return null;
      });
    const segmentOf = (name: string) =>
      segments.findIndex((part, i) => part === null && template.split('/')[i + 1] === `{${name}}`);
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
          ...(parameter.in === 'path' ? { segment: segmentOf(name) } : {}),
        });
      }
      operations.push({ template, method, segments, names, bounded });
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

/**
 * Every bound a spec puts on what a client sends, read from the document itself: the
 * `maxLength` of path and query parameters, and the `maxLength`, `maxItems` and `maxProperties`
 * of JSON request bodies (members, items of lists, members of the objects in lists). The limit
 * tests walk this list, so a bound added to the spec is tested without anyone writing a test.
 */
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { CONTROL_SPEC_PATH } from '../../../emulator/src/routes/control/body.ts';
import { SPEC_PATH } from '../../../emulator/src/spec.ts';

export type Json = Record<string, unknown>;
export type Keyword = 'maxLength' | 'maxItems' | 'maxProperties';
export const KEYWORDS: readonly Keyword[] = ['maxLength', 'maxItems', 'maxProperties'];

export interface SpecFile {
  /** `openapi` (the API, under /openapi/v1) or `control` (the control plane, /_mailtwin/v1). */
  name: 'openapi' | 'control';
  path: string;
  basePath: string;
  document: Json;
}

export const SPEC_FILES: readonly SpecFile[] = [
  { name: 'openapi', path: SPEC_PATH, basePath: '/openapi/v1', document: load(SPEC_PATH) },
  {
    name: 'control',
    path: CONTROL_SPEC_PATH,
    basePath: '/_mailtwin/v1',
    document: load(CONTROL_SPEC_PATH),
  },
];

function load(path: string): Json {
  return parse(readFileSync(path, 'utf8')) as Json;
}

/** One operation, with what it takes. */
export interface Operation {
  spec: SpecFile;
  operationId: string;
  method: string;
  /** The path template, `/emails/{emailId}`. */
  template: string;
  parameters: Json[];
  /** The JSON request body's schema, dereferenced; undefined when the body is not JSON. */
  body: Json | undefined;
  /** `x-error-codes` of the 400 answer. */
  badRequestCodes: string[];
}

/** Where a bound sits: a parameter, or a path into the body (`['attachments', 0, 'name']`). */
export interface RequestLimit {
  operation: Operation;
  in: 'path' | 'query' | 'body';
  /** The parameter's name, or the body path; a number is the first item of a list. */
  at: (string | number)[];
  keyword: Keyword;
  value: number;
  /** The schema carrying the bound (for a list's items, the items' schema). */
  schema: Json;
}

const METHODS = ['get', 'put', 'post', 'patch', 'delete'];

/** Follows local `$ref`s, keeping sibling keywords (a `description` beside a `$ref`). */
export function deref(document: Json, node: unknown): Json {
  let schema = (node ?? {}) as Json;
  for (let depth = 0; typeof schema.$ref === 'string'; depth += 1) {
    if (depth > 20) throw new Error(`$ref loop at ${schema.$ref}`);
    const ref = schema.$ref;
    if (!ref.startsWith('#/')) throw new Error(`not a local $ref: ${ref}`);
    const target = ref
      .slice(2)
      .split('/')
      .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
      .reduce<unknown>((n, key) => (n as Json | undefined)?.[key], document);
    if (target === undefined) throw new Error(`unresolved $ref ${ref}`);
    const { $ref: _ref, ...siblings } = schema;
    schema = { ...(target as Json), ...siblings };
  }
  return schema;
}

export function operationsOf(spec: SpecFile): Operation[] {
  const operations: Operation[] = [];
  const doc = spec.document;
  for (const [template, item] of Object.entries((doc.paths ?? {}) as Record<string, Json>)) {
    for (const method of METHODS) {
      const operation = item[method] as Json | undefined;
      if (operation === undefined) continue;
      const parameters = [
        ...((item.parameters ?? []) as Json[]),
        ...((operation.parameters ?? []) as Json[]),
      ].map((p) => deref(doc, p));
      const content = (deref(doc, operation.requestBody).content ?? {}) as Record<string, Json>;
      const json = content['application/json'];
      const bad = deref(doc, ((operation.responses ?? {}) as Json)['400']);
      operations.push({
        spec,
        operationId: String(operation.operationId),
        method,
        template,
        parameters,
        body: json === undefined ? undefined : deref(doc, json.schema),
        badRequestCodes: (bad['x-error-codes'] as string[] | undefined) ?? [],
      });
    }
  }
  return operations;
}

/** Every bound of every request of `spec`. */
export function requestLimits(spec: SpecFile): RequestLimit[] {
  const limits: RequestLimit[] = [];
  const doc = spec.document;
  for (const operation of operationsOf(spec)) {
    for (const parameter of operation.parameters) {
      const schema = deref(doc, parameter.schema);
      if (parameter.in !== 'path' && parameter.in !== 'query') continue;
      if (typeof schema.maxLength !== 'number') continue;
      limits.push({
        operation,
        in: parameter.in,
        at: [String(parameter.name)],
        keyword: 'maxLength',
        value: schema.maxLength,
        schema,
      });
    }
    if (operation.body !== undefined) walkBody(doc, operation, operation.body, [], limits);
  }
  return limits;
}

function walkBody(
  doc: Json,
  operation: Operation,
  schema: Json,
  at: (string | number)[],
  limits: RequestLimit[],
): void {
  for (const [name, member] of Object.entries((schema.properties ?? {}) as Json)) {
    const resolved = deref(doc, member);
    const here = [...at, name];
    for (const keyword of KEYWORDS) {
      const value = resolved[keyword];
      if (typeof value === 'number')
        limits.push({ operation, in: 'body', at: here, keyword, value, schema: resolved });
    }
    if (resolved.items !== undefined) {
      const items = deref(doc, resolved.items);
      if (typeof items.maxLength === 'number') {
        limits.push({
          operation,
          in: 'body',
          at: [...here, 0],
          keyword: 'maxLength',
          value: items.maxLength,
          schema: items,
        });
      }
      if (items.properties !== undefined) walkBody(doc, operation, items, [...here, 0], limits);
    }
    if (resolved.properties !== undefined) walkBody(doc, operation, resolved, here, limits);
  }
}

/** The `field` an error names for a location: `cc[0]`, `attachments[0].name`, `emailId`. */
export function fieldOf(at: (string | number)[]): string {
  return at.reduce<string>(
    (path, part) =>
      typeof part === 'number' ? `${path}[${part}]` : path === '' ? part : `${path}.${part}`,
    '',
  );
}

/** How a limit reads in a test name: `POST /emails/send cc[0] maxLength 400`. */
export function describeLimit(limit: RequestLimit): string {
  const { method, template } = limit.operation;
  return `${method.toUpperCase()} ${template} ${fieldOf(limit.at)} ${limit.keyword} ${limit.value}`;
}

/** One bound anywhere in a document, with the name of what it bounds. */
export interface Bound {
  /** The member, parameter or list it bounds; a component schema's name, lower-cased first. */
  name: string;
  keyword: Keyword;
  value: number;
  /** Where it is, as a JSON pointer without the leading `#`. */
  pointer: string;
}

/**
 * Every `maxLength`, `maxItems` and `maxProperties` anywhere in a document, responses included,
 * with the name of the member, parameter or list it bounds (the items of `cc` are `cc`'s).
 */
export function everyBound(document: Json): Bound[] {
  const found: Bound[] = [];
  const visit = (node: unknown, pointer: string[], name: string | undefined): void => {
    if (typeof node !== 'object' || node === null) return;
    if (Array.isArray(node)) {
      node.forEach((child, i) => visit(child, [...pointer, String(i)], name));
      return;
    }
    const object = node as Json;
    // A parameter names what its schema bounds.
    const own =
      typeof object.name === 'string' && typeof object.in === 'string' ? object.name : name;
    for (const keyword of KEYWORDS) {
      const value = object[keyword];
      if (typeof value === 'number' && own !== undefined)
        found.push({ name: own, keyword, value, pointer: `/${pointer.join('/')}` });
    }
    const parent = pointer.at(-1);
    for (const [key, child] of Object.entries(object)) {
      if (['example', 'examples', 'x-limits'].includes(key) && parent !== 'properties') continue;
      let childName = own;
      if (parent === 'properties') childName = key;
      else if (parent === 'schemas') childName = key.charAt(0).toLowerCase() + key.slice(1);
      else if (key === 'properties') childName = undefined;
      visit(child, [...pointer, key.replace(/~/g, '~0').replace(/\//g, '~1')], childName);
    }
  };
  visit(document, [], undefined);
  return found;
}

/** Whether a schema takes strings: `type: string`, a type list with it, or an enum of strings. */
export function takesStrings(schema: Json): boolean {
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  if (types.includes('string')) return true;
  return Array.isArray(schema.enum) && schema.enum.some((v) => typeof v === 'string');
}

/** Every place of every request that takes a string: parameters, body members, list items. */
export function stringPlaces(spec: SpecFile): Omit<RequestLimit, 'keyword' | 'value'>[] {
  const doc = spec.document;
  const places: Omit<RequestLimit, 'keyword' | 'value'>[] = [];
  const walk = (operation: Operation, schema: Json, at: (string | number)[]): void => {
    for (const [name, member] of Object.entries((schema.properties ?? {}) as Json)) {
      const resolved = deref(doc, member);
      if (takesStrings(resolved))
        places.push({ operation, in: 'body', at: [...at, name], schema: resolved });
      const items = resolved.items === undefined ? undefined : deref(doc, resolved.items);
      if (items !== undefined && takesStrings(items))
        places.push({ operation, in: 'body', at: [...at, name, 0], schema: items });
      if (items?.properties !== undefined) walk(operation, items, [...at, name, 0]);
      if (resolved.properties !== undefined) walk(operation, resolved, [...at, name]);
    }
  };
  for (const operation of operationsOf(spec)) {
    for (const parameter of operation.parameters) {
      const schema = deref(doc, parameter.schema);
      if ((parameter.in === 'path' || parameter.in === 'query') && takesStrings(schema))
        places.push({ operation, in: parameter.in, at: [String(parameter.name)], schema });
    }
    if (operation.body !== undefined) walk(operation, operation.body, []);
  }
  return places;
}

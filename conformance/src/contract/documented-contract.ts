/**
 * Two layers in the contract (issue 14 item 1). spec/openapi.yaml marks what the service
 * document requires `x-documented: <rule id>` and what mailtwin decided `x-decided: D-n` (a
 * row of spec/DECISIONS.md, or a list), on a whole schema, property, response or parameter, or
 * `x-decided: {<keyword>: D-n}` on one keyword of a schema. From the marks this module derives
 * the documented contract (every decided part relaxed), and tells which rule a failure of
 * either layer is charged to: a vendor that makes another allowed choice breaks only decided
 * parts, and is warned on the D-rule, not failed on a documented one.
 */

export type Json = Record<string, unknown>;

/** The marks of one node of the spec. */
export interface Marks {
  /** D-rows the whole node encodes (`x-decided: D-n` or a list). */
  decided: string[];
  /** D-rows of single keywords (`x-decided: {enum: D-5}`). */
  decidedKeywords: Record<string, string[]>;
  /** Documented rules the node comes from (`x-documented: 4.6-R1` or a list). */
  documented: string[];
}

/** Rows along a failure, innermost first. */
export interface Candidates {
  decided: string[];
  documented: string[];
}

const SCHEMA_CHILDREN = ['items', 'not', 'contains', 'propertyNames', 'if', 'then', 'else'];
const SCHEMA_LISTS = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];
const SCHEMA_MAPS = ['properties', 'patternProperties', '$defs', 'dependentSchemas'];
const METHODS = ['get', 'put', 'post', 'patch', 'delete', 'head', 'options', 'trace'];

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function list(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

/** Reads a node's `x-decided` and `x-documented`. */
export function marksOf(node: unknown): Marks {
  if (!isObject(node)) return { decided: [], decidedKeywords: {}, documented: [] };
  const raw = node['x-decided'];
  const decidedKeywords: Record<string, string[]> = {};
  if (isObject(raw)) for (const [k, v] of Object.entries(raw)) decidedKeywords[k] = list(v);
  return {
    decided: isObject(raw) ? [] : list(raw),
    decidedKeywords,
    documented: list(node['x-documented']),
  };
}

function isWholeDecided(node: unknown): boolean {
  return marksOf(node).decided.length > 0;
}

/** Resolves a local JSON pointer (`/components/schemas/Error` or `#/…`). */
export function resolvePointer(spec: Json, pointer: string): unknown {
  return pointer
    .replace(/^#/, '')
    .split('/')
    .slice(1)
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce<unknown>((node, part) => (isObject(node) ? node[part] : undefined), spec);
}

/** A node with its local `$ref` chain followed (a Reference Object, or a schema's `$ref`). */
export function deref(spec: Json, node: unknown): unknown {
  let current = node;
  for (let i = 0; i < 32 && isObject(current) && typeof current.$ref === 'string'; i += 1) {
    if (!current.$ref.startsWith('#/')) break;
    current = resolvePointer(spec, current.$ref);
  }
  return current;
}

// ---------------------------------------------------------------------------------------------
// The documented contract.

/**
 * The documented contract: `spec` with every decided part relaxed. A whole-decided schema or
 * property accepts any value (and a property so marked is no longer required); a decided
 * keyword is dropped (an enum widens to its type, `additionalProperties: false` opens, a limit
 * goes); the decided statuses of an operation stand for their class (`4XX`, with the union of
 * their bodies) unless a documented status of that class is listed; `x-error-codes` go.
 * Documented parts stay as they are.
 */
export function documentedContract(spec: Json): Json {
  const doc = structuredClone(spec);
  const components = isObject(doc.components) ? doc.components : {};
  const schemas = isObject(components.schemas) ? components.schemas : {};
  for (const [name, schema] of Object.entries(schemas)) schemas[name] = relaxSchema(schema);
  relaxInlineSchemas(doc.paths);
  relaxInlineSchemas(doc.webhooks);
  relaxInlineSchemas(components.responses);
  relaxInlineSchemas(components.parameters);
  for (const section of ['paths', 'webhooks']) {
    const items = isObject(doc[section]) ? (doc[section] as Json) : {};
    for (const item of Object.values(items)) {
      if (!isObject(item)) continue;
      for (const method of METHODS) {
        const operation = item[method];
        if (isObject(operation) && isObject(operation.responses)) {
          operation.responses = relaxResponses(doc, operation.responses);
        }
      }
    }
  }
  return doc;
}

/** Relaxes every `schema` found below `node` (media types, parameters, headers). */
function relaxInlineSchemas(node: unknown): void {
  if (Array.isArray(node)) {
    node.forEach((child) => relaxInlineSchemas(child));
    return;
  }
  if (!isObject(node)) return;
  for (const [key, child] of Object.entries(node)) {
    if (key === 'schema' && isObject(child)) node[key] = relaxSchema(child);
    else if (key !== 'example' && key !== 'examples') relaxInlineSchemas(child);
  }
}

/** One schema with its decided parts relaxed (see {@link documentedContract}). */
export function relaxSchema(schema: unknown): unknown {
  if (!isObject(schema)) return schema;
  const marks = marksOf(schema);
  if (marks.decided.length > 0) {
    return {
      'x-decided': schema['x-decided'],
      ...(typeof schema.description === 'string' ? { description: schema.description } : {}),
    };
  }
  const out: Json = { ...schema };
  for (const keyword of Object.keys(marks.decidedKeywords)) delete out[keyword];
  for (const key of SCHEMA_CHILDREN) if (isObject(out[key])) out[key] = relaxSchema(out[key]);
  if (isObject(out.additionalProperties))
    out.additionalProperties = relaxSchema(out.additionalProperties);
  for (const key of SCHEMA_LISTS) {
    if (Array.isArray(out[key])) out[key] = (out[key] as unknown[]).map(relaxSchema);
  }
  for (const key of SCHEMA_MAPS) {
    if (!isObject(out[key])) continue;
    const map: Json = {};
    for (const [name, child] of Object.entries(out[key] as Json)) map[name] = relaxSchema(child);
    out[key] = map;
  }
  if (isObject(out.properties) && Array.isArray(out.required)) {
    const props = schema.properties as Json;
    out.required = (out.required as unknown[]).filter(
      (name) => typeof name !== 'string' || !isWholeDecided(props[name]),
    );
  }
  return out;
}

/** An operation's responses with decided statuses folded into their class. */
function relaxResponses(doc: Json, responses: Json): Json {
  const out: Json = {};
  const classes = new Map<string, Json[]>();
  for (const [status, response] of Object.entries(responses)) {
    const target = deref(doc, response);
    if (!isObject(target)) continue;
    if (isWholeDecided(target) && /^[1-5]\d\d$/.test(status)) {
      const cls = `${status[0]}XX`;
      classes.set(cls, [...(classes.get(cls) ?? []), target]);
    } else {
      const copy = structuredClone(target);
      delete copy['x-error-codes'];
      out[status] = copy;
    }
  }
  for (const [cls, members] of classes) {
    if (Object.keys(out).some((status) => status[0] === cls[0])) continue;
    out[cls] = foldResponses(cls, members);
  }
  return out;
}

/** One response standing for several decided ones of a class: the union of their bodies. */
function foldResponses(cls: string, members: Json[]): Json {
  const rows = [...new Set(members.flatMap((m) => marksOf(m).decided))];
  const byType = new Map<string, unknown[]>();
  for (const member of members) {
    const content = isObject(member.content) ? member.content : {};
    for (const [type, media] of Object.entries(content)) {
      const schema = isObject(media) ? media.schema : undefined;
      const known = byType.get(type) ?? [];
      if (!known.some((s) => JSON.stringify(s) === JSON.stringify(schema))) known.push(schema);
      byType.set(type, known);
    }
  }
  const content: Json = {};
  for (const [type, schemas] of byType) {
    const defined = schemas.filter((s) => s !== undefined);
    content[type] =
      defined.length === 0
        ? {}
        : { schema: defined.length === 1 ? defined[0] : { anyOf: defined } };
  }
  return {
    description: `Any ${cls} status: which one is decided (${rows.join(', ')}).`,
    'x-decided': rows,
    ...(byType.size === 0 ? {} : { content }),
  };
}

// ---------------------------------------------------------------------------------------------
// Locating a failure.

/** A schema node and every schema it stands for: its `$ref` target and its combinators. */
function expand(spec: Json, node: unknown, seen = new Set<unknown>()): Json[] {
  if (!isObject(node) || seen.has(node)) return [];
  seen.add(node);
  const out: Json[] = [node];
  if (typeof node.$ref === 'string') out.push(...expand(spec, deref(spec, node), seen));
  for (const key of ['allOf', 'anyOf', 'oneOf']) {
    if (Array.isArray(node[key]))
      for (const member of node[key] as unknown[]) out.push(...expand(spec, member, seen));
  }
  return out;
}

function childrenAt(spec: Json, nodes: Json[], segment: string): Json[] {
  const next: Json[] = [];
  for (const node of nodes) {
    const property = isObject(node.properties) ? node.properties[segment] : undefined;
    if (property !== undefined) next.push(...expand(spec, property));
    else if (/^\d+$/.test(segment) && isObject(node.items)) next.push(...expand(spec, node.items));
    else if (isObject(node.additionalProperties))
      next.push(...expand(spec, node.additionalProperties));
  }
  return next;
}

/**
 * The marks along one schema failure, innermost first: the failing keyword's own marks (for
 * `required`, the missing property's and the object that requires it), then every schema on
 * the way from the root schema at `schemaPointer` down to the value at `instancePath`.
 */
export function marksAlong(
  spec: Json,
  schemaPointer: string,
  instancePath: string,
  keyword: string,
  params: Record<string, unknown> = {},
): Candidates {
  const frames: Json[][] = [expand(spec, resolvePointer(spec, schemaPointer))];
  for (const segment of instancePath.split('/').slice(1)) {
    const decoded = segment.replace(/~1/g, '/').replace(/~0/g, '~');
    const next = childrenAt(spec, frames[frames.length - 1]!, decoded);
    if (next.length === 0) break;
    frames.push(next);
  }
  const decided: string[] = [];
  const documented: string[] = [];
  const add = (marks: Marks, keywordRows: string[] = []) => {
    decided.push(...keywordRows, ...marks.decided);
    documented.push(...marks.documented);
  };
  const inner = frames[frames.length - 1]!;
  const missing = keyword === 'required' ? params.missingProperty : undefined;
  if (typeof missing === 'string') {
    for (const node of inner) {
      const property = isObject(node.properties) ? node.properties[missing] : undefined;
      for (const n of expand(spec, property)) add(marksOf(n));
    }
    for (const node of inner) {
      if (Array.isArray(node.required) && node.required.includes(missing)) {
        const marks = marksOf(node);
        add(marks, marks.decidedKeywords.required);
      }
    }
  }
  for (const node of inner) decided.push(...(marksOf(node).decidedKeywords[keyword] ?? []));
  for (const frame of [...frames].reverse()) for (const node of frame) add(marksOf(node));
  return { decided: [...new Set(decided)], documented: [...new Set(documented)] };
}

/**
 * The rule a failure is charged to: the first candidate that conformance/rules.yaml has as a
 * rule of the layer (a list such as `[D-52, D-12]` names the row first and the asserted rule
 * that carries it after), else the first candidate, else `fallback`.
 */
export function pickRule(
  candidates: string[],
  isRule: (id: string) => boolean,
  fallback: string,
): string {
  return candidates.find(isRule) ?? candidates[0] ?? fallback;
}

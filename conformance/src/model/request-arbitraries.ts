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
 */
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { parse } from 'yaml';
import { CONTRACT_PATH } from '../spec-validator.ts';

type Json = Record<string, unknown>;
export type Schema = Json;

/** Where the generated request data goes. */
export type RequestKind = 'json' | 'query' | 'multipart';

export interface RequestContext {
  /** The tenant's mailbox addresses (at least one); bodies send from these. */
  mailboxes: readonly string[];
  /**
   * Upload ids of the tenant's owner. Bodies attach up to 3 of them; the edge case "exactly at
   * the attachment limit" needs as many as the limit, the over-limit mutation one more.
   */
  uploadIds: readonly string[];
  /**
   * Recipients the operation counts before `cc` besides the body's lists: the one `to` of send
   * and forward, the original sender of a reply (default 1). The check must reply to an email
   * whose own recipients are only the replying mailbox, so that `replyAll` adds nobody.
   */
  implicitRecipients?: number;
  /** The contract (default: spec/openapi.yaml). */
  spec?: Json;
}

/** One generated request and what the contract says the answer is. */
export interface RequestCase {
  /**
   * A JSON value to send as JSON text, raw text (sent as is), or for listEmails the query
   * parameters (name → value).
   */
  body: string | object;
  /** The Content-Type to send; '' sends none. */
  contentType: string;
  /** Acceptable error codes; empty when the request is valid and must be accepted. */
  expectedCodes: string[];
  /** The `field` the error must name, when the contract determines it. */
  expectedField?: string;
  /** Which generator made it, and why the answer is what it is. */
  why: string;
  /** Members an accepted answer must have (uploads: the name, media type and size kept). */
  expectedResponse?: Json;
}

/** A part of a hand-built multipart/form-data body. */
export interface FormPart {
  /** The form field name; undefined leaves `name` out of Content-Disposition. */
  name?: string;
  /** Present for a file part. */
  filename?: string;
  /** The part's Content-Type; undefined sends none. */
  contentType?: string;
  content: string;
}

/** A valid upload form: the parts, and the boundary they are sent with. */
export interface UploadForm {
  boundary: string;
  parts: FormPart[];
}

// ---------------------------------------------------------------------------------------------
// The contract
// ---------------------------------------------------------------------------------------------

let contractCache: Json | undefined;

/** spec/openapi.yaml, parsed once. */
export function contract(): Json {
  contractCache ??= parse(readFileSync(CONTRACT_PATH, 'utf8')) as Json;
  return contractCache;
}

const METHODS = ['get', 'put', 'post', 'patch', 'delete'];

/** A limit of `x-limits` that applies to an operation, with the field and keyword it bounds. */
interface Limit {
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
function deref(spec: Json, node: Json): { schema: Schema; ref?: string } {
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
function propertiesOf(spec: Json, schema: Schema): [string, Schema, string | undefined][] {
  return Object.entries((schema.properties ?? {}) as Record<string, Json>).map(([name, s]) => {
    const { schema: resolved, ref } = deref(spec, s);
    return [name, resolved, ref];
  });
}

function typesOf(schema: Schema): string[] {
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

// ---------------------------------------------------------------------------------------------
// What the prose adds
// ---------------------------------------------------------------------------------------------

/** A rule of the prose about one field, beyond its schema. */
type Prose =
  | 'sender' // D-11 and §4.3: an address of a mailbox the key may touch
  | 'recipient' // D-11: local@domain or Name <local@domain>
  | 'upload' // §2.4: an upload id of the key's owner
  | 'mailbox' // §4.2: a mailbox the key may touch, compared case-insensitively
  | 'search' // D-13: at least one word (letters or digits)
  | 'date' // D-18: RFC 3339 with Z or an offset, or YYYY-MM-DD
  | 'cursor'; // D-16: opaque, only as returned by a previous page

/** Keys are property names; `[]` marks the items of an array. */
const BODY_PROSE: Record<string, Prose> = {
  from: 'sender',
  to: 'recipient',
  'cc[]': 'recipient',
  'bcc[]': 'recipient',
  'attachmentIds[]': 'upload',
};

const QUERY_PROSE: Record<string, Prose> = {
  mailbox: 'mailbox',
  q: 'search',
  dateFrom: 'date',
  dateTo: 'date',
  cursor: 'cursor',
};

/** §4.3 rule 1 (and §4.7, §4.8): the body fields of a message. */
const BODY_FIELDS = ['markdown', 'html', 'text'];

/** D-24 (§2.6): names the service supplies; a caller may not. */
const RESERVED_VARIABLES = ['email', 'unsubscribe_url'];

/** D-5: the folder schema's own error code. */
const ENUM_CODES: Record<string, string> = { Folder: 'invalid_folder' };

/** The only domain, besides the tenant's, that generated mail may go to. */
export const EXTERNAL_DOMAIN = 'external.conformance.test';

/** The folders §3.1 names. */
const DOCUMENTED_FOLDERS = ['inbox', 'trash'];

function proseOf(kind: RequestKind, key: string): Prose | undefined {
  return (kind === 'query' ? QUERY_PROSE : BODY_PROSE)[key];
}

/** §4.3 rule 1 as the operation's error codes tell it. */
function bodyRule(info: OperationInfo): 'exactly-one' | 'at-most-one' | undefined {
  const names = propertiesOf(contract(), info.schema).map(([n]) => n);
  if (!BODY_FIELDS.every((f) => names.includes(f))) return undefined;
  if (info.badRequestCodes.includes('body_required')) return 'exactly-one';
  if (info.badRequestCodes.includes('body_conflict')) return 'at-most-one';
  return undefined;
}

/** §2.6: the fields templates apply to say so in their description. */
function isTemplated(schema: Schema): boolean {
  return /\bVariables apply\b/.test(String(schema.description ?? ''));
}

// ---------------------------------------------------------------------------------------------
// Strings
// ---------------------------------------------------------------------------------------------

export const codePoints = (s: string): number => [...s].length;
const clip = (s: string, max: number) => (codePoints(s) <= max ? s : [...s].slice(0, max).join(''));
/** §2.6: no `{{` outside a deliberate template, so no variable is used by chance. */
const noTemplates = (s: string) => s.replace(/\{(?=\{)/g, '{ ');

/**
 * Odd Unicode: all of it valid text (JSON cannot carry a lone surrogate), none of it may cause
 * a 5xx.
 */
export const ODD_UNICODE: readonly string[] = [
  '\u0000',
  'a\u0000b',
  '\u200F\u202Eevil\u202C\u200E',
  '\u200B\u200C\u200D\u2060',
  '\uFEFFbom',
  '👩‍👩‍👧‍👦',
  '🏳️‍🌈🇫🇷🇯🇵',
  `e${'\u0301'.repeat(300)}`,
  'Z̵̡̢̛̗̘̙̜̝̞̟̠̀́̂̃̄̅̆̇̈̉̊̋̌̍̎̏̐̑̒̓',
  '\u{10FFFF}\u{E0001}\uFFFD\uFFFE\uFFFF',
  'line\u2028sep\u2029para',
  '﷽',
  '𝕳𝖊𝖑𝖑𝖔 𝔀𝓸𝓻𝓵𝓭',
  '\u1100\u1161\u11A8 각',
  'ﬁ ß İ ı ǅ',
  'tab\there\u000Bv\u000Cf',
  '\u0007\u001B[31mred\u001B[0m\u007F\u0085',
  'crlf\r\nBcc: spy@external.conformance.test\r\n\r\nbody',
  '"quoted" \\ back\\slash </p><script>x</script>',
  'मनीष 你好 مرحبا שלום',
];

/** The same, for display names and file names: no control characters and no delimiters. */
const ODD_NAMES: readonly string[] = [
  '👩‍👩‍👧‍👦 Family',
  '\u202Eevil\u202C name',
  `e${'\u0301'.repeat(120)}`,
  'Zoë Müller-Straße',
  '李小龍',
  'مرحبا שלום',
  '𝕳𝖊𝖑𝖑𝖔',
  '\u200B\u2060zero width',
  'ﬁ ß İ',
];

/** One code point each, astral ones included, so lengths count code points (D-9). */
const FILLER = ['a', 'Z', '0', ' ', 'é', '中', '😀', '\u0301', '\u200F', '𝕳', 'ß', '🇫'];
const NAME_FILLER = ['a', 'Z', 'é', '中', '😀', '\u0301', '𝕳', 'ß', 'N'];

function filler(length: number, pool: readonly string[] = FILLER): fc.Arbitrary<string> {
  return fc
    .array(fc.constantFrom(...pool), { minLength: length, maxLength: length })
    .map((a) => a.join(''));
}

/** Free text: printable graphemes, any code point, or an odd Unicode sample. */
function freeText(min: number, max: number): fc.Arbitrary<string> {
  const cap = Math.min(max, 60);
  return fc
    .oneof(
      { weight: 4, arbitrary: fc.string({ unit: 'grapheme', maxLength: cap }) },
      { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: cap }) },
      { weight: 1, arbitrary: fc.constantFrom(...ODD_UNICODE) },
    )
    .map((s) => clip(noTemplates(s), max))
    .map((s) => (codePoints(s) >= min ? s : s + 'x'.repeat(min - codePoints(s))));
}

const ATEXT = "[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]";
const localPart = fc.stringMatching(new RegExp(`^${ATEXT}{1,12}(\\.${ATEXT}{1,8}){0,2}$`));

const displayName = fc
  .oneof(
    { weight: 3, arbitrary: fc.stringMatching(/^[A-Za-z][A-Za-z .'-]{0,20}[A-Za-z]$/) },
    { weight: 1, arbitrary: fc.constantFrom(...ODD_NAMES) },
  )
  .map((s) => s.trim())
  .filter((s) => s !== '');

/** An address the suite may send to: the tenant's, or one of its own external addresses. */
function recipientAddress(context: RequestContext): fc.Arbitrary<string> {
  return fc.oneof(
    fc.constantFrom(...context.mailboxes),
    fc
      .tuple(localPart, fc.constantFrom(EXTERNAL_DOMAIN, 'EXTERNAL.Conformance.TEST'))
      .map(([l, d]) => `${l}@${d}`),
  );
}

/** `address` or `Name <address>` (D-11, §4.3). */
function withName(address: fc.Arbitrary<string>): fc.Arbitrary<string> {
  return fc.oneof(
    address,
    fc.tuple(displayName, address).map(([n, a]) => `${n} <${a}>`),
  );
}

/** D-11: not `local@domain` nor `Name <local@domain>`; every domain is the suite's own. */
export const INVALID_ADDRESSES: readonly string[] = [
  'plainaddress',
  'no-at-sign.external.conformance.test',
  '@external.conformance.test',
  'local@',
  'a..b@external.conformance.test',
  '.a@external.conformance.test',
  'a.@external.conformance.test',
  'a b@external.conformance.test',
  '"quoted"@external.conformance.test',
  'a@@external.conformance.test',
  'a@external..conformance.test',
  'a@exa_mple.conformance.test',
  'a\u0000b@external.conformance.test',
  'jöhn@external.conformance.test',
  'a(comment)@external.conformance.test',
  'Name <a@external.conformance.test',
  'Name a@external.conformance.test>',
  '<>',
  'Name <>',
  '',
  ' ',
  'a@external.conformance.test, b@external.conformance.test',
  'a@external.conformance.test b@external.conformance.test',
  'a@external.conformance.test\r\nBcc: b@external.conformance.test',
  `${Array.from({ length: 4 }, () => 'x'.repeat(63)).join('.')}@external.conformance.test`,
];

const UUID = fc.uuid({ version: 4 });

/** D-18: the accepted spellings, with their instants. */
const dateValue: fc.Arbitrary<string> = fc
  .tuple(
    fc.integer({ min: Date.UTC(2000, 0, 1), max: Date.UTC(2099, 11, 31) }),
    fc.constantFrom('iso', 'seconds', 'offset', 'date'),
    fc.integer({ min: -14 * 4, max: 14 * 4 }),
  )
  .map(([ms, style, quarters]) => {
    const at = new Date(ms);
    const iso = at.toISOString();
    if (style === 'iso') return iso;
    if (style === 'seconds') return `${iso.slice(0, 19)}Z`;
    if (style === 'date') return iso.slice(0, 10);
    const offset = quarters * 15;
    const local = new Date(ms + offset * 60_000).toISOString().slice(0, 19);
    const sign = offset < 0 ? '-' : '+';
    const abs = Math.abs(offset);
    const hh = String(Math.floor(abs / 60)).padStart(2, '0');
    const mm = String(abs % 60).padStart(2, '0');
    return `${local}${sign}${hh}:${mm}`;
  });

/** D-18: not a date at all, or not in an accepted spelling. */
const INVALID_DATES = [
  '2026-13-01',
  '2026-02-30',
  '2026-10-01T25:00:00Z',
  '2026-10-01T10:00:00',
  '2026/10/01',
  '01/10/2026',
  'yesterday',
  '1700000000',
  '2026-10-01T10:00:00+25:00',
  '2026-1-1',
  'now',
  '\u0000',
];

const SEARCH_WORDS = ['invoice', 'café', 'naïve', 'über', '日本語', 'q3', '2026', 'Ünïcode'];

/** D-13: words, some of them prefixes (`*`), with odd separators. */
const searchText: fc.Arbitrary<string> = fc
  .array(
    fc.oneof(
      fc.stringMatching(/^[A-Za-z0-9]{1,10}\*?$/),
      fc.constantFrom(...SEARCH_WORDS),
      fc.constantFrom(...ODD_UNICODE).map((odd) => `${odd} word`),
    ),
    { minLength: 1, maxLength: 3 },
  )
  .map((words) => clip(words.join(' '), 500))
  .filter((s) => /[\p{L}\p{N}]/u.test(s));

/** D-13: text with no letter and no digit, so no word. */
const NO_WORD = ['*', '***', ' ', '-', '"', '!?', '😀', '\u0000', '__', '.', '\u200B', '— –'];

// ---------------------------------------------------------------------------------------------
// Valid values from a schema
// ---------------------------------------------------------------------------------------------

/** Arrays in generated bodies stay short (combined recipients ≪ 50); limits are edge cases. */
const ARRAY_CAP = 3;
const MAP_CAP = 4;

const variableName = (schema: Schema): fc.Arbitrary<string> => {
  const pattern = ((schema.propertyNames ?? {}) as Json).pattern;
  const generated =
    typeof pattern === 'string' ? fc.stringMatching(new RegExp(pattern)) : fc.string();
  // Names that are also members of Object.prototype catch lookups on plain objects.
  const tricky = ['constructor', 'toString', '__proto__', 'hasOwnProperty', 'valueOf', '_'];
  return fc
    .oneof(
      { weight: 4, arbitrary: generated },
      { weight: 1, arbitrary: fc.constantFrom(...tricky) },
    )
    .filter((n) => !RESERVED_VARIABLES.includes(n));
};

function valueFor(
  schema: Schema,
  key: string,
  kind: RequestKind,
  context: RequestContext,
  spec: Json,
): fc.Arbitrary<unknown> {
  const prose = proseOf(kind, key);
  if (prose !== undefined) return proseValue(prose, context);
  // §3.1 names inbox and trash; the other folders are ours (D-5): valid bodies keep to those two.
  if (key === 'folder' && Array.isArray(schema.enum))
    return fc.constantFrom(
      ...DOCUMENTED_FOLDERS.filter((f) => (schema.enum as unknown[]).includes(f)),
    );
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
  if ('const' in schema) return fc.constant(schema.const);
  const types = typesOf(schema);
  if (types.length !== 1) {
    return fc.oneof(
      ...types.map((t) => valueFor({ ...schema, type: t }, key, kind, context, spec)),
    );
  }
  switch (types[0]) {
    case 'string':
      if (typeof schema.pattern === 'string') return fc.stringMatching(new RegExp(schema.pattern));
      return freeText(Number(schema.minLength ?? 0), Number(schema.maxLength ?? 2000));
    case 'number':
      return fc.double({ noNaN: true, noDefaultInfinity: true });
    case 'integer':
      return fc.integer({
        min: Number(schema.minimum ?? -(2 ** 31)),
        max: Number(schema.maximum ?? 2 ** 31),
      });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array': {
      const itemKey = `${key}[]`;
      const maxLength = Math.min(Number(schema.maxItems ?? ARRAY_CAP), ARRAY_CAP);
      if (proseOf(kind, itemKey) === 'upload') {
        return fc.subarray([...context.uploadIds], { maxLength });
      }
      const items = deref(spec, (schema.items ?? {}) as Json).schema;
      return fc.array(valueFor(items, itemKey, kind, context, spec), {
        minLength: Number(schema.minItems ?? 0),
        maxLength,
      });
    }
    case 'object': {
      if (schema.properties !== undefined) return validObject(schema, kind, context, spec);
      const values = deref(spec, (schema.additionalProperties ?? {}) as Json).schema;
      return fc.dictionary(
        variableName(schema),
        valueFor(values, `${key}.*`, kind, context, spec),
        {
          maxKeys: Math.min(Number(schema.maxProperties ?? MAP_CAP), MAP_CAP),
          noNullPrototype: true,
        },
      );
    }
    default:
      throw new Error(`no generator for schema type ${String(types[0])} at ${key}`);
  }
}

function proseValue(prose: Prose, context: RequestContext): fc.Arbitrary<unknown> {
  switch (prose) {
    case 'sender':
      return withName(fc.constantFrom(...context.mailboxes));
    case 'recipient':
      return withName(recipientAddress(context));
    case 'upload':
      return fc.constantFrom(...context.uploadIds);
    case 'mailbox':
      return fc
        .tuple(fc.constantFrom(...context.mailboxes), fc.constantFrom('as is', 'upper', 'mixed'))
        .map(([m, c]) =>
          c === 'upper'
            ? m.toUpperCase()
            : c === 'mixed'
              ? [...m].map((ch, i) => (i % 2 ? ch.toUpperCase() : ch)).join('')
              : m,
        );
    case 'search':
      return searchText;
    case 'date':
      return dateValue;
    case 'cursor':
      // Opaque: only a previous page's nextCursor is valid, so valid requests carry none.
      return fc.constant(undefined);
  }
}

/** An object from its properties, `required` and the operation's body rule. */
function validObject(
  schema: Schema,
  kind: RequestKind,
  context: RequestContext,
  spec: Json,
  rule?: 'exactly-one' | 'at-most-one',
): fc.Arbitrary<Json> {
  const properties = propertiesOf(spec, schema);
  const inGroup = (name: string) => rule !== undefined && BODY_FIELDS.includes(name);
  const arbitraries: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [name, s] of properties) {
    if (inGroup(name) || proseOf(kind, name) === 'cursor') continue;
    arbitraries[name] = valueFor(s, name, kind, context, spec);
  }
  const required = ((schema.required ?? []) as string[]).filter((n) => n in arbitraries);
  let record: fc.Arbitrary<Json> = fc.record(arbitraries, { requiredKeys: required });
  if (rule !== undefined) {
    const choices: (string | null)[] =
      rule === 'exactly-one' ? BODY_FIELDS : [...BODY_FIELDS, null];
    record = fc
      .tuple(record, fc.constantFrom(...choices), freeText(1, 2000))
      .map(([body, field, text]) => (field === null ? body : { ...body, [field]: text }));
  }
  const minProperties = Number(schema.minProperties ?? 0);
  if (minProperties > 0) record = record.filter((o) => Object.keys(o).length >= minProperties);
  return record.map((o) => orderDates(kind, o));
}

/** D-18: dateTo must not be earlier than dateFrom. */
function orderDates(kind: RequestKind, body: Json): Json {
  if (kind !== 'query' || typeof body.dateFrom !== 'string' || typeof body.dateTo !== 'string')
    return body;
  if (Date.parse(body.dateTo) >= Date.parse(body.dateFrom)) return body;
  return { ...body, dateFrom: body.dateTo, dateTo: body.dateFrom };
}

/** Query values are strings: `true`/`false` (D-19), integers in decimal. */
function asQuery(body: Json): Record<string, string> {
  return Object.fromEntries(
    Object.entries(body)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => [k, String(v)]),
  );
}

// ---------------------------------------------------------------------------------------------
// Multipart
// ---------------------------------------------------------------------------------------------

const MEDIA_TYPES = ['application/pdf', 'text/plain', 'image/png', 'text/csv', 'application/zip'];

const boundaryArb = fc.stringMatching(/^[A-Za-z0-9_-]{12,40}$/).map((b) => `mtw${b}`);

const fileName = fc
  .oneof(
    { weight: 3, arbitrary: fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9 ._()-]{0,30}$/) },
    { weight: 2, arbitrary: fc.constantFrom(...ODD_NAMES).map((n) => `${n}.txt`) },
  )
  .map((n) => n.trim())
  .filter((n) => n !== '' && n !== '.' && n !== '..');

// Built on first use, not at import: fast-check's first string of unit 'binary' indexes every
// code point (about a second), which a dry run, reading the check files only, should not pay.
let fileContentArb: fc.Arbitrary<string> | undefined;
const fileContent = (): fc.Arbitrary<string> =>
  (fileContentArb ??= fc.oneof(
    fc.string({ unit: 'binary', minLength: 1, maxLength: 300 }),
    fc.string({ unit: 'grapheme', minLength: 1, maxLength: 100 }),
  ));

/** `file` parts from the schema's binary properties (contentMediaType), with the prose's file. */
function validForm(info: OperationInfo, spec: Json): fc.Arbitrary<UploadForm> {
  const files = propertiesOf(spec, info.schema).filter(([, s]) => 'contentMediaType' in s);
  return fc
    .tuple(
      boundaryArb,
      fc.tuple(
        ...files.map(([name]) =>
          fc.record({
            name: fc.constant(name),
            filename: fileName,
            contentType: fc.constantFrom(...MEDIA_TYPES),
            content: fileContent(),
          }),
        ),
      ),
    )
    .map(([boundary, parts]) => ({
      boundary,
      parts: parts.map((p) => ({
        ...p,
        content: p.content.split(boundary).join('x'),
      })) as FormPart[],
    }));
}

/** Builds a multipart/form-data body (RFC 7578), names and file names as UTF-8. */
export function encodeMultipart(
  parts: readonly FormPart[],
  boundary: string,
  close = true,
): string {
  const chunks = parts.map((part) => {
    const disposition = [
      'form-data',
      ...(part.name === undefined ? [] : [`name="${part.name}"`]),
      ...(part.filename === undefined ? [] : [`filename="${part.filename}"`]),
    ].join('; ');
    const headers = [`Content-Disposition: ${disposition}`];
    if (part.contentType !== undefined) headers.push(`Content-Type: ${part.contentType}`);
    return `--${boundary}\r\n${headers.join('\r\n')}\r\n\r\n${part.content}\r\n`;
  });
  return chunks.join('') + (close ? `--${boundary}--\r\n` : '');
}

// ---------------------------------------------------------------------------------------------
// Public generators
// ---------------------------------------------------------------------------------------------

/**
 * A valid body: a JSON object for JSON operations, the query parameters (name → string) for
 * listEmails, an UploadForm for uploadAttachment.
 */
export function validBody(operationId: string, context: RequestContext): fc.Arbitrary<object> {
  const spec = context.spec ?? contract();
  const info = operationInfo(operationId, spec);
  if (info.kind === 'multipart') return validForm(info, spec);
  const body = validObject(info.schema, info.kind, context, spec, bodyRule(info));
  return info.kind === 'query' ? body.map(asQuery) : body;
}

/** A valid body as a request case (what the check sends). */
export function validCase(operationId: string, body: object): RequestCase {
  const info = operationInfo(operationId);
  if (info.kind === 'multipart') {
    const form = body as UploadForm;
    return {
      body: encodeMultipart(form.parts, form.boundary),
      contentType: `multipart/form-data; boundary=${form.boundary}`,
      expectedCodes: [],
      why: 'a valid form',
      expectedResponse: uploadExpectation(form),
    };
  }
  return {
    body,
    contentType: info.kind === 'json' ? 'application/json' : '',
    expectedCodes: [],
    why: 'a valid body',
  };
}

/** What may change between generated cases: the body (and the query), by name. */
interface Slot {
  /** `to`, `cc[]`, `variables.*` */
  key: string;
  prop: string;
  where: 'value' | 'item' | 'entry';
  schema: Schema;
  ref?: string;
  required: boolean;
}

function slotsOf(info: OperationInfo, spec: Json): Slot[] {
  const required = (info.schema.required ?? []) as string[];
  const slots: Slot[] = [];
  for (const [prop, schema, ref] of propertiesOf(spec, info.schema)) {
    slots.push({
      key: prop,
      prop,
      where: 'value',
      schema,
      ...(ref === undefined ? {} : { ref }),
      required: required.includes(prop),
    });
    if (typesOf(schema).includes('array') && schema.items !== undefined) {
      const items = deref(spec, schema.items as Json);
      slots.push({
        key: `${prop}[]`,
        prop,
        where: 'item',
        schema: items.schema,
        ...(items.ref === undefined ? {} : { ref: items.ref }),
        required: false,
      });
    }
    if (typesOf(schema).includes('object') && typeof schema.additionalProperties === 'object') {
      const values = deref(spec, schema.additionalProperties as Json);
      slots.push({
        key: `${prop}.*`,
        prop,
        where: 'entry',
        schema: values.schema,
        ref: ref ?? '',
        required: false,
      });
    }
  }
  return slots;
}

/** Sets a slot's value in a copy of `body`; returns the copy and the error `field` path. */
function setSlot(
  body: Json,
  slot: Slot,
  value: unknown,
  pick: number,
  entryName = 'v',
): { body: Json; field: string } {
  const copy: Json = { ...body };
  if (slot.where === 'value') {
    copy[slot.prop] = value;
    return { body: copy, field: slot.prop };
  }
  if (slot.where === 'item') {
    const list = Array.isArray(copy[slot.prop]) ? [...(copy[slot.prop] as unknown[])] : [];
    const index = list.length === 0 ? 0 : pick % list.length;
    list[index] = value;
    copy[slot.prop] = list;
    return { body: copy, field: `${slot.prop}[${index}]` };
  }
  const map: Json = { ...((copy[slot.prop] ?? {}) as Json) };
  define(map, entryName, value);
  copy[slot.prop] = map;
  return { body: copy, field: `${slot.prop}.${entryName}` };
}

/** Does the slot belong to the template variables (D-24 codes)? */
const isVariables = (slot: Slot) => slot.ref === 'Variables';
const isAddress = (info: OperationInfo, slot: Slot) => {
  const prose = proseOf(info.kind, slot.key);
  return prose === 'sender' || prose === 'recipient';
};

/** The codes a type or value error of this slot may carry. */
function valueCodes(info: OperationInfo, slot: Slot): string[] {
  if (isVariables(slot))
    return slot.where === 'value' ? ['invalid_variable', 'invalid_field'] : ['invalid_variable'];
  if (slot.ref !== undefined && ENUM_CODES[slot.ref] !== undefined)
    return ['invalid_field', ENUM_CODES[slot.ref] as string];
  if (isAddress(info, slot)) return ['invalid_field', 'invalid_address'];
  const prose = proseOf(info.kind, slot.key);
  if (prose === 'mailbox') return ['invalid_field', 'mailbox_not_found'];
  if (prose === 'cursor') return ['invalid_field', 'invalid_cursor'];
  return ['invalid_field'];
}

/** A value of none of the slot's types (JSON), or not its spelling (query). */
function wrongValue(info: OperationInfo, schema: Schema): fc.Arbitrary<unknown> | undefined {
  const types = typesOf(schema);
  if (info.kind === 'query') {
    if (types.includes('boolean'))
      return fc.constantFrom('True', 'FALSE', '1', '0', 'yes', 'on', '', ' true');
    if (types.includes('integer'))
      return fc.constantFrom('abc', '1.5', '', 'ten', '-', 'NaN', 'Infinity', '1,5');
    return undefined;
  }
  const candidates: [string, fc.Arbitrary<unknown>][] = [
    ['string', fc.string({ maxLength: 10 })],
    ['number', fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.constant(1.5))],
    ['boolean', fc.boolean()],
    ['null', fc.constant(null)],
    ['array', fc.constantFrom([], ['x'], [1, 2])],
    ['object', fc.constantFrom({}, { a: 1 }, { address: 'a@external.conformance.test' })],
  ];
  const allowed = new Set(types);
  if (allowed.has('integer')) allowed.add('number-integer');
  const wrong = candidates.filter(([t]) => !allowed.has(t));
  if (allowed.has('integer') && !allowed.has('number')) wrong.push(['number', fc.constant(1.5)]);
  if (wrong.length === 0) return undefined;
  return fc.oneof(...wrong.map(([, a]) => a));
}

/** Unknown member names: near misses, prototype names, digits, Unicode (D-31). */
const unknownName = fc.oneof(
  fc.stringMatching(/^[A-Za-z_$][A-Za-z0-9_$-]{0,15}$/),
  fc.constantFrom(
    'replyall',
    'reply_all',
    'From',
    'TO',
    'Subject',
    'attachments',
    'attachmentIDs',
    'body',
    'htmlBody',
    'template',
    'from ',
    ' to',
    '__proto__',
    'constructor',
    'toString',
    'cc[0]',
    'variables.name',
    'sübject',
    '😀',
    '0',
    '42',
    'a/b',
    'id',
  ),
);

/** A limit's own code when the field has one (x-limits), else the generic code. */
function limitCode(
  info: OperationInfo,
  field: string,
  keyword: Limit['keyword'],
): Limit | undefined {
  return info.limits.find((l) => l.field === field && l.keyword === keyword);
}

type CaseArb = fc.Arbitrary<RequestCase>;

const makeCase = (
  body: string | object,
  expectedCodes: string[],
  why: string,
  expectedField?: string,
  contentType = 'application/json',
): RequestCase => ({
  body,
  contentType,
  expectedCodes,
  why,
  ...(expectedField === undefined ? {} : { expectedField }),
});

/**
 * One mutation of a valid body, with the codes and `field` the contract expects. Invalid in
 * exactly one way: wrong type, required field removed, unknown field, over maxLength, over
 * maxItems / maxProperties, out of minimum / maximum / enum, the prose's rules (addresses,
 * body fields, variables, uploads, dates, cursors, search words), malformed JSON, another
 * media type; for uploads, malformed or wrong forms.
 */
export function invalidBody(operationId: string, context: RequestContext): CaseArb {
  const spec = context.spec ?? contract();
  const info = operationInfo(operationId, spec);
  if (info.kind === 'multipart') return invalidForm(info, spec);
  const base = validObject(info.schema, info.kind, context, spec, bodyRule(info));
  const slots = slotsOf(info, spec);
  const mutations: CaseArb[] = [];
  const out = (body: Json): object => (info.kind === 'query' ? asQuery(body) : body);
  const caseOf = (body: Json, codes: string[], why: string, field?: string): RequestCase =>
    makeCase(out(body), codes, why, field, info.kind === 'json' ? 'application/json' : '');
  const bodyFields = bodyRule(info) === undefined ? [] : BODY_FIELDS;

  const variablesSlot = slots.find((s) => s.where === 'value' && isVariables(s));
  const entryName =
    variablesSlot === undefined ? fc.constant('v') : variableName(variablesSlot.schema);

  // Wrong type, one slot at a time.
  const typed = slots
    .map((slot) => ({ slot, wrong: wrongValue(info, slot.schema) }))
    .filter((s): s is { slot: Slot; wrong: fc.Arbitrary<unknown> } => s.wrong !== undefined);
  if (typed.length > 0) {
    mutations.push(
      fc
        .tuple(base, fc.constantFrom(...typed), fc.nat(), entryName)
        .chain(([body, { slot, wrong }, pick, name]) =>
          wrong.map((value) => {
            // A body field of the wrong type must be the only body field given.
            const clean = bodyFields.includes(slot.prop) ? omit(body, bodyFields) : body;
            const set = setSlot(clean, slot, value, pick, name);
            const codes = valueCodes(info, slot);
            if (value === null && slot.required) codes.push('missing_field');
            return caseOf(
              set.body,
              codes,
              `wrong type: ${set.field} = ${describe(value)} (schema type ${typesOf(slot.schema).join('|')})`,
              set.field,
            );
          }),
        ),
    );
  }

  // A required field removed (missing_field); minProperties not met.
  const required = (info.schema.required ?? []) as string[];
  if (required.length > 0) {
    mutations.push(
      fc
        .tuple(base, fc.constantFrom(...required))
        .map(([body, name]) =>
          caseOf(omit(body, [name]), ['missing_field'], `required ${name} removed`, name),
        ),
    );
  }
  if (Number(info.schema.minProperties ?? 0) > 0) {
    mutations.push(fc.constant(caseOf({}, ['missing_field'], `fewer than minProperties: {}`)));
  }
  if (bodyRule(info) === 'exactly-one') {
    mutations.push(
      base.map((body) =>
        caseOf(
          omit(body, BODY_FIELDS),
          ['body_required'],
          'no markdown, html or text (§4.3 rule 1)',
        ),
      ),
    );
  }
  if (bodyRule(info) !== undefined) {
    mutations.push(
      fc
        .tuple(base, fc.subarray(BODY_FIELDS, { minLength: 2 }), freeText(1, 40))
        .map(([body, fields, text]) =>
          caseOf(
            { ...omit(body, BODY_FIELDS), ...Object.fromEntries(fields.map((f) => [f, text])) },
            ['body_conflict'],
            `more than one body field: ${fields.join(', ')} (§4.3 rule 1)`,
          ),
        ),
    );
  }

  // Unknown members (D-31): the first in code-unit order is named.
  if (info.schema.additionalProperties === false) {
    const known = new Set(propertiesOf(spec, info.schema).map(([n]) => n));
    mutations.push(
      fc
        .tuple(
          base,
          fc.uniqueArray(
            unknownName.filter((n) => !known.has(n)),
            { minLength: 1, maxLength: 3 },
          ),
          fc.jsonValue({ maxDepth: 1 }),
        )
        .map(([body, names, value]) => {
          const copy: Json = { ...body };
          for (const name of names) {
            define(copy, name, value);
          }
          const first = [...names].sort()[0] as string;
          return caseOf(
            copy,
            ['unknown_field'],
            `unknown field(s) ${JSON.stringify(names)}`,
            first,
          );
        }),
    );
  }

  // Strings over maxLength: the limit's own code (x-limits) or the generic one.
  const long = slots.filter(
    (s) => typesOf(s.schema).includes('string') && s.schema.maxLength !== undefined,
  );
  if (long.length > 0) {
    mutations.push(
      fc
        .tuple(
          base,
          fc.constantFrom(...long),
          fc.constantFrom<number | 'double'>(1, 2, 7, 'double'),
          fc.nat(),
        )
        .chain(([body, slot, over, pick]) => {
          const max = Number(slot.schema.maxLength);
          const length = over === 'double' ? max * 2 : max + over;
          return longValue(info, slot, length, context).map((value) => {
            const set = setSlot(body, slot, value, pick);
            const limit = limitCode(info, slot.prop, 'maxLength');
            const codes = limit === undefined ? valueCodes(info, slot) : [limit.errorCode];
            return caseOf(
              set.body,
              codes,
              `${set.field} of ${length} code points, over maxLength ${max}`,
              set.field,
            );
          });
        }),
    );
  }

  // Arrays over maxItems (their limit's code), maps over maxProperties.
  const lists = slots.filter((s) => s.where === 'value' && s.schema.maxItems !== undefined);
  const listArbs = lists
    .map((slot) => {
      const max = Number(slot.schema.maxItems);
      const limit = limitCode(info, slot.prop, 'maxItems');
      const codes = limit === undefined ? ['invalid_field'] : [limit.errorCode];
      const items = itemsOf(info, slot, max + 1, context, spec);
      if (items === undefined) return undefined;
      return fc
        .tuple(base, items)
        .map(([body, list]) =>
          caseOf(
            { ...body, [slot.prop]: list },
            codes,
            `${slot.prop} with ${max + 1} items, over maxItems ${max}`,
            slot.prop,
          ),
        );
    })
    .filter((a): a is CaseArb => a !== undefined);
  mutations.push(...listArbs);
  for (const slot of slots.filter(
    (s) => s.where === 'value' && s.schema.maxProperties !== undefined,
  )) {
    const max = Number(slot.schema.maxProperties);
    mutations.push(
      base.map((body) =>
        caseOf(
          {
            ...body,
            [slot.prop]: Object.fromEntries(
              Array.from({ length: max + 1 }, (_, i) => [`v${i}`, i]),
            ),
          },
          isVariables(slot) ? ['invalid_variable'] : ['invalid_field'],
          `${slot.prop} with ${max + 1} members, over maxProperties ${max}`,
          slot.prop,
        ),
      ),
    );
  }

  // Out of range: minLength, minimum, maximum (pageSize's own code), enum.
  for (const slot of slots.filter((s) => s.where === 'value')) {
    const min = slot.schema.minLength;
    if (typeof min === 'number' && min > 0) {
      mutations.push(
        base.map((body) =>
          caseOf(
            { ...body, [slot.prop]: '' },
            valueCodes(info, slot),
            `${slot.prop} empty, under minLength ${min}`,
            slot.prop,
          ),
        ),
      );
    }
    if (typeof slot.schema.minimum === 'number') {
      const minimum = slot.schema.minimum;
      mutations.push(
        fc
          .tuple(base, fc.constantFrom(minimum - 1, minimum - 2, -1, -(2 ** 31)))
          .map(([body, n]) =>
            caseOf(
              { ...body, [slot.prop]: n },
              ['invalid_field'],
              `${slot.prop} = ${n}, under minimum ${minimum}`,
              slot.prop,
            ),
          ),
      );
    }
    if (typeof slot.schema.maximum === 'number') {
      const maximum = slot.schema.maximum;
      const limit = limitCode(info, slot.prop, 'maximum');
      mutations.push(
        fc
          .tuple(
            base,
            fc.constantFrom<number | string>(
              maximum + 1,
              maximum + 2,
              1000,
              2 ** 31,
              2 ** 53,
              `1${'0'.repeat(20)}`,
            ),
          )
          .map(([body, n]) =>
            caseOf(
              { ...body, [slot.prop]: n },
              limit === undefined ? ['invalid_field'] : [limit.errorCode],
              `${slot.prop} = ${n}, over maximum ${maximum}`,
              slot.prop,
            ),
          ),
      );
    }
    if (Array.isArray(slot.schema.enum)) {
      const allowed = slot.schema.enum as unknown[];
      const near = allowed.flatMap((v) => [
        String(v).toUpperCase(),
        ` ${String(v)}`,
        `${String(v)}\u0000`,
        String(v).replace('i', 'ı'),
      ]);
      mutations.push(
        fc
          .tuple(
            base,
            fc.oneof(
              fc.constantFrom(...near, '', 'later', 'drafts', 'Inbox'),
              fc.string({ maxLength: 12 }),
            ),
          )
          .filter(([, v]) => !allowed.includes(v))
          .map(([body, v]) => {
            const codes =
              slot.ref !== undefined && ENUM_CODES[slot.ref] !== undefined
                ? [ENUM_CODES[slot.ref] as string]
                : ['invalid_field'];
            return caseOf(
              { ...body, [slot.prop]: v },
              codes,
              `${slot.prop} = ${JSON.stringify(v)}, not in ${JSON.stringify(allowed)}`,
              slot.prop,
            );
          }),
      );
    }
  }

  mutations.push(...proseMutations(info, slots, base, context, caseOf));
  if (info.kind === 'json') mutations.push(...jsonTextMutations(base));
  return fc.oneof(...mutations);
}

/** A value of `length` code points for a slot: a padded display name for addresses. */
function longValue(
  info: OperationInfo,
  slot: Slot,
  length: number,
  context: RequestContext,
): fc.Arbitrary<string> {
  if (isAddress(info, slot)) {
    const address = context.mailboxes[context.mailboxes.length - 1] as string;
    const rest = codePoints(` <${address}>`);
    return filler(Math.max(1, length - rest), NAME_FILLER).map((name) => `${name} <${address}>`);
  }
  const prose = proseOf(info.kind, slot.key);
  if (prose === 'search') return filler(length - 5).map((s) => `word ${s}`);
  return filler(length);
}

/** `count` valid items for a list slot, or undefined when the context cannot supply them. */
function itemsOf(
  info: OperationInfo,
  slot: Slot,
  count: number,
  context: RequestContext,
  spec: Json,
): fc.Arbitrary<unknown[]> | undefined {
  const itemKey = `${slot.prop}[]`;
  if (proseOf(info.kind, itemKey) === 'upload') {
    if (context.uploadIds.length < count) return undefined;
    return fc.shuffledSubarray([...context.uploadIds], { minLength: count, maxLength: count });
  }
  const items = deref(spec, (slot.schema.items ?? {}) as Json).schema;
  return fc.array(valueFor(items, itemKey, info.kind, context, spec), {
    minLength: count,
    maxLength: count,
  });
}

/** The rules of the prose, broken one at a time. */
function proseMutations(
  info: OperationInfo,
  slots: Slot[],
  base: fc.Arbitrary<Json>,
  context: RequestContext,
  caseOf: (body: Json, codes: string[], why: string, field?: string) => RequestCase,
): CaseArb[] {
  const mutations: CaseArb[] = [];
  const has = (key: string) => slots.find((s) => s.key === key);
  const implicit = context.implicitRecipients ?? 1;

  // D-11: addresses that are not addresses.
  const addressSlots = slots.filter((s) => isAddress(info, s));
  if (addressSlots.length > 0) {
    mutations.push(
      fc
        .tuple(
          base,
          fc.constantFrom(...addressSlots),
          fc.constantFrom(...INVALID_ADDRESSES),
          fc.nat(),
        )
        .map(([body, slot, bad, pick]) => {
          const set = setSlot(body, slot, bad, pick);
          return caseOf(
            set.body,
            ['invalid_address'],
            `${set.field} = ${JSON.stringify(bad)} is no address (D-11)`,
            set.field,
          );
        }),
    );
  }
  // §4.3, D-26: a sender that is not a mailbox of the key.
  const sender = slots.find((s) => proseOf(info.kind, s.key) === 'sender');
  if (sender !== undefined) {
    const domain = (context.mailboxes[0] as string).split('@')[1] as string;
    mutations.push(
      fc
        .tuple(
          base,
          fc.constantFrom(`nobody@${EXTERNAL_DOMAIN}`, `not-a-box@${domain}`, `box99@${domain}`),
        )
        .map(([body, from]) =>
          caseOf(
            { ...body, [sender.prop]: from },
            ['mailbox_not_found'],
            `${sender.prop} ${from} is no mailbox of the key`,
            sender.prop,
          ),
        ),
    );
  }
  // §4.3 rule 2, D-10: each list within maxItems, combined recipients 51.
  const cc = has('cc');
  const bcc = has('bcc');
  const recipientLimit = info.limits.find((l) => l.name === 'recipientsPerMessage');
  if (cc !== undefined && bcc !== undefined && recipientLimit !== undefined) {
    const total = recipientLimit.value + 1 - implicit;
    mutations.push(
      fc
        .tuple(
          base,
          fc.integer({ min: Math.max(0, total - recipientLimit.value), max: recipientLimit.value }),
        )
        .chain(([body, inCc]) =>
          fc
            .tuple(
              fc.array(proseValue('recipient', context) as fc.Arbitrary<string>, {
                minLength: inCc,
                maxLength: inCc,
              }),
              fc.array(proseValue('recipient', context) as fc.Arbitrary<string>, {
                minLength: total - inCc,
                maxLength: total - inCc,
              }),
            )
            .map(([ccList, bccList]) =>
              caseOf(
                { ...body, cc: ccList, bcc: bccList },
                [recipientLimit.errorCode],
                `${implicit} + ${ccList.length} cc + ${bccList.length} bcc = ${recipientLimit.value + 1} recipients (§4.3 rule 2)`,
                bccList.length > 0 ? 'bcc' : 'cc',
              ),
            ),
        ),
    );
  }
  // §2.4: an upload id the owner does not have.
  const upload = slots.find((s) => proseOf(info.kind, s.key) === 'upload');
  if (upload !== undefined) {
    mutations.push(
      fc
        .tuple(
          base,
          fc.oneof(UUID, fc.constantFrom('not-an-upload', '00000000-0000-4000-8000-000000000000')),
          fc.nat(),
        )
        .map(([body, id, pick]) => {
          const set = setSlot(body, upload, id, pick);
          return caseOf(
            set.body,
            ['attachment_not_found'],
            `${set.field} = ${id} is no upload of the owner`,
            set.field,
          );
        }),
    );
  }
  // §2.6, D-24: variables.
  const variables = slots.find((s) => s.where === 'value' && isVariables(s));
  if (variables !== undefined) {
    mutations.push(
      fc
        .tuple(
          base,
          fc.constantFrom(...RESERVED_VARIABLES),
          fc.jsonValue({ maxDepth: 0 }).filter((v) => v !== null),
        )
        .map(([body, name, value]) =>
          caseOf(
            {
              ...body,
              [variables.prop]: { ...((body[variables.prop] ?? {}) as Json), [name]: value },
            },
            ['reserved_variable'],
            `variables.${name} is reserved (D-24)`,
          ),
        ),
    );
    const pattern = String(((variables.schema.propertyNames ?? {}) as Json).pattern ?? '.*');
    mutations.push(
      fc
        .tuple(
          base,
          fc.constantFrom('1a', 'a-b', 'a b', 'é', '', ' x', 'x'.repeat(65), 'a.b', '{{x}}', '$x'),
        )
        .filter(([, name]) => !new RegExp(pattern).test(name))
        .map(([body, name]) => {
          const map: Json = { ...((body[variables.prop] ?? {}) as Json) };
          define(map, name, 'v');
          return caseOf(
            { ...body, [variables.prop]: map },
            ['invalid_variable'],
            `variable name ${JSON.stringify(name)} breaks ${pattern}`,
          );
        }),
    );
    const templated = propertiesOf(context.spec ?? contract(), info.schema)
      .filter(([, s]) => isTemplated(s))
      .map(([n]) => n);
    mutations.push(
      fc
        .tuple(
          base,
          fc.constantFrom(...templated),
          variableName(variables.schema),
          fc.constantFrom('{{%}}', '{{ % }}', 'Hi {{%}}!'),
        )
        .map(([body, field, name, shape]) => {
          const supplied = (body[variables.prop] ?? {}) as Json;
          const vars = Object.fromEntries(Object.entries(supplied).filter(([k]) => k !== name));
          // A body field may be used only when no other body field is given.
          const clean = BODY_FIELDS.includes(field) ? omit(body, BODY_FIELDS) : body;
          return caseOf(
            { ...clean, [field]: shape.replace('%', name), [variables.prop]: vars },
            ['missing_variable'],
            `${field} uses {{${name}}}, not supplied (§4.3 rule 3)`,
            `variables.${name}`,
          );
        }),
    );
  }
  // D-13, D-16, D-18: the query's prose.
  if (info.kind === 'query') {
    const q = has('q');
    if (q !== undefined) {
      mutations.push(
        fc
          .tuple(base, fc.constantFrom(...NO_WORD))
          .map(([body, v]) =>
            caseOf(
              { ...body, q: v },
              ['invalid_field'],
              `q = ${JSON.stringify(v)} has no word (D-13)`,
              'q',
            ),
          ),
      );
    }
    for (const name of ['dateFrom', 'dateTo'].filter((n) => has(n) !== undefined)) {
      mutations.push(
        fc
          .tuple(base, fc.constantFrom(...INVALID_DATES))
          .map(([body, v]) =>
            caseOf(
              { ...body, [name]: v },
              ['invalid_field'],
              `${name} = ${JSON.stringify(v)} is no accepted date (D-18)`,
              name,
            ),
          ),
      );
    }
    if (has('dateFrom') !== undefined && has('dateTo') !== undefined) {
      mutations.push(
        fc
          .tuple(base, dateValue, fc.integer({ min: 1, max: 10 ** 10 }))
          .map(([body, from, back]) => {
            const to = new Date(Date.parse(from) - back).toISOString();
            return caseOf(
              { ...body, dateFrom: from, dateTo: to },
              ['invalid_field'],
              `dateTo ${to} before dateFrom ${from} (D-18)`,
              'dateTo',
            );
          }),
      );
    }
    if (has('cursor') !== undefined) {
      mutations.push(
        fc
          .tuple(
            base,
            fc.oneof(
              fc.base64String({ minLength: 4, maxLength: 60 }),
              fc.string({ minLength: 1, maxLength: 40 }),
            ),
          )
          .map(([body, v]) =>
            caseOf(
              { ...body, cursor: v },
              ['invalid_cursor'],
              `cursor ${JSON.stringify(v)} never came from a page (D-16)`,
              'cursor',
            ),
          ),
      );
    }
    const mailbox = slots.find((s) => proseOf(info.kind, s.key) === 'mailbox');
    if (mailbox !== undefined) {
      const domain = (context.mailboxes[0] as string).split('@')[1] as string;
      mutations.push(
        fc
          .tuple(
            base,
            fc.constantFrom(
              `nobody@${EXTERNAL_DOMAIN}`,
              `box99@${domain}`,
              `box0@${EXTERNAL_DOMAIN}`,
            ),
          )
          .map(([body, v]) =>
            caseOf(
              { ...body, mailbox: v },
              ['mailbox_not_found'],
              `mailbox ${v} is not the key's (D-26)`,
              'mailbox',
            ),
          ),
      );
      mutations.push(
        fc
          .tuple(base, fc.constantFrom('nope', 'a@b', '@', 'box0', '<box0@x.conformance.test>'))
          .map(([body, v]) =>
            caseOf(
              { ...body, mailbox: v },
              ['invalid_field', 'mailbox_not_found'],
              `mailbox ${JSON.stringify(v)} is no address`,
              'mailbox',
            ),
          ),
      );
    }
  }
  return mutations;
}

/** The JSON text itself broken, or sent as another media type (D-28). */
function jsonTextMutations(base: fc.Arbitrary<Json>): CaseArb[] {
  const text = base.map((b) => JSON.stringify(b));
  const malformed: CaseArb = fc
    .tuple(
      text,
      fc.constantFrom(
        'truncated',
        'trailing comma',
        'single quotes',
        'garbage after',
        'two objects',
        'comment',
        'unquoted key',
        'NaN',
        'bare word',
      ),
      fc.nat(),
    )
    .map(([json, how, pick]) => {
      let broken: string;
      switch (how) {
        case 'truncated':
          broken = json.slice(0, pick % json.length);
          break;
        case 'trailing comma':
          broken = `${json.slice(0, -1)},}`;
          break;
        case 'single quotes':
          broken = json.replace(/"/g, "'");
          break;
        case 'garbage after':
          broken = `${json}x`;
          break;
        case 'two objects':
          broken = `${json}${json}`;
          break;
        case 'comment':
          broken = `/* note */${json}`;
          break;
        case 'unquoted key':
          broken = json.replace(/"([A-Za-z_]+)":/, '$1:');
          break;
        case 'NaN':
          broken = json === '{}' ? '{"x":NaN}' : `${json.slice(0, -1)},"x":NaN}`;
          break;
        default:
          broken = 'undefined';
      }
      if (broken === json) broken = `${json}}`;
      return makeCase(broken, ['invalid_json'], `malformed JSON (${how})`);
    });
  const notObject: CaseArb = fc
    .tuple(base, fc.constantFrom('[]', '"text"', '42', 'null', 'true', 'array of the body'))
    .map(([body, value]) =>
      makeCase(
        value === 'array of the body' ? JSON.stringify([body]) : value,
        ['invalid_json', 'invalid_field'],
        `JSON that is not an object: ${value}`,
      ),
    );
  const mediaType: CaseArb = fc
    .tuple(
      text,
      fc.constantFrom(
        '',
        'text/plain',
        'text/plain; charset=utf-8',
        'text/json',
        'application/x-www-form-urlencoded',
        'multipart/form-data; boundary=x',
        'application/xml',
        'application/octet-stream',
        'application/merge-patch+json',
        'application/vnd.api+json',
        'application/jsonx',
        'application/json-seq',
        'application/*',
        '*/*',
        'json',
      ),
    )
    .map(([json, type]) =>
      makeCase(
        json,
        ['unsupported_media_type'],
        `JSON sent as ${JSON.stringify(type || '(no Content-Type)')} (D-28)`,
        undefined,
        type,
      ),
    );
  return [malformed, notObject, mediaType];
}

/** Wrong, incomplete and malformed upload forms (§4.9, D-28). */
function invalidForm(info: OperationInfo, spec: Json): CaseArb {
  const form = validForm(info, spec);
  const known = new Set(propertiesOf(spec, info.schema).map(([n]) => n));
  const required = (info.schema.required ?? []) as string[];
  const filesLimit = info.limits.find((l) => l.keyword === 'count');
  const multipart = (
    parts: FormPart[],
    boundary: string,
    codes: string[],
    why: string,
    field?: string,
    close = true,
  ): RequestCase =>
    makeCase(
      encodeMultipart(parts, boundary, close),
      codes,
      why,
      field,
      `multipart/form-data; boundary=${boundary}`,
    );
  const fieldName = fc.oneof(
    fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_-]{0,12}$/),
    fc.constantFrom('File', 'FILE', 'files', 'file[]', 'upload', 'attachment', 'note'),
  );
  const mutations: CaseArb[] = [
    // required part missing: no part at all, or the file under another name
    form.map((f) => multipart([], f.boundary, ['file_missing'], 'no part at all', required[0])),
    // an extra field, as text or as a file (additionalProperties: false)
    fc
      .tuple(
        form,
        fieldName.filter((n) => !known.has(n)),
        fc.boolean(),
        fc.boolean(),
      )
      .map(([f, name, asFile, before]) => {
        const extra: FormPart = asFile
          ? { name, filename: 'extra.txt', contentType: 'text/plain', content: 'extra' }
          : { name, content: 'extra' };
        const parts = before ? [extra, ...f.parts] : [...f.parts, extra];
        return multipart(
          parts,
          f.boundary,
          ['unknown_field'],
          `extra form field ${JSON.stringify(name)}${asFile ? ' (a file)' : ''}`,
          name,
        );
      }),
    fc
      .tuple(
        form,
        fieldName.filter((n) => !known.has(n)),
      )
      .map(([f, name]) =>
        multipart(
          f.parts.map((p) => ({ ...p, name })),
          f.boundary,
          ['unknown_field', 'file_missing'],
          `the file under ${JSON.stringify(name)} instead of file`,
          undefined,
        ),
      ),
    // an empty file
    form.map((f) =>
      multipart(
        f.parts.map((p) => ({ ...p, content: '' })),
        f.boundary,
        ['file_empty'],
        'the file is empty (§4.9)',
        'file',
      ),
    ),
    // two files (x-limits filesPerUpload)
    fc.tuple(form, fileContent()).map(([f, content]) =>
      multipart(
        [
          ...f.parts,
          {
            ...(f.parts[0] as FormPart),
            filename: 'second.txt',
            content: content.split(f.boundary).join('x'),
          },
        ],
        f.boundary,
        [filesLimit?.errorCode ?? 'too_many_files'],
        'two files in the field file (§4.9, §8)',
        'file',
      ),
    ),
    // text, not a file
    form.map((f) =>
      multipart(
        f.parts.map((p) => ({ name: p.name as string, content: p.content })),
        f.boundary,
        ['file_missing'],
        'the field file holds text, not a file',
        'file',
      ),
    ),
    // malformed multipart
    fc
      .tuple(
        form,
        fc.constantFrom(
          'bad boundary',
          'no closing boundary',
          'part without name',
          'part without headers',
          'garbage',
          'empty body',
          'bad part header',
          'no CRLF after headers',
        ),
      )
      .map(([f, how]) => {
        const codes = ['invalid_multipart', 'file_missing'];
        const why = `malformed multipart: ${how}`;
        const type = `multipart/form-data; boundary=${f.boundary}`;
        const file = f.parts[0] as FormPart;
        switch (how) {
          case 'bad boundary':
            return makeCase(
              encodeMultipart(f.parts, `${f.boundary}X`),
              codes,
              why,
              undefined,
              type,
            );
          case 'no closing boundary':
            return multipart(f.parts, f.boundary, codes, why, undefined, false);
          case 'part without name':
            return multipart([{ ...file, name: undefined }] as FormPart[], f.boundary, codes, why);
          case 'part without headers':
            return makeCase(
              `--${f.boundary}\r\n\r\n${file.content}\r\n--${f.boundary}--\r\n`,
              codes,
              why,
              undefined,
              type,
            );
          case 'garbage':
            return makeCase('this is not a multipart body', codes, why, undefined, type);
          case 'empty body':
            return makeCase('', codes, why, undefined, type);
          case 'bad part header':
            return makeCase(
              `--${f.boundary}\r\nnot a header line\r\n\r\n${file.content}\r\n--${f.boundary}--\r\n`,
              codes,
              why,
              undefined,
              type,
            );
          default:
            return makeCase(
              `--${f.boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.txt"${file.content}--${f.boundary}--`,
              codes,
              why,
              undefined,
              type,
            );
        }
      }),
    // not multipart/form-data (D-28)
    fc
      .tuple(
        form,
        fc.constantFrom(
          'application/json',
          'text/plain',
          'application/x-www-form-urlencoded',
          'application/octet-stream',
          'multipart/mixed',
          '',
        ),
      )
      .map(([f, type]) => {
        const body =
          type === 'application/json'
            ? '{"file":"x"}'
            : type === 'application/x-www-form-urlencoded'
              ? 'file=x'
              : encodeMultipart(f.parts, f.boundary);
        const sent = type === 'multipart/mixed' ? `multipart/mixed; boundary=${f.boundary}` : type;
        return makeCase(
          body,
          ['unsupported_media_type'],
          `an upload sent as ${JSON.stringify(sent || '(no Content-Type)')} (D-28)`,
          undefined,
          sent,
        );
      }),
    form.map((f) =>
      makeCase(
        encodeMultipart(f.parts, f.boundary),
        ['invalid_multipart', 'unsupported_media_type'],
        'multipart/form-data without its boundary parameter',
        undefined,
        'multipart/form-data',
      ),
    ),
  ];
  return fc.oneof(...mutations);
}

/**
 * Valid requests at the edges, which must be accepted: strings of exactly maxLength code points
 * (astral characters count once, D-9), lists exactly at their limit (combined recipients 50,
 * 20 attachments), maps at maxProperties, integers at minimum and maximum, odd Unicode in one
 * text field, other spellings of the JSON media type (D-28) and of the JSON text, templates
 * using supplied and reserved variables, `{{…}}` in HTML (§2.6: variables do not apply), and
 * for uploads a part without a Content-Type (D-44: text/plain, RFC 7578), odd file names and
 * other spellings of the media type.
 */
export function edgeCase(operationId: string, context: RequestContext): CaseArb {
  const spec = context.spec ?? contract();
  const info = operationInfo(operationId, spec);
  if (info.kind === 'multipart') return edgeForm(info, spec);
  const rule = bodyRule(info);
  const base = validObject(info.schema, info.kind, context, spec, rule);
  const slots = slotsOf(info, spec);
  const implicit = context.implicitRecipients ?? 1;
  const ok = (body: Json, why: string, contentType?: string): RequestCase =>
    makeCase(
      info.kind === 'query' ? asQuery(body) : body,
      [],
      why,
      undefined,
      contentType ?? (info.kind === 'json' ? 'application/json' : ''),
    );
  const edges: CaseArb[] = [];

  // Strings exactly at maxLength.
  const bounded = slots.filter(
    (s) =>
      typesOf(s.schema).includes('string') &&
      s.schema.maxLength !== undefined &&
      !['upload', 'mailbox', 'date', 'cursor'].includes(proseOf(info.kind, s.key) ?? ''),
  );
  if (bounded.length > 0) {
    edges.push(
      fc.tuple(base, fc.constantFrom(...bounded), fc.nat()).chain(([body, slot, pick]) => {
        const max = Number(slot.schema.maxLength);
        return exactValue(info, slot, max, context).map((value) => {
          const set = setSlot(body, slot, value, pick);
          return ok(set.body, `${set.field} of exactly ${max} code points (maxLength, D-9)`);
        });
      }),
    );
  }
  // Combined recipients exactly at the limit; attachments exactly at the limit.
  const recipientLimit = info.limits.find((l) => l.name === 'recipientsPerMessage');
  if (
    recipientLimit !== undefined &&
    slots.some((s) => s.key === 'cc') &&
    slots.some((s) => s.key === 'bcc')
  ) {
    const total = recipientLimit.value - implicit;
    const recipient = proseValue('recipient', context) as fc.Arbitrary<string>;
    edges.push(
      fc
        .tuple(base, fc.integer({ min: 0, max: total }))
        .chain(([body, inCc]) =>
          fc
            .tuple(
              fc.array(recipient, { minLength: inCc, maxLength: inCc }),
              fc.array(recipient, { minLength: total - inCc, maxLength: total - inCc }),
            )
            .map(([c, b]) =>
              ok(
                { ...body, cc: c, bcc: b },
                `${implicit} + ${c.length} cc + ${b.length} bcc = ${recipientLimit.value} recipients (D-10)`,
              ),
            ),
        ),
    );
  }
  const attachmentLimit = info.limits.find((l) => l.name === 'attachmentsPerMessage');
  if (attachmentLimit !== undefined && context.uploadIds.length >= attachmentLimit.value) {
    edges.push(
      fc
        .tuple(
          base,
          fc.shuffledSubarray([...context.uploadIds], {
            minLength: attachmentLimit.value,
            maxLength: attachmentLimit.value,
          }),
        )
        .map(([body, ids]) =>
          ok(
            { ...body, [attachmentLimit.field]: ids },
            `exactly ${attachmentLimit.value} attachments (§8)`,
          ),
        ),
    );
  }
  for (const slot of slots.filter(
    (s) => s.where === 'value' && s.schema.maxProperties !== undefined,
  )) {
    const max = Number(slot.schema.maxProperties);
    edges.push(
      fc
        .tuple(
          base,
          fc.uniqueArray(variableName(slot.schema), { minLength: max, maxLength: max }),
          fc.constantFrom('x', 1, true),
        )
        .map(([body, names, value]) => {
          const map: Json = {};
          for (const n of names) define(map, n, value);
          return ok(
            { ...body, [slot.prop]: map },
            `${slot.prop} with exactly ${max} members (maxProperties)`,
          );
        }),
    );
  }
  // Integers at their bounds.
  for (const slot of slots.filter(
    (s) => s.where === 'value' && typesOf(s.schema).includes('integer'),
  )) {
    const bounds = [slot.schema.minimum, slot.schema.maximum].filter(
      (b): b is number => typeof b === 'number',
    );
    if (bounds.length > 0) {
      edges.push(
        fc
          .tuple(base, fc.constantFrom(...bounds))
          .map(([body, n]) => ok({ ...body, [slot.prop]: n }, `${slot.prop} = ${n}, at its bound`)),
      );
    }
  }
  // Odd Unicode in one free-text field (display names included).
  const texts = slots.filter(
    (s) =>
      typesOf(s.schema).includes('string') &&
      s.schema.enum === undefined &&
      (proseOf(info.kind, s.key) === undefined ||
        isAddress(info, s) ||
        proseOf(info.kind, s.key) === 'search'),
  );
  if (texts.length > 0) {
    edges.push(
      fc
        .tuple(
          base,
          fc.constantFrom(...texts),
          fc.constantFrom(...ODD_UNICODE),
          fc.constantFrom(...ODD_NAMES),
          fc.nat(),
          proseValue('recipient', context),
        )
        .map(([body, slot, odd, name, pick, recipient]) => {
          let value: string;
          if (isAddress(info, slot)) {
            const address =
              proseOf(info.kind, slot.key) === 'sender'
                ? (context.mailboxes[0] as string)
                : String(recipient).replace(/^.*<|>$/g, '');
            value = `${name} <${address}>`;
          } else if (proseOf(info.kind, slot.key) === 'search') {
            value = `${odd} word`;
          } else {
            value = odd;
          }
          const clean =
            BODY_FIELDS.includes(slot.prop) && rule !== undefined ? omit(body, BODY_FIELDS) : body;
          const set = setSlot(clean, slot, value, pick, 'odd');
          return ok(set.body, `odd Unicode in ${set.field}: ${JSON.stringify(value).slice(0, 60)}`);
        }),
    );
  }
  if (info.kind === 'json') {
    // D-28: parameters and case of application/json; the JSON text spelt differently.
    edges.push(
      fc
        .tuple(
          base,
          fc.constantFrom(
            'application/json; charset=utf-8',
            'application/json;charset=UTF-8',
            'APPLICATION/JSON',
            'Application/Json ; charset="utf-8"',
          ),
        )
        .map(([body, type]) => ok(body, `Content-Type ${type} (D-28)`, type)),
      fc
        .tuple(base, fc.constantFrom('pretty', 'escaped', 'reordered', 'spaces'))
        .map(([body, how]) => {
          const text =
            how === 'pretty'
              ? JSON.stringify(body, null, 2)
              : how === 'escaped'
                ? JSON.stringify(body).replace(
                    /[\u007f-\uffff]/g,
                    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
                  )
                : how === 'reordered'
                  ? JSON.stringify(Object.fromEntries(Object.entries(body).reverse()))
                  : ` \r\n\t${JSON.stringify(body)} \n`;
          return makeCase(text, [], `the JSON text spelt differently (${how})`);
        }),
    );
  }
  // §2.6: templates using supplied variables, the reserved ones, and {{…}} in HTML.
  const variables = slots.find((s) => s.where === 'value' && isVariables(s));
  if (variables !== undefined) {
    const templated = propertiesOf(spec, info.schema)
      .filter(([, s]) => isTemplated(s))
      .map(([n]) => n);
    edges.push(
      fc
        .tuple(
          base,
          fc.constantFrom(...templated),
          variableName(variables.schema),
          fc.oneof(
            fc.string({ maxLength: 20 }),
            fc.double({ noNaN: true, noDefaultInfinity: true }),
            fc.boolean(),
          ),
          fc.constantFrom('{{%}}', '{{ % }}', 'Dear {{%}}, {{email}} {{ unsubscribe_url }}'),
        )
        .map(([body, field, name, value, shape]) => {
          const clean = BODY_FIELDS.includes(field) ? omit(body, BODY_FIELDS) : body;
          const map: Json = { ...((body[variables.prop] ?? {}) as Json) };
          define(map, name, value);
          return ok(
            { ...clean, [field]: shape.replace('%', name), [variables.prop]: map },
            `${field} uses {{${name}}}, supplied (§2.6)`,
          );
        }),
    );
    if (rule !== undefined) {
      edges.push(
        fc
          .tuple(base, variableName(variables.schema))
          .map(([body, name]) =>
            ok(
              { ...omit(body, BODY_FIELDS), html: `<p>{{${name}}} is not a variable here</p>` },
              `html uses {{${name}}}, never supplied: variables do not apply to HTML (§2.6)`,
            ),
          ),
      );
    }
  }
  return fc.oneof(...edges);
}

/** A string of exactly `length` code points for a slot. */
function exactValue(
  info: OperationInfo,
  slot: Slot,
  length: number,
  context: RequestContext,
): fc.Arbitrary<string> {
  if (isAddress(info, slot)) {
    const prose = proseOf(info.kind, slot.key);
    const address =
      prose === 'sender'
        ? (context.mailboxes[0] as string)
        : (context.mailboxes[context.mailboxes.length - 1] as string);
    const rest = codePoints(` <${address}>`);
    return filler(length - rest, NAME_FILLER).map((name) => `${name} <${address}>`);
  }
  if (proseOf(info.kind, slot.key) === 'search') return filler(length - 5).map((s) => `word ${s}`);
  return filler(length);
}

/**
 * §2.4, D-44: the upload keeps its file name and media type (`text/plain`, RFC 7578, when
 * the part has none); its size is the file's bytes.
 */
function uploadExpectation(form: UploadForm): Json {
  const file = form.parts.find((p) => p.filename !== undefined) as FormPart;
  return {
    name: file.filename,
    contentType: file.contentType ?? 'text/plain',
    size: Buffer.byteLength(file.content, 'utf8'),
  };
}

/** Valid uploads at the edges (§4.9, D-44). */
function edgeForm(info: OperationInfo, spec: Json): CaseArb {
  const form = validForm(info, spec);
  const send = (
    f: UploadForm,
    why: string,
    type = `multipart/form-data; boundary=${f.boundary}`,
  ): RequestCase => ({
    ...makeCase(encodeMultipart(f.parts, f.boundary), [], why, undefined, type),
    expectedResponse: uploadExpectation(f),
  });
  return fc.oneof(
    form.map((f) =>
      send(
        {
          ...f,
          parts: f.parts.map(
            (p) => omit(p as unknown as Json, ['contentType']) as unknown as FormPart,
          ),
        },
        'a file part without Content-Type (D-44: text/plain, RFC 7578)',
      ),
    ),
    fc
      .tuple(form, fc.constantFrom(...ODD_NAMES))
      .map(([f, name]) =>
        send(
          { ...f, parts: f.parts.map((p) => ({ ...p, filename: `${name}.bin` })) },
          `odd Unicode in the file name: ${name}`,
        ),
      ),
    fc
      .tuple(
        form,
        fc.constantFrom(
          'Multipart/Form-Data; boundary=%',
          'multipart/form-data; boundary="%"',
          'multipart/form-data;boundary=%',
          'multipart/form-data; charset=utf-8; boundary=%',
        ),
      )
      .map(([f, type]) => send(f, `Content-Type spelt ${type}`, type.replace('%', f.boundary))),
  );
}

function omit(body: Json, names: readonly string[]): Json {
  const copy: Json = {};
  for (const [k, v] of Object.entries(body)) if (!names.includes(k)) define(copy, k, v);
  return copy;
}

/** Sets an own member, `__proto__` included (an assignment would set the prototype). */
function define(target: Json, name: string, value: unknown): void {
  Object.defineProperty(target, name, {
    value,
    enumerable: true,
    writable: true,
    configurable: true,
  });
}

function describe(value: unknown): string {
  const text = JSON.stringify(value);
  return text === undefined ? String(value) : text.slice(0, 60);
}

// ---------------------------------------------------------------------------------------------
// The one rule each case checks
// ---------------------------------------------------------------------------------------------

/** What an operation's valid requests verify by being accepted. */
const ACCEPTANCE_RULES: Record<string, string> = {
  sendEmail: '4.3-R1',
  replyToEmail: '4.7-R2',
  forwardEmail: '4.8-R1',
  updateEmail: '4.5-R1',
  listEmails: '4.2-R1',
  uploadAttachment: '4.9-R1',
};

/** Required fields the document itself marks required (§4.2, §4.3, §4.8). */
const DOCUMENTED_REQUIRED: Record<string, Record<string, string>> = {
  sendEmail: { from: '4.3-R6', to: '4.3-R7', subject: '4.3-R9' },
  forwardEmail: { to: '4.8-R1' },
  listEmails: { mailbox: '4.2-R1' },
};

/**
 * The rule a case's marker names: the parenthesis that ends its `why` (`(D-11)`, `(§4.3 rule
 * 2)`, `(§8)`), never a word of the generated data before it.
 */
const MARKERS: [RegExp, string][] = [
  [/\(§4\.3 rule 1\)$/, '4.3-R1'],
  [/\(§4\.3 rule 2\)$/, '4.3-R2'],
  [/\(§4\.3 rule 3\)$/, '4.3-R3'],
  [/\(§4\.9, §8\)$/, '8-R8'],
  [/\(§4\.9\)$/, '8-R8'],
  [/attachments \(§8\)$/, '8-R4'],
  [/never supplied: variables do not apply to HTML \(§2\.6\)$/, '2.6-R3'],
  [/supplied \(§2\.6\)$/, '2.6-R2'],
  [/\(D-44[^()]*\)$/, '4.9-R1'],
  // A decision named in the closing parenthesis: `(D-11)`, `(maxLength, D-9)`.
  [/\([^()]*\b(D-\d+)\b[^()]*\)$/, '$1'],
];

/** Error codes whose condition the document names (§4.3, §8), or one decision fixes. */
const CODE_RULES: Record<string, string> = {
  unknown_field: 'D-31',
  invalid_folder: 'D-5',
  limit_too_large: 'D-15',
  invalid_cursor: 'D-16',
  attachment_not_found: 'D-32',
  mailbox_not_found: 'D-26',
  unsupported_media_type: 'D-28',
  reserved_variable: 'D-24',
  invalid_variable: 'D-24',
  missing_variable: '4.3-R3',
  body_required: '4.3-R1',
  body_conflict: '4.3-R1',
  too_many_recipients: '4.3-R2',
  too_many_attachments: '8-R4',
  file_empty: '8-R8',
  too_many_files: '8-R8',
  file_missing: '4.9-R1',
  invalid_multipart: '4.9-R1',
};

/**
 * The one rule a generated case verifies: for an invalid one, the rule that says it must be
 * refused (a documented rule where the document says so: a missing required field, §4.3's
 * rules, §8's limits; else the decision that refuses it, D-12 by default); for a valid one, the
 * rule that says it must be accepted. Its error code and field are decided (D-12) unless the
 * refusal itself is: see {@link codeRule}.
 */
export function caseRule(operationId: string, c: RequestCase): string {
  if (c.expectedCodes.length === 0) {
    for (const [marker, rule] of MARKERS) {
      const found = marker.exec(c.why);
      if (found !== null) return rule.replace('$1', found[1] ?? '');
    }
    return ACCEPTANCE_RULES[operationId] ?? '4.3-R1';
  }
  if (c.why.startsWith('wrong type'))
    return c.expectedCodes.includes('invalid_variable') ? 'D-24' : 'D-12';
  if (operationId === 'updateEmail' && c.expectedCodes.includes('missing_field')) return 'D-20';
  if (c.expectedCodes.includes('missing_field') && c.expectedField !== undefined)
    return DOCUMENTED_REQUIRED[operationId]?.[c.expectedField] ?? 'D-12';
  if (operationId === 'sendEmail' && c.expectedCodes.includes('subject_too_long')) return '4.3-R9';
  for (const [marker, rule] of MARKERS) {
    const found = marker.exec(c.why);
    if (found !== null) return rule.replace('$1', found[1] ?? '');
  }
  for (const code of c.expectedCodes) if (CODE_RULES[code] !== undefined) return CODE_RULES[code];
  return 'D-12';
}

/** The rule a refused case's code and field are charged to: its own if decided, else D-12. */
export function codeRule(operationId: string, c: RequestCase): string {
  const rule = caseRule(operationId, c);
  return rule.startsWith('D-') ? rule : 'D-12';
}

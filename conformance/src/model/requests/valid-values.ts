/**
 * Valid values from a schema, keyword by keyword (type, enum, properties, required, lengths,
 * items, maps, minimum and maximum), with the prose's hooks where a schema cannot say enough;
 * valid objects for a body or a query.
 */
import fc from 'fast-check';
import { deref, propertiesOf, typesOf } from './operations.ts';
import {
  BODY_FIELDS,
  DOCUMENTED_FOLDERS,
  RESERVED_VARIABLES,
  proseOf,
  type Prose,
} from './prose.ts';
import type { Json, RequestContext, RequestKind, Schema } from './request-types.ts';
import { dateValue, freeText, recipientAddress, searchText, withName } from './text-values.ts';

/** Arrays in generated bodies stay short (combined recipients ≪ 50); limits are edge cases. */
const ARRAY_CAP = 3;
const MAP_CAP = 4;

export const variableName = (schema: Schema): fc.Arbitrary<string> => {
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

export function valueFor(
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

export function proseValue(prose: Prose, context: RequestContext): fc.Arbitrary<unknown> {
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
export function validObject(
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
export function asQuery(body: Json): Record<string, string> {
  return Object.fromEntries(
    Object.entries(body)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => [k, String(v)]),
  );
}

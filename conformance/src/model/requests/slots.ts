/**
 * What a mutation or an edge case changes: the slots of a body (each field, list item and map
 * entry), setting one in a copy, the codes a slot's errors may carry, values of a chosen
 * length, wrong values and unknown names, and the request case built from a changed body.
 */
import fc from 'fast-check';
import { deref, propertiesOf, typesOf, type Limit, type OperationInfo } from './operations.ts';
import { ENUM_CODES, proseOf } from './prose.ts';
import type { Json, RequestCase, RequestContext, Schema } from './request-types.ts';
import { NAME_FILLER, codePoints, filler } from './text-values.ts';
import { valueFor } from './valid-values.ts';

/** What may change between generated cases: the body (and the query), by name. */
export interface Slot {
  /** `to`, `cc[]`, `variables.*` */
  key: string;
  prop: string;
  where: 'value' | 'item' | 'entry';
  schema: Schema;
  ref?: string;
  required: boolean;
}

export function slotsOf(info: OperationInfo, spec: Json): Slot[] {
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
export function setSlot(
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
export const isVariables = (slot: Slot) => slot.ref === 'Variables';
export const isAddress = (info: OperationInfo, slot: Slot) => {
  const prose = proseOf(info.kind, slot.key);
  return prose === 'sender' || prose === 'recipient';
};

/** The codes a type or value error of this slot may carry. */
export function valueCodes(info: OperationInfo, slot: Slot): string[] {
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
export function wrongValue(info: OperationInfo, schema: Schema): fc.Arbitrary<unknown> | undefined {
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
export const unknownName = fc.oneof(
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
export function limitCode(
  info: OperationInfo,
  field: string,
  keyword: Limit['keyword'],
): Limit | undefined {
  return info.limits.find((l) => l.field === field && l.keyword === keyword);
}

export type CaseArb = fc.Arbitrary<RequestCase>;

export const makeCase = (
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

/** A value of `length` code points for a slot: a padded display name for addresses. */
export function longValue(
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
export function itemsOf(
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

/** A string of exactly `length` code points for a slot. */
export function exactValue(
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

export function omit(body: Json, names: readonly string[]): Json {
  const copy: Json = {};
  for (const [k, v] of Object.entries(body)) if (!names.includes(k)) define(copy, k, v);
  return copy;
}

/** Sets an own member, `__proto__` included (an assignment would set the prototype). */
export function define(target: Json, name: string, value: unknown): void {
  Object.defineProperty(target, name, {
    value,
    enumerable: true,
    writable: true,
    configurable: true,
  });
}

export function describe(value: unknown): string {
  const text = JSON.stringify(value);
  return text === undefined ? String(value) : text.slice(0, 60);
}

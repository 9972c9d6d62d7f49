/**
 * Per-operation assembly of invalid requests: one mutation of a valid body per case (wrong
 * type, missing or unknown field, a value past its limit), with the prose's, the JSON text's
 * and the upload form's own mutations, each with the codes and `field` the contract expects.
 */
import fc from 'fast-check';
import { contract, operationInfo, propertiesOf, typesOf } from './operations.ts';
import { invalidForm } from './invalid-forms.ts';
import { jsonTextMutations } from './json-text-mutations.ts';
import { proseMutations } from './prose-mutations.ts';
import { BODY_FIELDS, ENUM_CODES, bodyRule } from './prose.ts';
import type { Json, RequestCase, RequestContext } from './request-types.ts';
import {
  define,
  describe,
  isVariables,
  itemsOf,
  limitCode,
  longValue,
  makeCase,
  omit,
  setSlot,
  slotsOf,
  unknownName,
  valueCodes,
  wrongValue,
  type CaseArb,
  type Slot,
} from './slots.ts';
import { freeText } from './text-values.ts';
import { asQuery, validObject, variableName } from './valid-values.ts';

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

/**
 * Per-operation assembly of valid requests at the edges, which must be accepted: values at
 * their limits, odd Unicode, other spellings of the media type and of the JSON text,
 * templates, and uploads at the edges of §4.9 and D-44.
 */
import fc from 'fast-check';
import {
  contract,
  operationInfo,
  propertiesOf,
  typesOf,
  type OperationInfo,
} from './operations.ts';
import { encodeMultipart, uploadExpectation, validForm } from './multipart.ts';
import { BODY_FIELDS, bodyRule, isTemplated, proseOf } from './prose.ts';
import type { FormPart, Json, RequestCase, RequestContext, UploadForm } from './request-types.ts';
import {
  define,
  exactValue,
  isAddress,
  isVariables,
  makeCase,
  omit,
  setSlot,
  slotsOf,
  type CaseArb,
} from './slots.ts';
import { ODD_NAMES, ODD_UNICODE, clip } from './text-values.ts';
import { asQuery, proseValue, validObject, variableName } from './valid-values.ts';

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
          // Odd, yet within the field's maxLength in code points: longer, it would be an invalid
          // request (from, a filter of at most 254), not an edge of a valid one.
          if (typeof slot.schema.maxLength === 'number') value = clip(value, slot.schema.maxLength);
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

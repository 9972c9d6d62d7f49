/**
 * Invalid mutations of the prose's rules, one at a time: addresses (D-11), body fields (§4.3
 * rule 1), recipients (§4.3 rule 2), variables (§2.6, D-24), uploads (§8), dates (D-18),
 * cursors (D-16) and search words (D-13).
 */
import fc from 'fast-check';
import { contract, propertiesOf, type OperationInfo } from './operations.ts';
import { BODY_FIELDS, EXTERNAL_DOMAIN, RESERVED_VARIABLES, isTemplated, proseOf } from './prose.ts';
import type { Json, RequestCase, RequestContext } from './request-types.ts';
import { define, isAddress, isVariables, omit, setSlot, type CaseArb, type Slot } from './slots.ts';
import { INVALID_ADDRESSES, INVALID_DATES, NO_WORD, UUID, dateValue } from './text-values.ts';
import { proseValue, variableName } from './valid-values.ts';

/** The rules of the prose, broken one at a time. */
export function proseMutations(
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
          // Distinct addresses, none the implicit recipient's: 51 of them break §4.3 rule 2
          // however a deployment counts; with a duplicate, only D-10's counting would. A
          // repeated address gives way to one numbered by its place (so generation always ends).
          fc
            .array(proseValue('recipient', context) as fc.Arbitrary<string>, {
              minLength: total,
              maxLength: total,
            })
            .map((list) => distinctRecipients(list, implicitKeys(body)))
            .map((list) => [list.slice(0, inCc), list.slice(inCc)] as const)
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

/** `list` with every address a deployment would count twice (or `taken`) replaced. */
function distinctRecipients(list: string[], taken: string[]): string[] {
  const seen = new Set(taken);
  return list.map((recipient, i) => {
    let unique = recipient;
    for (let n = 0; seen.has(addressKey(unique)); n += 1)
      unique = `r${i}.${n}.distinct@${EXTERNAL_DOMAIN}`;
    seen.add(addressKey(unique));
    return unique;
  });
}

/** An address as a deployment may count it once: the part in angle brackets, lower case. */
function addressKey(recipient: string): string {
  return (/<([^>]*)>\s*$/.exec(recipient)?.[1] ?? recipient).trim().toLowerCase();
}

/** The keys of the recipients a body already names (`to`, as a string or a list). */
function implicitKeys(body: Record<string, unknown>): string[] {
  const to = body.to;
  const list = Array.isArray(to) ? to : to === undefined ? [] : [to];
  return list.filter((r): r is string => typeof r === 'string').map(addressKey);
}

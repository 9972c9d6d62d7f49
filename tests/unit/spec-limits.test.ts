/**
 * The emulator enforces exactly the bounds the specs declare (D-51, D-61): for every
 * `maxLength`, `maxItems` and `maxProperties` of a request parameter or body in
 * spec/openapi.yaml and spec/control.yaml, a value exactly at the bound is accepted (answered
 * 2xx, or 404 when it names nothing: it was looked up, not refused), and one more is refused
 * with 400, the documented code and `field` naming it. The cases are generated from the
 * documents, so a bound added to a spec is tested here without a new test; every bound is also
 * listed in `x-limits` (the API) and cited in spec/DECISIONS.md with its value.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  addressOfLength,
  domainOfLength,
  EXTERNAL,
  demoWorld,
  send,
  SENDER,
  type World,
} from './limits/demo-world.ts';
import { callWith, CLEAN_UP } from './limits/requests.ts';
import {
  deref,
  describeLimit,
  everyBound,
  fieldOf,
  requestLimits,
  SPEC_FILES,
  type Json,
  type RequestLimit,
} from './limits/spec-walk.ts';

const [OPENAPI, CONTROL] = SPEC_FILES as [(typeof SPEC_FILES)[0], (typeof SPEC_FILES)[0]];
const DECISIONS = readFileSync(
  fileURLToPath(new URL('../../spec/DECISIONS.md', import.meta.url)),
  'utf8',
);

interface XLimit {
  value: number;
  keyword?: string;
  fields?: string[];
  appliesTo: string[] | 'all';
  errorCode: string;
}
const X_LIMITS = Object.entries(OPENAPI.document['x-limits'] as Record<string, unknown>).filter(
  (e): e is [string, XLimit] => typeof e[1] === 'object' && e[1] !== null,
);

/** The name a limit is known by: the parameter, the body member, or the list of an item. */
const nameOf = (limit: RequestLimit) =>
  String(limit.at.filter((p) => typeof p === 'string').at(-1));
/** The top-level member or parameter (`attachments` of `attachments[0].name`). */
const topOf = (limit: RequestLimit) => String(limit.at[0]);

/** The API's limit entry for a bound: same operation, field and keyword. */
function xLimitOf(limit: RequestLimit): [string, XLimit] | undefined {
  return X_LIMITS.find(
    ([, x]) =>
      x.keyword === limit.keyword &&
      (x.fields ?? []).includes(topOf(limit)) &&
      (x.appliesTo === 'all' || x.appliesTo.includes(limit.operation.operationId)),
  );
}

/**
 * The code a value over the bound gets: the API's `x-limits` says; on the control plane it is
 * `invalid_field`, except that a subject keeps §8's own code (D-61).
 */
function expectedCode(limit: RequestLimit): string {
  if (limit.operation.spec === OPENAPI) return xLimitOf(limit)?.[1].errorCode ?? '(none)';
  // A message's subject keeps §8's code; a `subject` filter is a filter, as in the API (D-54).
  return nameOf(limit) === 'subject' && limit.in === 'body' ? 'subject_too_long' : 'invalid_field';
}

/**
 * §4.3 rule 2 and D-10: `cc` and `bcc` share the 50 recipients with the one recipient every
 * message already has (send's and forward's `to`, the replied-to sender), so exactly 50 in all
 * is 49 in one list, and 51 in all is 50.
 */
const OTHER_RECIPIENTS: Record<string, number> = { sendEmail: 1, forwardEmail: 1, replyToEmail: 1 };
const isCombined = (limit: RequestLimit) =>
  limit.operation.spec === OPENAPI && xLimitOf(limit)?.[0] === 'recipientsPerMessage';

// ---------------------------------------------------------------------------------------------
// Values of exactly n code points (or n items, n members) that are otherwise valid
// ---------------------------------------------------------------------------------------------

/** One code point each, astral ones included, so a length counted in UTF-16 units fails. */
const FILLER = ['a', 'é', '😀', 'b', '中', '𝕳'];
const filler = (n: number) =>
  Array.from({ length: n }, (_, i) => FILLER[i % FILLER.length]).join('');
/** Letters and digits only, unique per case, for IDs and names with a pattern. */
const ascii = (n: number, tag: string) =>
  tag
    .replace(/[^A-Za-z0-9]/g, '')
    .padEnd(n, 'a')
    .slice(0, n);

/** An RFC 3339 date-time of n code points (D-18 allows 1 to 9 digits of fraction: 27 to 35). */
function dateOfLength(n: number, future: boolean): string {
  const day = future ? new Date(Date.now() + 86_400_000) : new Date('2020-01-01T00:00:00Z');
  return `${day.toISOString().slice(0, 19)}.${'1'.repeat(n - 26)}+00:00`;
}

/** A cursor the emulator issued, with JSON whitespace added until it is n characters long. */
/**
 * An outbox cursor of exactly n characters that the emulator accepts (D-71): position 1 and the
 * fingerprint of no filters, the JSON padded with spaces; a length base64url cannot have (4k+1)
 * is only ever over a bound, where any text of that length does.
 */
function outboxCursorOfLength(n: number): string {
  if (n % 4 === 1) return 'A'.repeat(n);
  const fingerprint = createHash('sha256').update('[]').digest('base64url').slice(0, 16);
  const bytes = Math.floor((n * 3) / 4);
  const json = `[1,"${fingerprint}"`;
  return Buffer.from(`${json}${' '.repeat(bytes - json.length - 1)}]`).toString('base64url');
}

async function cursorOfLength(world: World, n: number): Promise<string> {
  const page = await send(world, {
    base: '/openapi/v1',
    method: 'get',
    path: '/emails',
    query: { mailbox: SENDER, limit: '1' },
  });
  const issued = String(page.json?.nextCursor);
  const json = Buffer.from(issued, 'base64url').toString('utf8');
  // Base64url without padding: b bytes take ceil(4b/3) characters; n ≡ 1 (mod 4) is no length.
  const bytes = Math.floor((n * 3) / 4);
  if (Math.ceil((bytes * 4) / 3) !== n) return `${await cursorOfLength(world, n - 1)}A`;
  return Buffer.from(json.replace('[', `[${' '.repeat(bytes - json.length)}`)).toString(
    'base64url',
  );
}

/** Address strings of D-58: a display name padded so the whole is n code points. */
function namedAddress(n: number, address: string): string {
  const tail = ` <${address}>`;
  return `${filler(n - [...tail].length).replace(/^\s+/, 'N')}${tail}`;
}

/** Values that must name something that exists to be accepted. */
const EXISTING_ADDRESS = [
  'listEmails mailbox',
  'injectInboundEmail mailbox',
  'createKey mailboxes',
];

async function stringOfLength(world: World, limit: RequestLimit, n: number, tag: string) {
  const name = nameOf(limit);
  const where = `${limit.operation.operationId} ${name}`;
  if (['mailbox', 'address', 'mailboxes'].includes(name)) {
    if (n === [...world.longMailbox].length && EXISTING_ADDRESS.includes(where))
      return world.longMailbox;
    return addressOfLength(n, tag);
  }
  if (where === 'createKey domain' && n === [...world.longDomain].length) return world.longDomain;
  if (name === 'domain' || where === 'createDomain name') return domainOfLength(n, tag);
  if (limit.in === 'body' && ['from', 'to', 'cc', 'bcc', 'replyTo'].includes(name)) {
    const sender = limit.operation.operationId === 'sendEmail' ? SENDER : 'bob@partner.test';
    return namedAddress(n, name === 'from' ? sender : EXTERNAL);
  }
  if (['dateFrom', 'dateTo', 'receivedAt', 'sentAt', 'set'].includes(name))
    return dateOfLength(n, name === 'set');
  if (where === 'listOutbox cursor') return outboxCursorOfLength(n);
  if (name === 'cursor') return cursorOfLength(world, n);
  if (name === 'url') return `https://hooks.example.com/${'a'.repeat(n - 26)}`;
  if (['messageId', 'inReplyTo', 'references'].includes(name))
    return `<${'m'.repeat(n - 15)}@partner.test>`;
  if (name === 'secret' && limit.operation.operationId === 'createKey')
    return `sk-${ascii(12, tag)}_${ascii(32, `k${tag}`)}`.padEnd(n, 'x');
  if (name === 'secret') return `whsec_${ascii(Math.min(n - 6, 64), tag)}`.padEnd(n, 'x');
  if (name === 'contentType') return `application/${'x'.repeat(n - 12)}`;
  if (where === 'armChaos text') return `4.3.0 ${'x'.repeat(n - 6)}`; // an SMTP reply: ASCII
  if (where === 'armChaos code') return 'c'.repeat(n); // an Error code (D-12)
  if (/(^id$|Id$|Ids$)/.test(name)) return ascii(n, tag);
  return filler(n);
}

/** Valid items of each bounded list, by list name. */
function itemsOf(world: World, limit: RequestLimit, n: number): unknown[] {
  const name = nameOf(limit);
  const list = <T>(item: T) => Array.from({ length: n }, () => structuredClone(item));
  if (name === 'attachmentIds') return world.uploadIds.slice(0, n);
  if (['cc', 'bcc'].includes(name) && limit.operation.spec === OPENAPI) return list(EXTERNAL);
  if (['to', 'cc', 'replyTo'].includes(name)) return list('a@partner.test');
  if (name === 'references') return list('<r@partner.test>');
  if (name === 'mailboxes') return list(SENDER);
  if (name === 'attachments') return list({ name: 'a.txt', contentBase64: 'YQ==' });
  if (name === 'rules') return list({ surface: 'http', probability: 0 });
  if (name === 'operations') {
    const values = deref(limit.operation.spec.document, limit.schema.items).enum as string[];
    return Array.from({ length: n }, (_, i) => values[i % values.length]);
  }
  throw new Error(`no items for the list ${name}: add them to itemsOf in ${import.meta.url}`);
}

async function valueOf(world: World, limit: RequestLimit, n: number, tag: string) {
  if (limit.keyword === 'maxProperties')
    return Object.fromEntries(Array.from({ length: n }, (_, i) => [`v${i}`, 'x']));
  if (limit.keyword === 'maxItems')
    return itemsOf(
      world,
      limit,
      isCombined(limit) ? n - (OTHER_RECIPIENTS[limit.operation.operationId] ?? 0) : n,
    );
  return stringOfLength(world, limit, n, tag);
}

// ---------------------------------------------------------------------------------------------

const LIMITS = [...requestLimits(OPENAPI), ...requestLimits(CONTROL)];

describe('the bounds the specs declare', () => {
  it('finds the bounds of both specs (the walk itself works)', () => {
    const names = LIMITS.map(describeLimit);
    expect(names).toContain('GET /emails/{emailId} emailId maxLength 128');
    expect(names).toContain('POST /emails/send cc[0] maxLength 400');
    expect(names).toContain('POST /emails/send variables maxProperties 100');
    expect(names).toContain('POST /webhooks ownerId maxLength 64');
    expect(names).toContain('POST /inbound attachments[0].name maxLength 255');
  });

  it('lists every bound of an API request in x-limits, with the same value', () => {
    const missing = requestLimits(OPENAPI)
      .filter((l) => xLimitOf(l)?.[1].value !== l.value)
      .map((l) => `${describeLimit(l)}: x-limits has ${String(xLimitOf(l)?.[1].value)}`);
    expect(missing).toEqual([]);
  });

  it('has no x-limits entry whose fields do not carry its value in every operation it names', () => {
    const stale: string[] = [];
    const api = requestLimits(OPENAPI);
    for (const [name, x] of X_LIMITS) {
      if (
        x.fields === undefined ||
        !['maxLength', 'maxItems', 'maxProperties'].includes(String(x.keyword))
      )
        continue;
      const carrying = api.filter(
        (l) => l.keyword === x.keyword && (x.fields ?? []).includes(topOf(l)),
      );
      for (const operationId of x.appliesTo === 'all' ? [] : x.appliesTo) {
        const here = carrying.filter((l) => l.operation.operationId === operationId);
        if (here.length === 0)
          stale.push(`x-limits.${name}: ${operationId} has none of ${x.fields.join(', ')}`);
        for (const l of here.filter((h) => h.value !== x.value))
          stale.push(`x-limits.${name} is ${x.value} but ${describeLimit(l)}`);
      }
      for (const field of x.fields.filter((f) => !carrying.some((l) => topOf(l) === f)))
        stale.push(`x-limits.${name}: no operation bounds ${field} with ${x.keyword}`);
    }
    expect(stale).toEqual([]);
  });

  it('states the page size in x-limits as the maximum of limit', () => {
    const pageSize = X_LIMITS.find(([name]) => name === 'pageSize')?.[1];
    const listEmails = (OPENAPI.document.paths as Json)['/emails'] as Json;
    const limit = ((listEmails.get as Json).parameters as Json[]).find((p) => p.name === 'limit');
    expect(deref(OPENAPI.document, limit?.schema).maximum).toBe(pageSize?.value);
  });

  it('cites every bound of both specs in spec/DECISIONS.md: a row names it and then its value', () => {
    // A row cites a bound when, in its Choice column, the bounded name in backticks is followed
    // by the value as the next number (D-n, §n and RFC numbers aside): "`q`: at most 500",
    // "`cc` and `bcc`: 50 entries each".
    const rows = DECISIONS.split('\n')
      .filter((line) => /^\| D-\d+ \|/.test(line))
      .map((line) => (line.split(/(?<!\\)\|/)[3] ?? '').replace(/D-\d+|§[\d.]+|RFC \d+/g, ''));
    const cited = (name: string, value: number) =>
      rows.some((row) =>
        row
          .split(`\`${name}\``)
          .slice(1)
          .some((after) => {
            const next = /\d[\d,]*/.exec(after)?.[0];
            return next !== undefined && Number(next.replace(/,/g, '')) === value;
          }),
      );
    const uncited = SPEC_FILES.flatMap((spec) =>
      everyBound(spec.document)
        .filter((b) => !cited(b.name, b.value))
        .map((b) => `${spec.name} ${b.pointer}: \`${b.name}\` ${b.keyword} ${b.value}`),
    );
    expect(uncited).toEqual([]);
  });
});

describe('the emulator enforces each bound exactly (D-51, D-61)', () => {
  let world: World;
  beforeAll(async () => {
    world = await demoWorld();
  });

  it.each(
    LIMITS.map((limit, i) => ({
      name: `${limit.operation.spec.name} ${describeLimit(limit)}`,
      limit,
      i,
    })),
  )('$name: accepted at the bound, refused one over', async ({ limit, i }) => {
    const field = fieldOf(limit.at);
    const code = expectedCode(limit);
    const clean = CLEAN_UP[limit.operation.operationId];

    const at = callWith(
      world,
      limit,
      await valueOf(world, limit, limit.value, `c${i}at`),
      `c${i}at`,
    );
    const accepted = await send(world, at);
    if (clean !== undefined) await send(world, clean);
    expect(
      accepted.status === 404 || (accepted.status >= 200 && accepted.status < 300),
      `${field} at ${limit.value}: ${accepted.status} ${accepted.text.slice(0, 300)}`,
    ).toBe(true);

    const over = callWith(
      world,
      limit,
      await valueOf(world, limit, limit.value + 1, `c${i}ov`),
      `c${i}ov`,
    );
    const refused = await send(world, over);
    if (clean !== undefined) await send(world, clean);
    expect(refused.status, `${field} at ${limit.value + 1}: ${refused.text.slice(0, 300)}`).toBe(
      400,
    );
    expect(refused.json).toMatchObject({ code, field });
    expect(limit.operation.badRequestCodes, 'the code is documented for the operation').toContain(
      code,
    );
  });
});

// Field-by-field comparison of a documented example with what the emulator answered.
//
// Everything is compared exactly, timestamps included (the test's clock is frozen at the
// examples' instant), except the values an instance mints for itself, which no example can
// know in advance. Those fields are INSTANCE_SPECIFIC below: each is checked for its shape, and
// the example's value is then a placeholder bound to the real value, so the same placeholder
// must stand for the same value wherever else it appears (an email's `id` in an error message,
// its `messageId` in a reply's `inReplyTo`). Placeholders bound before the request (the demo
// email and the upload the examples act on) are swapped into requests and expected values alike.
import type { Json } from './document.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The fields whose values the instance mints, with the shape an answer must have given the
 * example's value:
 * - `id` (emails, message attachments, uploads): random per instance. UUID-shaped where the
 *   example is a UUID (§2.4, D-33), else 1-128 visible ASCII characters (the EmailId limits).
 * - `messageId`: made from the new email's id; `<local@domain>` with the example's domain.
 * - `url` (uploads): the instance's origin and a random 32-character token (D-43); the path
 *   `/content/attachments/<token>/<file name>` and the file name are compared.
 * - `webhookId`: the webhook's id (`wh_demo_sink` in the demo fixture); `wh_` and an id.
 * - `nextCursor`, when not null: an opaque token made from an email id (D-16).
 */
export const INSTANCE_SPECIFIC: Record<string, (example: string) => RegExp> = {
  id: (example) => (UUID.test(example) ? UUID : /^[!-~]{1,128}$/),
  messageId: (example) =>
    new RegExp(`^<[^<>@\\s]+@${escapeRegExp(example.replace(/^<[^@]*@|>$/g, ''))}>$`),
  url: (example) => {
    const name = example.split('/').pop() ?? '';
    return new RegExp(`^https?://[^/]+/content/attachments/[A-Za-z0-9]{32}/${escapeRegExp(name)}$`);
  },
  webhookId: () => /^wh_[A-Za-z0-9_]+$/,
  nextCursor: () => /^\S+$/,
};

/** Example placeholders and the real values they stand for in one exchange. */
export class Bindings {
  private readonly values = new Map<string, string>();

  /** Binds `placeholder` to `real`; false when it already stands for another value. */
  bind(placeholder: string, real: string): boolean {
    const bound = this.values.get(placeholder);
    if (bound !== undefined) return bound === real;
    this.values.set(placeholder, real);
    return true;
  }

  get(placeholder: string): string | undefined {
    return this.values.get(placeholder);
  }

  /** `text` with every bound placeholder replaced by its real value (longest first). */
  substitute(text: string): string {
    const placeholders = [...this.values.keys()].sort((a, b) => b.length - a.length);
    let out = text;
    for (const placeholder of placeholders)
      out = out.split(placeholder).join(this.values.get(placeholder) as string);
    return out;
  }

  /** A deep copy of a JSON value with placeholders replaced in every string. */
  substituteDeep(value: Json): Json {
    if (typeof value === 'string') return this.substitute(value);
    if (Array.isArray(value)) return value.map((v) => this.substituteDeep(v));
    if (value !== null && typeof value === 'object') {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, this.substituteDeep(v)]));
    }
    return value;
  }
}

export interface CompareOptions {
  /** Fields (by key) not compared at all, with the reason; used for injected-fault messages. */
  skip?: Record<string, string>;
}

const show = (value: unknown) => JSON.stringify(value);

/**
 * Every difference between a documented example and an answer, one line each with its JSON
 * path; an empty list means they match. Objects must have the same keys: a field the answer
 * has and the example lacks is drift too.
 */
export function differences(
  expected: Json,
  actual: unknown,
  bindings: Bindings,
  options: CompareOptions = {},
  at = '$',
): string[] {
  const key = at.split('.').pop() ?? '';
  const shapeOf = INSTANCE_SPECIFIC[key];
  if (typeof expected === 'string' && shapeOf !== undefined) {
    if (typeof actual !== 'string' || !shapeOf(expected).test(actual)) {
      return [
        `${at}: answered ${show(actual)}, which is not shaped like ${show(expected)} (${String(shapeOf(expected))})`,
      ];
    }
    return bindings.bind(expected, actual)
      ? []
      : [
          `${at}: answered ${show(actual)}, but ${show(expected)} stands for ${show(bindings.get(expected))} here`,
        ];
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return [`${at}: documented an array, answered ${show(actual)}`];
    const found = expected.flatMap((e, i) =>
      differences(e, actual[i], bindings, options, `${at}[${i}]`),
    );
    if (actual.length !== expected.length) {
      found.push(
        `${at}: documented ${expected.length} items, answered ${actual.length}: ${show(actual)}`,
      );
    }
    return found;
  }
  if (expected !== null && typeof expected === 'object') {
    if (actual === null || typeof actual !== 'object' || Array.isArray(actual)) {
      return [`${at}: documented an object, answered ${show(actual)}`];
    }
    const answered = actual as Record<string, unknown>;
    const found: string[] = [];
    for (const [k, v] of Object.entries(expected)) {
      if (options.skip?.[k] !== undefined) continue;
      if (!(k in answered)) found.push(`${at}.${k}: documented ${show(v)}, not answered`);
      else found.push(...differences(v, answered[k], bindings, options, `${at}.${k}`));
    }
    for (const k of Object.keys(answered)) {
      if (!(k in expected)) found.push(`${at}.${k}: answered ${show(answered[k])}, not documented`);
    }
    return found;
  }
  const want = typeof expected === 'string' ? bindings.substitute(expected) : expected;
  return Object.is(want, actual)
    ? []
    : [`${at}: documented ${show(want)}, answered ${show(actual)}`];
}

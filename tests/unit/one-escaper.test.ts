/**
 * One library for escaping, one for XML (issue 29 item 6): HTML and XML text is escaped by
 * escape-html and XML is written by fast-xml-parser's XMLBuilder, never by hand. A hand-written
 * escaper (a chain of `.replace(/&/g, '&amp;')`, a character-reference template) or a hand-built
 * XML document in the programs' sources fails this test. Writing a line break or tab in an XML
 * attribute as a reference (&#10;, &#13;, &#9;) is not escaping but keeping it from XML's
 * attribute normalization, which no escaper does: that is allowed.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const TREES = [
  'emulator/src',
  'conformance/src',
  'conformance/checks',
  'shared',
  'webhooks',
  'bin',
];

/** Every source file of the programs (their tests aside). */
function sources(): string[] {
  return TREES.flatMap((tree) =>
    (readdirSync(join(ROOT, tree), { recursive: true }) as string[])
      .filter((f) => /\.(ts|js|mjs)$/.test(f) && !/\.test\.|\.d\.ts$/.test(f))
      .map((f) => `${tree}/${f}`),
  );
}

const HAND_WRITTEN = [
  {
    what: 'an entity written by a replace',
    pattern: /\.replace\([^;]*?['"`]&(?:amp|lt|gt|quot|apos|#(?!(?:9|10|13);)\d+);['"`]/,
  },
  { what: 'a character reference built from a code', pattern: /&#\$\{/ },
  { what: 'a JUnit document built as text', pattern: /['"`]\s*<testsuites?[\s>]/ },
];

describe('escaping and XML', () => {
  it('go through escape-html and XMLBuilder, with no hand-written escaper or XML left', () => {
    const found: string[] = [];
    for (const file of sources()) {
      const text = readFileSync(join(ROOT, file), 'utf8');
      for (const { what, pattern } of HAND_WRITTEN)
        if (pattern.test(text)) found.push(`${file}: ${what}`);
    }
    expect(found).toEqual([]);
  });

  it('would see the escapers this replaced', () => {
    const [entity, reference] = HAND_WRITTEN.map((h) => h.pattern);
    expect(entity!.test(`value\n    .replace(/&/g, '&amp;')\n    .replace(/</g, '&lt;')`)).toBe(
      true,
    );
    expect(reference!.test('(ch) => `&#${ch.charCodeAt(0)};`')).toBe(true);
    expect(HAND_WRITTEN[2]!.pattern.test("'<?xml?>',\n    `<testsuites name=")).toBe(true);
  });
});

/**
 * One assertion, one rule (GUIDE; issue 14 item 2): every assertion of a check names the rule
 * it checks, through `expectAt(rule, …)` or `chargeTo(rule, …)` (charge.ts). A bare vitest
 * `expect` in a check would be an uncharged failure, counted against every rule of its check.
 * Asymmetric matchers (`expect.objectContaining(…)` inside an `expectAt`) assert nothing on
 * their own and are allowed.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../../../emulator/src/package-root.ts';

const ROOT = PACKAGE_ROOT;
const CHECKS = join(ROOT, 'conformance/checks');

/** A bare assertion: `expect(…)`, or one of vitest's `expect.*` that asserts by itself. */
const BARE_EXPECT =
  /(?<![\w$.])expect\s*(?:<[^>]*>)?\s*\(|(?<![\w$.])expect\.(?:soft|poll|assertions|hasAssertions|unreachable)\b/;

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? tsFiles(join(dir, entry.name))
      : entry.name.endsWith('.ts')
        ? [join(dir, entry.name)]
        : [],
  );
}

/** The source without comments, keeping line numbers (a comment may mention `expect(…)`). */
function withoutComments(source: string): string {
  return source
    .replace(/\/\*[\s\S]*?\*\//g, (comment) => comment.replace(/[^\n]/g, ' '))
    .replace(/(^|[^:'"`\\])\/\/.*$/gm, '$1');
}

/** Each bare assertion of a file, as `file:line: text`. */
function bareExpects(file: string): string[] {
  const lines = withoutComments(readFileSync(file, 'utf8')).split('\n');
  return lines.flatMap((line, i) =>
    BARE_EXPECT.test(line) ? [`${relative(ROOT, file)}:${i + 1}: ${line.trim()}`] : [],
  );
}

describe('check files charge every assertion to one rule', () => {
  it('finds the check files', () => {
    expect(tsFiles(CHECKS).length).toBeGreaterThan(0);
  });

  it('uses no bare vitest expect in conformance/checks/ (only expectAt and chargeTo)', () => {
    const offenders = tsFiles(CHECKS).flatMap(bareExpects);
    expect(offenders, `bare expect, an uncharged assertion:\n${offenders.join('\n')}`).toEqual([]);
  });

  it('recognises a bare expect and lets expectAt, chargeTo and asymmetric matchers pass', () => {
    const cases: [string, boolean][] = [
      ['expect(status).toBe(200);', true],
      ['await expect(promise).rejects.toThrow();', true],
      ['expect.soft(x).toBe(1);', true],
      ['expect<number>(x).toBe(1);', true],
      ["expectAt('4.2-R1', status).toBe(200);", false],
      ["expectAt('D-3', body).toEqual(expect.objectContaining({ id: 'x' }));", false],
      ["await chargeTo('D-22', () => check(x));", false],
      ['expectNewestFirst(rule, walked, what);', false],
      ['api.expect(x);', false],
    ];
    for (const [line, bare] of cases) expect(BARE_EXPECT.test(line), line).toBe(bare);
  });
});

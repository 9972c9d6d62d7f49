/**
 * The named-mutant catalogue stays true to the code and the suite: every mutant still applies
 * to its file exactly once, names a check that exists and a rule that check verifies, and
 * every check that the Prism mock cannot fail has a mutant that shows it can (issue 8 item 5).
 * Whether each mutant is really caught is `npm run can-fail`'s job (it runs the checks).
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { CATALOGUE } from '../mutants/catalogue.ts';
import { applyMutant, StaleMutantError } from '../mutants/named-mutant.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** Check files whose every check fails against the Prism mock (tests/prism/prism-mock.test.ts). */
const FAILING_AGAINST_THE_MOCK = ['machine-readable-descriptions.check.ts', 'stateful.check.ts'];

interface ListedCheck {
  file: string;
  behaviour: string;
  rules: string[];
}

/** Every check with its file and rules, from `mailtwin-conformance --dry-run`. */
function listChecks(): ListedCheck[] {
  const run = spawnSync(process.execPath, [join(ROOT, 'bin/mailtwin-conformance.js'), '--dry-run'], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1' },
  });
  const checks: ListedCheck[] = [];
  let file = '';
  const lines = run.stdout.split('\n');
  for (const [i, line] of lines.entries()) {
    if (/^conformance\/checks\/\S+\.check\.ts$/.test(line)) file = line.split('/').pop()!;
    const named = /^ {2}(?:RUN|SKIP) {2}(.+)$/.exec(line);
    if (named === null) continue;
    const rules = /^ +rules (.+?);/.exec(lines[i + 1] ?? '')?.[1]?.split(' ') ?? [];
    checks.push({ file, behaviour: named[1]!.trim(), rules });
  }
  return checks;
}

describe('applying a named mutant', () => {
  const mutant = { id: 'M-0', file: 'x.ts', find: 'a > b', replace: 'a >= b' };

  it('replaces the one occurrence of its text', () => {
    expect(applyMutant('if (a > b) return;', mutant)).toBe('if (a >= b) return;');
  });

  it('refuses a file that no longer contains the text, or contains it twice', () => {
    expect(() => applyMutant('if (a < b) return;', mutant)).toThrow(StaleMutantError);
    expect(() => applyMutant('a > b; a > b;', mutant)).toThrow(/more than once/);
  });

  it('refuses a mutant that changes nothing', () => {
    expect(() => applyMutant('a > b', { ...mutant, replace: 'a > b' })).toThrow(/nothing would change/);
  });
});

describe('the named-mutant catalogue (tests/mutants)', () => {
  let checks: ListedCheck[];
  beforeAll(() => {
    checks = listChecks();
    expect(checks.length, 'checks listed by --dry-run').toBeGreaterThan(50);
  }, 60_000);

  it('has unique ids of the form M-<n>', () => {
    const ids = CATALOGUE.map((m) => m.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(/^M-\d+$/);
  });

  it('applies each mutant to its file exactly once', () => {
    for (const mutant of CATALOGUE) {
      const source = readFileSync(join(ROOT, mutant.file), 'utf8');
      expect(() => applyMutant(source, mutant), mutant.id).not.toThrow();
    }
  });

  it('names for each mutant a check that exists and verifies the rule the mutant breaks', () => {
    for (const mutant of CATALOGUE) {
      const check = checks.find((c) => c.behaviour === mutant.caughtBy);
      expect(check, `${mutant.id}: no check is named "${mutant.caughtBy}"`).toBeDefined();
      expect(check!.rules, `${mutant.id}: the rules of "${mutant.caughtBy}"`).toContain(mutant.rule);
    }
  });

  it('gives every check the Prism mock cannot fail a mutant that shows it can', () => {
    const covered = new Set(CATALOGUE.map((m) => m.caughtBy));
    const without = checks
      .filter((c) => !FAILING_AGAINST_THE_MOCK.includes(c.file) && !covered.has(c.behaviour))
      .map((c) => `${c.file}: ${c.behaviour}`);
    expect(without).toEqual([]);
  });
});

/**
 * The named-mutant catalogue stays true to the code and the suite: every mutant still applies
 * to its file exactly once, names a check that exists and a rule that check verifies, and
 * every check that the Prism mock cannot fail has a mutant that shows it can (issue 8 item 5).
 * Whether each mutant is really caught is `npm run can-fail`'s job (it runs the checks).
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { applyEditIn } from '../mutants/anchor.ts';
import { CATALOGUE } from '../mutants/catalogue.ts';
import { applyMutant, mutateTree, StaleMutantError } from '../mutants/named-mutant.ts';

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
  const run = spawnSync(
    process.execPath,
    [join(ROOT, 'bin/mailtwin-conformance.js'), '--dry-run'],
    {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...process.env, NO_COLOR: '1' },
    },
  );
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
    expect(() => applyMutant('a > b', { ...mutant, replace: 'a > b' })).toThrow(
      /nothing would change/,
    );
    expect(() => applyMutant('a > b', { ...mutant, replace: 'a  >  b /* same */' })).toThrow(
      /only in layout or comments/,
    );
  });

  it('matches the tokens of its text, whatever the layout, comments and quotes around them', () => {
    const source = 'if (a>/* strict */b) {\n  log("x");\n}\n';
    expect(applyMutant(source, mutant)).toBe('if (a >= b) {\n  log("x");\n}\n');
    const log = { ...mutant, find: "log('x');", replace: "log('y');" };
    expect(applyMutant(source, log)).toBe("if (a>/* strict */b) {\n  log('y');\n}\n");
  });

  it('matches across a line break prettier added, with or without the trailing comma', () => {
    const call = { ...mutant, find: 'send(to, subject)', replace: 'send(subject, to)' };
    expect(applyMutant('send(\n  to,\n  subject,\n);', call)).toBe('send(subject, to);');
    const listed = {
      ...mutant,
      find: "['cc', 1],\n  ['bcc', 2],",
      replace: "['cc', 2],\n  ['bcc', 1],",
    };
    expect(applyMutant("[['cc', 1], ['bcc', 2]]", listed)).toBe("[['cc', 2],\n  ['bcc', 1],]");
  });

  it('matches a return whose argument prettier wrapped in parentheses, never leaving one unbalanced', () => {
    const whole = { ...mutant, find: 'return a > b;', replace: 'return a >= b;' };
    expect(applyMutant('{\n  return (\n    a > b\n  );\n}', whole)).toBe('{\n  return a >= b;\n}');
    expect(applyMutant('{\n  return (\n    a > b\n  );\n}', mutant)).toBe(
      '{\n  return (\n    a >= b\n  );\n}',
    );
    const tail = { ...mutant, find: 'a > b;', replace: 'a >= b;' };
    expect(() => applyMutant('{\n  return (\n    a > b\n  );\n}', tail)).toThrow(
      /no longer contains/,
    );
  });

  it('replaces the comment its find ends with where the file has it too, as exact text did', () => {
    const commented = { ...mutant, find: 'a > b; // strict', replace: 'a >= b;' };
    expect(applyMutant('x = a > b; // strict\ny();', commented)).toBe('x = a >= b;\ny();');
    expect(applyMutant('x = a >\n  b; // strict\ny();', commented)).toBe('x = a >= b;\ny();');
    expect(applyMutant('x = a > b; // loose\ny();', commented)).toBe('x = a >= b; // loose\ny();');
  });

  it('writes its replacement over the matched tokens, less the indent and line end find and replace share', () => {
    const indented = { ...mutant, find: '    a > b;\n', replace: '    a >= b;\n    c();\n' };
    expect(applyMutant('{\n  a > b;\n}', indented)).toBe('{\n  a >= b;\n    c();\n}');
  });

  it('counts only matches inside the declaration named by within', () => {
    const source = [
      'function first(a, b) { return a > b; }',
      'class Pair { second(a, b) { return a > b; } }',
    ].join('\n');
    expect(() => applyMutant(source, mutant)).toThrow(/more than once.*within/);
    expect(applyMutant(source, { ...mutant, within: 'second' })).toContain(
      'second(a, b) { return a >= b; }',
    );
    expect(applyMutant(source, { ...mutant, within: 'Pair.second' })).toContain(
      'return a >= b; } }',
    );
    expect(() => applyMutant(source, { ...mutant, within: 'third' })).toThrow(
      /no longer declares third/,
    );
  });

  it('looks for exact text where its find cuts a token or the file is not TypeScript', () => {
    const sql = { ...mutant, find: 'DESC LIMIT @limit', replace: 'ASC LIMIT @limit' };
    expect(applyMutant('const q = `SELECT * ORDER BY id DESC LIMIT @limit`;', sql)).toBe(
      'const q = `SELECT * ORDER BY id ASC LIMIT @limit`;',
    );
    const yaml = { ...mutant, file: 'spec/openapi.yaml', find: 'a >  b', replace: 'a > c' };
    expect(() => applyMutant('a > b', yaml)).toThrow(StaleMutantError);
    expect(applyMutant('x: a >  b', yaml)).toBe('x: a > c');
  });

  it('follows the code it anchors to into another file of the same source tree', () => {
    const files: Record<string, string> = {
      'emulator/src/a.ts': 'export const x = 1;\n',
      'emulator/src/b.ts': 'export function pick(a, b) {\n  return a > b;\n}\n',
      'emulator/src/c.ts': 'export function other(a, b) {\n  return a > b;\n}\n',
    };
    const tree = {
      read: (file: string) => files[file],
      list: () => Object.keys(files),
    };
    const moved = { ...mutant, file: 'emulator/src/a.ts', within: 'pick' };
    expect(applyEditIn(tree, moved, moved.id)).toEqual({
      file: 'emulator/src/b.ts',
      text: 'export function pick(a, b) {\n  return a >= b;\n}\n',
    });
    const gone = { ...moved, file: 'emulator/src/gone.ts' };
    expect(applyEditIn(tree, gone, gone.id).file).toBe('emulator/src/b.ts');
    // Without a name the text is in two files: which one was meant cannot be told.
    expect(() => applyEditIn(tree, { ...mutant, file: 'emulator/src/a.ts' })).toThrow(/2 times/);
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

  it('applies each mutant exactly once, in the file it names or where its code moved', () => {
    for (const mutant of CATALOGUE) {
      const applied = mutateTree(ROOT, mutant);
      // A move is a refactor the catalogue does not pay for (issue 29 item 2): the edit follows
      // its code (anchor.ts), and `file` says where it was written.
      expect(
        applied.file === mutant.file || applied.file.startsWith('emulator/src/'),
        mutant.id,
      ).toBe(true);
      expect(applied.mutated, mutant.id).not.toBe(applied.original);
      // Where the find is still there as exact text, the mutant is exactly the old find/replace.
      const at = applied.original.indexOf(mutant.find);
      if (at !== -1)
        expect(applied.mutated, `${mutant.id}: as exact text`).toBe(
          applied.original.slice(0, at) +
            mutant.replace +
            applied.original.slice(at + mutant.find.length),
        );
    }
  });

  it('names for each mutant a check that exists and verifies the rule the mutant breaks', () => {
    for (const mutant of CATALOGUE) {
      const check = checks.find((c) => c.behaviour === mutant.caughtBy);
      expect(check, `${mutant.id}: no check is named "${mutant.caughtBy}"`).toBeDefined();
      expect(check!.rules, `${mutant.id}: the rules of "${mutant.caughtBy}"`).toContain(
        mutant.rule,
      );
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

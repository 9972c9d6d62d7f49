/**
 * The conformant variants (tests/variants, issue 14 item 5) stay true to the code and to the
 * documents: each still applies to the emulator exactly once, departs from a decided rule that
 * exists, and cites the service document's words that allow it. Whether the suite really judges
 * each one conformant is `npm run variants`'s job (it runs the suite, slowly).
 *
 * The quotes are compared word for word with the service document when MAILTWIN_SERVICE_DOCUMENT
 * names a copy of it (the document is not part of this repository).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { JsonReport } from '../../conformance/src/report/json.ts';
import { VARIANTS } from '../variants/catalogue.ts';
import { judgeRun, strictFilter } from '../variants/judge.ts';
import { treeAt } from '../mutants/anchor.ts';
import { applyVariant, type Variant } from '../variants/variant.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');

interface Rule {
  id: string;
  source: 'documented' | 'decided';
}
const rules = (parse(read('conformance/rules.yaml')) as { rules: Rule[] }).rules;
const decisions = read('spec/DECISIONS.md');

/** The document's text per numbered section (`4.2`), each including its subsections. */
function sectionsOf(document: string): Map<string, string> {
  const sections = new Map<string, string>();
  let current: string[] = [];
  for (const line of document.split('\n')) {
    const heading = /^#+\s+(\d+(?:\.\d+)?)\.?\s/.exec(line);
    if (heading !== null) current = [heading[1]!];
    const number = current[0];
    if (number === undefined) continue;
    for (const key of new Set([number, number.split('.')[0]!]))
      sections.set(key, `${sections.get(key) ?? ''}\n${line}`);
  }
  return sections;
}

const words = (text: string) => text.replace(/\s+/g, ' ').trim();

describe('the conformant variants (tests/variants)', () => {
  it('are at least eight, with unique ids of the form V-<n>', () => {
    expect(VARIANTS.length).toBeGreaterThanOrEqual(8);
    const ids = VARIANTS.map((v) => v.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(/^V-\d+$/);
  });

  it('apply each edit to its file under emulator/src exactly once', () => {
    for (const variant of VARIANTS) {
      expect(variant.edits.length, variant.id).toBeGreaterThan(0);
      for (const edit of variant.edits) {
        expect(edit.file, variant.id).toMatch(/^emulator\/src\/.+\.ts$/);
        expect(edit.file, variant.id).not.toMatch(/\.test\.ts$/);
      }
      const changed = applyVariant(variant, treeAt(ROOT));
      // Each edit lands once, in its file or where its code moved (anchor.ts): a move is a
      // refactor the catalogue does not pay for (issue 29 item 2).
      expect(changed.size, `${variant.id}: files changed`).toBeGreaterThan(0);
      expect(changed.size, `${variant.id}: files changed`).toBeLessThanOrEqual(
        new Set(variant.edits.map((e) => e.file)).size,
      );
    }
  });

  it('change different code: no two variants edit the same text', () => {
    const seen = new Map<string, string>();
    for (const variant of VARIANTS) {
      for (const edit of variant.edits) {
        const key = `${edit.file}\n${edit.find}`;
        expect(seen.get(key), `${variant.id} edits what ${seen.get(key)} edits`).toBeUndefined();
        seen.set(key, variant.id);
      }
    }
  });

  it('each depart from a decided rule of spec/DECISIONS.md that the suite checks, or from none when the document allows both in its own words', () => {
    for (const variant of VARIANTS) {
      if (variant.departsFrom === undefined) {
        // No decision: the document itself must say the point is open, in a quoted rule.
        expect(variant.note, `${variant.id} says why no decision was needed`).toBeDefined();
        continue;
      }
      expect(variant.departsFrom, variant.id).toMatch(/^D-\d+$/);
      expect(decisions, `${variant.id}: a row for ${variant.departsFrom}`).toContain(
        `| ${variant.departsFrom} |`,
      );
      const rule = rules.find((r) => r.id === variant.departsFrom);
      expect(rule?.source, `${variant.id}: ${variant.departsFrom} in conformance/rules.yaml`).toBe(
        'decided',
      );
    }
  });

  it('each quote the service document, by section, on what allows them', () => {
    for (const variant of VARIANTS) {
      expect(variant.change.length, variant.id).toBeGreaterThan(10);
      expect(variant.allowedBy.length, variant.id).toBeGreaterThan(0);
      for (const { section, quote } of variant.allowedBy) {
        expect(section, variant.id).toMatch(/^§[1-9](\.\d+)?$/);
        expect(words(quote).length, variant.id).toBeGreaterThan(8);
      }
    }
  });

  it.runIf(process.env.MAILTWIN_SERVICE_DOCUMENT !== undefined)(
    'quote the service document word for word, in the section they name',
    () => {
      const sections = sectionsOf(readFileSync(process.env.MAILTWIN_SERVICE_DOCUMENT!, 'utf8'));
      for (const variant of VARIANTS) {
        for (const { section, quote } of variant.allowedBy) {
          const text = sections.get(section.slice(1));
          expect(text, `${variant.id}: ${section} in the document`).toBeDefined();
          expect(words(text!), `${variant.id}: ${section}`).toContain(words(quote));
        }
      }
    },
  );
});

describe('judging a run against a variant', () => {
  /** A report.json with these rule statuses and one check per failed rule. */
  const report = (statuses: Record<string, 'pass' | 'fail' | 'warn'>): JsonReport => {
    const ids = Object.keys(statuses);
    return {
      rules: ids.map((id, index) => ({
        id,
        source: id.startsWith('D-') ? 'decided' : 'documented',
        status: statuses[id],
        checks: [index],
      })),
      checks: ids.map((id) => ({
        name: `checks ${id}`,
        behaviour: `checks ${id}`,
        state: statuses[id] === 'fail' ? 'failed' : 'passed',
        errors:
          statuses[id] === 'fail'
            ? [`Rule broken while checking\nAssertionError: expected 201 to be 200`]
            : [],
      })),
      warnings: ids
        .filter((id) => statuses[id] === 'warn')
        .map((rule) => ({ rule, sentence: '', errors: [] })),
      problems: [],
    } as unknown as JsonReport;
  };
  const variant: Pick<Variant, 'departsFrom'> = { departsFrom: 'D-21' };

  it('accepts exit 0 with warnings on decided rules only, and lists them', () => {
    const verdict = judgeRun(
      report({ '4.3-R1': 'pass', 'D-21': 'warn', 'D-12': 'warn' }),
      0,
      false,
    );
    expect(verdict.problems).toEqual([]);
    expect(verdict.warned).toEqual(['D-21', 'D-12']);
    expect(verdict.warned).toContain(variant.departsFrom);
  });

  it('names a documented rule that failed, with the check and its telling line', () => {
    const verdict = judgeRun(report({ '4.3-R1': 'fail', 'D-21': 'warn' }), 1, false);
    expect(verdict.documentedFailures.map((f) => f.rule)).toEqual(['4.3-R1']);
    expect(verdict.problems.join('\n')).toContain(
      'documented rule 4.3-R1 failed: checks 4.3-R1: AssertionError: expected 201 to be 200',
    );
    expect(verdict.problems.join('\n')).toContain('exited 1, not 0');
  });

  it('refuses a decided rule that failed instead of warning when not strict', () => {
    const verdict = judgeRun(report({ 'D-21': 'fail' }), 1, false);
    expect(verdict.problems.join('\n')).toMatch(/decided rule D-21 failed instead of warning/);
  });

  it('wants --strict to exit 1 on a failed decided rule, and nothing else', () => {
    expect(judgeRun(report({ 'D-21': 'fail' }), 1, true).problems).toEqual([]);
    expect(judgeRun(report({ 'D-21': 'pass' }), 0, true).problems.join('\n')).toMatch(
      /--strict exited 0, not 1/,
    );
    expect(
      judgeRun(report({ '4.3-R1': 'fail', 'D-21': 'fail' }), 1, true).problems.join('\n'),
    ).toMatch(/documented rule 4.3-R1 failed/);
  });

  it('counts a run without report.json as a problem, quoting the end of its output', () => {
    const verdict = judgeRun(
      undefined,
      2,
      false,
      'Error: cannot reach http://127.0.0.1:1/openapi/v1\n',
    );
    expect(verdict.problems).toEqual([
      'no report.json (exit 2): Error: cannot reach http://127.0.0.1:1/openapi/v1',
    ]);
  });

  it('repeats under --strict one check that warned, on the departed rule when one did', () => {
    const warned = report({ 'D-12': 'warn', 'D-21': 'warn', '4.3-R1': 'pass' });
    expect(strictFilter(warned, 'D-21')).toBe('checks D-21');
    expect(strictFilter(warned, 'D-5')).toBe('checks D-12');
    expect(strictFilter(report({ 'D-21': 'pass' }), 'D-21')).toBeUndefined();
    expect(strictFilter(undefined, 'D-21')).toBeUndefined();
  });
});

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadRules } from './rules.ts';
import { packagePath } from '../../../emulator/src/package-root.ts';

const DECISIONS_PATH = packagePath('spec/DECISIONS.md');

/** The section headings of the service document that carry normative text. */
const NORMATIVE_SECTIONS = [
  '1',
  '2.1',
  '2.2',
  '2.3',
  '2.4',
  '2.5',
  '2.6',
  '3.1',
  '3.2',
  '4',
  '4.1',
  '4.2',
  '4.3',
  '4.4',
  '4.5',
  '4.6',
  '4.7',
  '4.8',
  '4.9',
  '4.10',
  '5',
  '6',
  '6.1',
  '6.2',
  '6.3',
  '6.4',
  '7',
  '8',
  '9',
];

/** Writes `content` as a rules file in a fresh temporary directory and loads it. */
function loadFrom(content: string): ReturnType<typeof loadRules> {
  const dir = mkdtempSync(join(tmpdir(), 'mailtwin-rules-'));
  try {
    const path = join(dir, 'rules.yaml');
    writeFileSync(path, content);
    return loadRules(path);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function rulesYaml(...entries: string[]): string {
  return `rules:\n${entries.map((e) => `  - ${e}\n`).join('')}`;
}

describe('loadRules on conformance/rules.yaml', () => {
  it('gives every rule a unique id', () => {
    const ids = loadRules().map((r) => r.id);
    const duplicates = ids.filter((id, i) => ids.indexOf(id) !== i);
    expect(duplicates).toEqual([]);
    expect(ids.length).toBeGreaterThan(0);
  });

  it('gives every rule a non-empty section, sentence and a known source', () => {
    const incomplete = loadRules().filter(
      (r) =>
        r.section.trim() === '' ||
        r.sentence.trim() === '' ||
        (r.source !== 'documented' && r.source !== 'decided'),
    );
    expect(incomplete).toEqual([]);
  });

  it('names each documented rule after its section', () => {
    const misnamed = loadRules()
      .filter((r) => r.source === 'documented' && !r.id.startsWith(`${r.section}-R`))
      .map((r) => `${r.id} (section ${r.section})`);
    expect(misnamed).toEqual([]);
  });

  it('has documented rules for every section of the service document with normative text', () => {
    const covered = new Set(
      loadRules()
        .filter((r) => r.source === 'documented')
        .map((r) => r.section),
    );
    expect(NORMATIVE_SECTIONS.filter((s) => !covered.has(s))).toEqual([]);
  });

  it('uses only sections the service document has', () => {
    const unknown = loadRules().filter((r) => !NORMATIVE_SECTIONS.includes(r.section));
    expect(unknown.map((r) => `${r.id}: ${r.section}`)).toEqual([]);
  });

  it('keeps each report group (a section, or all decided rules) in one run of the file', () => {
    // The console report prints a heading whenever the group changes from one rule to the next.
    const groups = loadRules().map((r) => (r.source === 'decided' ? 'decided' : r.section));
    const starts = groups.filter((g, i) => i === 0 || groups[i - 1] !== g);
    expect(starts.filter((g, i) => starts.indexOf(g) !== i)).toEqual([]);
  });

  it('has a row in spec/DECISIONS.md for every decided rule', () => {
    const decisions = readFileSync(DECISIONS_PATH, 'utf8');
    const decided = loadRules().filter((r) => r.source === 'decided');
    expect(decided.length).toBeGreaterThan(0);
    expect(decided.filter((r) => !decisions.includes(`| ${r.id} |`)).map((r) => r.id)).toEqual([]);
  });

  it('asserts exactly the rows spec/DECISIONS.md marks **asserted**', () => {
    const decisions = readFileSync(DECISIONS_PATH, 'utf8');
    const asserted = decisions
      .split('\n')
      .filter((line) => /^\| D-\d+ \|/.test(line) && line.includes('**asserted**'))
      .map((line) => /^\| (D-\d+) \|/.exec(line)?.[1])
      .sort();
    const decided = loadRules()
      .filter((r) => r.source === 'decided')
      .map((r) => r.id)
      .sort();
    expect(decided).toEqual(asserted);
  });
});

describe('loadRules on a file of its own', () => {
  it('reads the id, section, sentence and source of each rule, in order', () => {
    expect(
      loadFrom(
        rulesYaml(
          "{ id: 4.1-R1, section: '4.1', source: documented, sentence: 'Lists mailboxes.' }",
          "{ id: D-2, section: '4.1', source: decided, sentence: 'A bare array.' }",
        ),
      ),
    ).toEqual([
      { id: '4.1-R1', section: '4.1', sentence: 'Lists mailboxes.', source: 'documented' },
      { id: 'D-2', section: '4.1', sentence: 'A bare array.', source: 'decided' },
    ]);
  });

  it('refuses a duplicate id', () => {
    expect(() =>
      loadFrom(
        rulesYaml(
          "{ id: 1-R1, section: '1', source: documented, sentence: 'One.' }",
          "{ id: 1-R1, section: '1', source: documented, sentence: 'Two.' }",
        ),
      ),
    ).toThrow(/rule #2: duplicate id 1-R1$/);
  });

  it('refuses an id that is neither <section>-R<n> nor D-<n>', () => {
    for (const id of ['R1', '1-X1', 'D-', 'd-3', '1.2.3-R1']) {
      expect(() =>
        loadFrom(rulesYaml(`{ id: '${id}', section: '1', source: documented, sentence: 'S.' }`)),
      ).toThrow(`rule #1: bad id ${id}`);
    }
  });

  it('refuses a rule without an id', () => {
    expect(() =>
      loadFrom(rulesYaml("{ section: '1', source: documented, sentence: 'S.' }")),
    ).toThrow('rule #1: bad id undefined');
  });

  it('refuses a source other than documented or decided', () => {
    expect(() =>
      loadFrom(rulesYaml("{ id: 1-R1, section: '1', source: guessed, sentence: 'S.' }")),
    ).toThrow('rule #1 (1-R1): source must be documented or decided');
  });

  it('refuses an empty sentence', () => {
    expect(() =>
      loadFrom(rulesYaml("{ id: 1-R1, section: '1', source: documented, sentence: '' }")),
    ).toThrow('rule #1 (1-R1): section and sentence must be non-empty strings');
  });

  it('refuses an empty section', () => {
    expect(() =>
      loadFrom(rulesYaml("{ id: 1-R1, section: '', source: documented, sentence: 'S.' }")),
    ).toThrow('rule #1 (1-R1): section and sentence must be non-empty strings');
  });

  it('refuses a section written as a YAML number', () => {
    // Unquoted, `4.10` would read as the number 4.1.
    expect(() =>
      loadFrom(rulesYaml('{ id: 4.10-R1, section: 4.10, source: documented, sentence: S. }')),
    ).toThrow('rule #1 (4.10-R1): section and sentence must be non-empty strings');
  });

  it('refuses a file without a top-level rules list', () => {
    expect(() => loadFrom('checks: []\n')).toThrow('expected a top-level "rules" list');
  });
});

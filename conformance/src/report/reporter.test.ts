/**
 * The RuleCollector's account of a run vitest did not finish: a check file it never ran, or a
 * run it ended early, is a problem of the suite, never a silent absence that would read as
 * "not selected by --filter" (seen once in a loaded full unit run: one file of fourteen ran).
 */
import { describe, expect, it } from 'vitest';
import type { TestModule } from 'vitest/node';
import { RuleCollector } from './reporter.ts';

const ROOT = '/suite';

/** A module as vitest hands it to reporters, with `tests` named checks, all skipped. */
function moduleOf(path: string, tests: string[], state = 'skipped'): TestModule {
  const children = tests.map((name) => ({
    name,
    meta: () => ({ rules: ['1-R1'] }),
    result: () => ({ state: 'skipped', note: undefined, errors: [] }),
    diagnostic: () => undefined,
  }));
  return {
    moduleId: `${ROOT}/${path}`,
    errors: () => [],
    state: () => state,
    children: { allTests: () => children.values() },
  } as unknown as TestModule;
}

describe('RuleCollector', () => {
  it('names a check file that reported no check as not run', () => {
    const collector = new RuleCollector(ROOT, 'not selected by --filter');
    collector.onTestRunEnd(
      [moduleOf('checks/a.check.ts', ['one', 'two']), moduleOf('checks/b.check.ts', [], 'queued')],
      [],
      'passed',
    );
    expect(collector.outcomes.map((o) => [o.file, o.name, o.skipReason])).toEqual([
      ['checks/a.check.ts', 'one', 'not selected by --filter'],
      ['checks/a.check.ts', 'two', 'not selected by --filter'],
    ]);
    expect(collector.problems).toEqual(['checks/b.check.ts did not run (vitest left it queued)']);
  });

  it('says so when vitest interrupted the run', () => {
    const collector = new RuleCollector(ROOT);
    collector.onTestRunEnd([moduleOf('checks/a.check.ts', ['one'])], [], 'interrupted');
    expect(collector.problems).toEqual([
      'the run was interrupted: vitest ended it before every check had run',
    ]);
  });

  it('finds nothing wrong with a finished run whose checks all reported', () => {
    const collector = new RuleCollector(ROOT);
    collector.onTestRunEnd([moduleOf('checks/a.check.ts', ['one'])], [], 'passed');
    expect(collector.problems).toEqual([]);
    expect(collector.outcomes).toHaveLength(1);
  });
});

describe('RuleCollector.expectFiles', () => {
  it('names each expected check file vitest never reported on', () => {
    const collector = new RuleCollector(ROOT);
    collector.onTestRunEnd([moduleOf('checks/a.check.ts', ['one'])], [], 'passed');
    collector.expectFiles([`${ROOT}/checks/a.check.ts`, `${ROOT}/checks/b.check.ts`]);
    expect(collector.problems).toEqual(['checks/b.check.ts did not run']);
  });
});

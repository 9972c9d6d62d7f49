import { describe, expect, it } from 'vitest';
import type { TestCase, TestModule, TestSpecification } from 'vitest/node';
import { ProgressReporter, formatDuration, formatProgressLine } from './progress.ts';

type State = 'passed' | 'failed' | 'skipped';

/** A stand-in for vitest's TestCase: only what the reporter reads. */
function testCase(
  name: string,
  state: State,
  {
    durationMs = 0,
    note,
    mode = 'run',
  }: { durationMs?: number; note?: string; mode?: string } = {},
): TestCase {
  return {
    name,
    options: { mode },
    result: () => ({ state, errors: [], ...(note === undefined ? {} : { note }) }),
    diagnostic: () => ({ duration: durationMs }),
  } as unknown as TestCase;
}

function testModule(tests: TestCase[]): TestModule {
  return { children: { allTests: () => tests[Symbol.iterator]() } } as unknown as TestModule;
}

function specifications(n: number): TestSpecification[] {
  return Array.from(
    { length: n },
    (_, i) => ({ moduleId: `/c/${i}.check.ts` }) as TestSpecification,
  );
}

/** A reporter writing into an array of lines. */
function reporter(planned?: ReadonlyMap<string, number>) {
  const lines: string[] = [];
  const progress = new ProgressReporter({ write: (text: string) => lines.push(text) }, planned);
  return { progress, lines };
}

describe('formatProgressLine', () => {
  it('starts with the counter, then the result, the name and the duration', () => {
    expect(
      formatProgressLine({
        done: 12,
        total: 92,
        state: 'passed',
        name: '4.1-R1: lists the mailboxes',
        durationMs: 1234,
      }),
    ).toBe('[12/92] PASS 4.1-R1: lists the mailboxes (1.2 s)');
  });

  it('pads the count to the width of the total, so the lines align', () => {
    expect(
      formatProgressLine({ done: 3, total: 120, state: 'failed', name: 'x', durationMs: 5 }),
    ).toBe('[  3/120] FAIL x (5 ms)');
  });

  it('prints a question mark while the total is unknown', () => {
    expect(
      formatProgressLine({ done: 12, total: undefined, state: 'passed', name: 'x', durationMs: 0 }),
    ).toBe('[12/?] PASS x (0 ms)');
  });

  it('gives a skip its reason', () => {
    expect(
      formatProgressLine({
        done: 1,
        total: 2,
        state: 'skipped',
        name: '6.2-R1: delivers webhooks',
        durationMs: 0,
        skipReason: 'needs a webhook receiver',
      }),
    ).toBe('[1/2] SKIP 6.2-R1: delivers webhooks (0 ms): needs a webhook receiver');
  });

  it('masks a secret a name or reason might carry', () => {
    const line = formatProgressLine({
      done: 1,
      total: 1,
      state: 'skipped',
      name: 'x',
      durationMs: 0,
      skipReason: 'refused key sk-AbCdEfGhIjKl_0123456789abcdef0123456789abcdef',
    });
    expect(line).toBe('[1/1] SKIP x (0 ms): refused key sk-…cdef');
  });
});

describe('formatDuration', () => {
  it('says ms under a second, seconds under a minute, then minutes and seconds', () => {
    expect([0.4, 999, 1000, 59_949, 245_000].map(formatDuration)).toEqual([
      '0 ms',
      '999 ms',
      '1.0 s',
      '59.9 s',
      '4 min 05 s',
    ]);
  });
});

describe('ProgressReporter', () => {
  it('writes one line per check as it ends, counting up to the total once every file is collected', () => {
    const { progress, lines } = reporter();
    const [a, b, c] = [
      testCase('A: one', 'passed', { durationMs: 30 }),
      testCase('B: two', 'skipped', { note: 'needs a second key' }),
      testCase('C: three', 'failed', { durationMs: 2500 }),
    ];
    progress.onTestRunStart(specifications(2));
    progress.onTestModuleCollected(testModule([a!, b!]));
    progress.onTestCaseResult(a!);
    progress.onTestCaseResult(b!);
    progress.onTestModuleCollected(testModule([c!]));
    progress.onTestCaseResult(c!);
    expect(lines).toEqual([
      '[1/?] PASS A: one (30 ms)\n',
      '[2/?] SKIP B: two (0 ms): needs a second key\n',
      '[3/3] FAIL C: three (2.5 s)\n',
    ]);
  });

  it('neither counts nor shows a check --filter left out', () => {
    const { progress, lines } = reporter();
    const kept = testCase('kept', 'passed');
    const left = testCase('left out', 'skipped', { mode: 'skip' });
    progress.onTestRunStart(specifications(1));
    progress.onTestModuleCollected(testModule([kept, left]));
    progress.onTestCaseResult(left);
    progress.onTestCaseResult(kept);
    expect(lines).toEqual(['[1/1] PASS kept (0 ms)\n']);
  });

  it('shows the planned total from the first line, before any file is collected (issue 27 item 11)', () => {
    const { progress, lines } = reporter(
      new Map([
        ['/c/0.check.ts', 2],
        ['/c/1.check.ts', 1],
        ['/c/other.check.ts', 7], // another shard's file: not counted
      ]),
    );
    const [a, b, c] = [testCase('A', 'passed'), testCase('B', 'passed'), testCase('C', 'failed')];
    progress.onTestRunStart(specifications(2));
    progress.onTestCaseResult(a!);
    progress.onTestModuleCollected(testModule([a!, b!]));
    progress.onTestCaseResult(b!);
    progress.onTestModuleCollected(testModule([c!]));
    progress.onTestCaseResult(c!);
    expect(lines).toEqual([
      '[1/3] PASS A (0 ms)\n',
      '[2/3] PASS B (0 ms)\n',
      '[3/3] FAIL C (0 ms)\n',
    ]);
  });

  it('waits for the collection when a file of the run was not planned', () => {
    const { progress, lines } = reporter(new Map([['/c/0.check.ts', 2]]));
    const only = testCase('only', 'passed');
    progress.onTestRunStart(specifications(2));
    progress.onTestCaseResult(only);
    expect(lines).toEqual(['[1/?] PASS only (0 ms)\n']);
  });

  it('puts skips that end one after another for the same reason on one line with their count', () => {
    const { progress, lines } = reporter(new Map([['/c/0.check.ts', 7]]));
    const why = 'left out by --profile read-only';
    const tests = [
      testCase('S1', 'skipped', { note: why }),
      testCase('S2', 'skipped', { note: why }),
      testCase('S3', 'skipped', { note: why }),
      testCase('T', 'skipped', { note: 'needs a receiver' }),
      testCase('P', 'passed'),
      testCase('S4', 'skipped', { note: why }),
      testCase('S5', 'skipped', { note: why }),
    ];
    progress.onTestRunStart(specifications(1));
    for (const t of tests) progress.onTestCaseResult(t);
    expect(lines).toHaveLength(3); // the last two wait for the run's end
    progress.onTestRunEnd();
    expect(lines).toEqual([
      `[1-3/7] SKIP 3 checks: ${why}\n`,
      '[4/7] SKIP T (0 ms): needs a receiver\n',
      '[5/7] PASS P (0 ms)\n',
      `[6-7/7] SKIP 2 checks: ${why}\n`,
    ]);
  });

  it('escapes control characters a check name carries', () => {
    expect(
      formatProgressLine({ done: 1, total: 1, state: 'passed', name: 'a\u0000b', durationMs: 0 }),
    ).toBe('[1/1] PASS a\\x00b (0 ms)');
  });

  it('prints a question mark when the run never said how many files it has', () => {
    const { progress, lines } = reporter();
    const only = testCase('only', 'passed');
    progress.onTestModuleCollected(testModule([only]));
    progress.onTestCaseResult(only);
    expect(lines).toEqual(['[1/?] PASS only (0 ms)\n']);
  });
});

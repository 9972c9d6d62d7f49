import { describe, expect, it } from 'vitest';
import type { Need, TargetConfig } from '../run/config.ts';
import { offeredNeeds, selectCheck } from '../run/profiles.ts';
import type { Rule } from '../contract/rules.ts';
import {
  NOT_SELECTED_BY_FILTER,
  chargeOf,
  harnessReason,
  notReachedReasons,
  summarize,
  type SummaryOptions,
  type TestOutcome,
} from './summary.ts';

/** Decided rules warn unless strict, in process as on a live target. */
const EMULATOR: SummaryOptions = { strict: false };
const LIVE: SummaryOptions = { strict: false };
const STRICT: SummaryOptions = { strict: true };

function documented(id: string): Rule {
  return {
    id,
    section: id.split('-')[0] ?? '',
    sentence: `sentence of ${id}`,
    source: 'documented',
  };
}

function decided(id: string): Rule {
  return { id, section: '4.2', sentence: `sentence of ${id}`, source: 'decided' };
}

function outcome(
  rules: string[],
  state: TestOutcome['state'],
  extra: Partial<TestOutcome> = {},
): TestOutcome {
  return {
    name: `checks ${rules.join(', ') || 'nothing'} (${state})`,
    file: 'conformance/checks/x.check.ts',
    rules,
    state,
    errors: state === 'failed' ? ['boom'] : [],
    ...extra,
  };
}

function statuses(summary: ReturnType<typeof summarize>): Record<string, string> {
  return Object.fromEntries(summary.results.map((r) => [r.rule.id, r.status]));
}

describe('summarize', () => {
  it('gives each rule pass, fail, skip or unchecked from its tests', () => {
    const rules = [documented('1-R1'), documented('1-R2'), documented('1-R3'), documented('1-R4')];
    const summary = summarize(
      rules,
      [outcome(['1-R1'], 'passed'), outcome(['1-R2'], 'failed'), outcome(['1-R3'], 'skipped')],
      [],
      EMULATOR,
    );
    expect(statuses(summary)).toEqual({
      '1-R1': 'pass',
      '1-R2': 'fail',
      '1-R3': 'skip',
      '1-R4': 'unchecked',
    });
    expect(summary.counts).toEqual({
      pass: 1,
      fail: 1,
      warn: 0,
      skip: 1,
      harness: 0,
      unchecked: 1,
    });
  });

  it('keeps the rules in the order given and attaches the tests that name each rule', () => {
    const rules = [documented('2.1-R1'), documented('1-R1')];
    const first = outcome(['1-R1', '2.1-R1'], 'passed');
    const second = outcome(['1-R1'], 'passed', { name: 'second' });
    const summary = summarize(rules, [first, second], [], EMULATOR);
    expect(summary.results.map((r) => r.rule.id)).toEqual(['2.1-R1', '1-R1']);
    expect(summary.results[0]?.tests).toEqual([first]);
    expect(summary.results[1]?.tests).toEqual([first, second]);
  });

  it('reports a decided rule failure as a warning, not a failure, when not strict', () => {
    const summary = summarize([decided('D-2')], [outcome(['D-2'], 'failed')], [], LIVE);
    expect(statuses(summary)).toEqual({ 'D-2': 'warn' });
    expect(summary.counts).toEqual({
      pass: 0,
      fail: 0,
      warn: 1,
      skip: 0,
      harness: 0,
      unchecked: 0,
    });
    expect(summary.warnings).toEqual([
      'warning on D-2: a decided rule failed (--strict makes it a failure)',
    ]);
    expect(summary.exitCode).toBe(0);
  });

  it('reports a decided rule failure as a failure when strict', () => {
    const summary = summarize([decided('D-2')], [outcome(['D-2'], 'failed')], [], STRICT);
    expect(statuses(summary)).toEqual({ 'D-2': 'fail' });
    expect(summary.warnings).toEqual([]);
    expect(summary.exitCode).toBe(1);
  });

  it('fails the run on a documented rule failure even on a live target', () => {
    const summary = summarize([documented('4-R1')], [outcome(['4-R1'], 'failed')], [], LIVE);
    expect(statuses(summary)).toEqual({ '4-R1': 'fail' });
    expect(summary.exitCode).toBe(1);
  });

  it('exits 0 when every checked rule passes or is skipped', () => {
    const summary = summarize(
      [documented('1-R1'), documented('1-R2'), documented('1-R3')],
      [outcome(['1-R1'], 'passed'), outcome(['1-R2'], 'skipped')],
      [],
      EMULATOR,
    );
    expect(summary.exitCode).toBe(0);
    expect(summary.problems).toEqual([]);
  });

  it('counts a rule with one passed and one skipped test as pass', () => {
    const summary = summarize(
      [documented('1-R1')],
      [outcome(['1-R1'], 'passed'), outcome(['1-R1'], 'skipped')],
      [],
      EMULATOR,
    );
    expect(statuses(summary)).toEqual({ '1-R1': 'pass' });
  });

  it('counts a rule whose tests were all skipped as skip', () => {
    const summary = summarize(
      [documented('1-R1')],
      [outcome(['1-R1'], 'skipped'), outcome(['1-R1'], 'skipped')],
      [],
      EMULATOR,
    );
    expect(statuses(summary)).toEqual({ '1-R1': 'skip' });
    expect(summary.counts.skip).toBe(1);
  });

  it('counts a rule as failed when any one of its tests failed', () => {
    const summary = summarize(
      [documented('1-R1')],
      [outcome(['1-R1'], 'passed'), outcome(['1-R1'], 'failed'), outcome(['1-R1'], 'skipped')],
      [],
      EMULATOR,
    );
    expect(statuses(summary)).toEqual({ '1-R1': 'fail' });
  });

  it('splits coverage into documented and decided rules that have at least one test', () => {
    const rules = [
      documented('1-R1'),
      documented('1-R2'),
      documented('1-R3'),
      decided('D-2'),
      decided('D-5'),
    ];
    const summary = summarize(
      rules,
      [
        outcome(['1-R1'], 'passed'),
        outcome(['1-R2'], 'skipped'),
        outcome(['D-5'], 'failed'),
        outcome(['D-5'], 'passed'),
      ],
      [],
      EMULATOR,
    );
    expect(summary.coverage).toEqual({
      checked: 3,
      total: 5,
      documented: [2, 3],
      decided: [1, 2],
      untestable: 0,
    });
  });

  it('turns a test naming an unknown rule into a problem that fails the run', () => {
    const summary = summarize(
      [documented('1-R1')],
      [outcome(['1-R1', '9-R99'], 'passed', { name: 'a check' })],
      [],
      EMULATOR,
    );
    expect(summary.problems).toEqual([
      'conformance/checks/x.check.ts: test "a check" names unknown rule 9-R99',
    ]);
    expect(statuses(summary)).toEqual({ '1-R1': 'pass' });
    expect(summary.exitCode).toBe(1);
  });

  it('turns a test naming no rule into a problem that fails the run', () => {
    const summary = summarize(
      [documented('1-R1')],
      [outcome(['1-R1'], 'passed'), outcome([], 'passed', { name: 'orphan' })],
      [],
      EMULATOR,
    );
    expect(summary.problems).toEqual([
      'conformance/checks/x.check.ts: test "orphan" names no rule',
    ]);
    expect(summary.exitCode).toBe(1);
  });

  it('keeps problems passed in, before the ones it finds, and fails the run on them', () => {
    const summary = summarize(
      [documented('1-R1')],
      [outcome(['1-R1'], 'passed'), outcome([], 'passed', { name: 'orphan' })],
      ['conformance/checks/y.check.ts did not load: SyntaxError'],
      EMULATOR,
    );
    expect(summary.problems).toEqual([
      'conformance/checks/y.check.ts did not load: SyntaxError',
      'conformance/checks/x.check.ts: test "orphan" names no rule',
    ]);
    expect(summary.exitCode).toBe(1);
  });

  it('does not change the problems array passed in', () => {
    const problems = ['given'];
    summarize([documented('1-R1')], [outcome([], 'passed')], problems, EMULATOR);
    expect(problems).toEqual(['given']);
  });

  it('reports zero coverage when no tests ran, and fails the run: nothing was checked', () => {
    const summary = summarize([documented('1-R1'), decided('D-2')], [], [], LIVE);
    expect(summary.counts).toEqual({
      pass: 0,
      fail: 0,
      warn: 0,
      skip: 0,
      harness: 0,
      unchecked: 2,
    });
    expect(summary.coverage).toEqual({
      checked: 0,
      total: 2,
      documented: [0, 1],
      decided: [0, 1],
      untestable: 0,
    });
    expect(summary.nothingChecked).toBe('no check was found');
    expect(summary.exitCode).toBe(1);
  });

  it('lists every skipped check with its reason, whatever the status of its rules', () => {
    const summary = summarize(
      [documented('1-R1'), documented('1-R2')],
      [
        outcome(['1-R1'], 'passed'),
        outcome(['1-R1'], 'skipped', { name: 'a', skipReason: 'needs the control plane' }),
        outcome(['1-R2'], 'skipped', { name: 'b' }),
      ],
      [],
      EMULATOR,
    );
    expect(summary.skipped).toEqual([
      {
        file: 'conformance/checks/x.check.ts',
        name: 'a',
        rules: ['1-R1'],
        reason: 'needs the control plane',
      },
      { file: 'conformance/checks/x.check.ts', name: 'b', rules: ['1-R2'], reason: 'skipped' },
    ]);
    expect(summary.refusals).toEqual([]);
    expect(summary.exitCode).toBe(0);
  });

  it('under certify (noSkips) fails the run on any skipped check, saying what and why', () => {
    const summary = summarize(
      [documented('1-R1')],
      [
        outcome(['1-R1'], 'passed'),
        outcome(['1-R1'], 'skipped', { name: 'a', skipReason: 'needs the control plane' }),
      ],
      [],
      { strict: true, noSkips: true },
    );
    expect(statuses(summary)).toEqual({ '1-R1': 'pass' });
    expect(summary.refusals).toEqual([
      'skipped conformance/checks/x.check.ts "a": needs the control plane',
    ]);
    expect(summary.exitCode).toBe(1);
  });

  it('under noSkips (certify) without strict, lists a warning but does not refuse it', () => {
    const summary = summarize(
      [decided('D-2'), documented('1-R1')],
      [outcome(['D-2'], 'failed', { chargedRules: ['D-2'] }), outcome(['1-R1'], 'passed')],
      [],
      { strict: false, noSkips: true },
    );
    expect(statuses(summary)).toEqual({ 'D-2': 'warn', '1-R1': 'pass' });
    expect(summary.refusals).toEqual([]);
    expect(summary.warnings).toEqual([
      'warning on D-2: a decided rule failed (--strict makes it a failure)',
    ]);
    expect(summary.exitCode).toBe(0);
  });

  it('under noSkips with strict, fails a decided rule (a failure, not a refusal)', () => {
    const summary = summarize([decided('D-2')], [outcome(['D-2'], 'failed')], [], {
      strict: true,
      noSkips: true,
    });
    expect(statuses(summary)).toEqual({ 'D-2': 'fail' });
    expect(summary.refusals).toEqual([]);
    expect(summary.exitCode).toBe(1);
  });

  it('under noSkips passes a run with nothing skipped and no warning', () => {
    const summary = summarize([documented('1-R1')], [outcome(['1-R1'], 'passed')], [], {
      strict: true,
      noSkips: true,
    });
    expect(summary.refusals).toEqual([]);
    expect(summary.exitCode).toBe(0);
  });
});

describe('rule coverage (every rule has a check or is marked untestable)', () => {
  it('makes a rule with neither a problem that fails a whole run, but not a shard', () => {
    const rules = [
      documented('1-R1'),
      { ...documented('1-R2'), untestable: "the receiver's obligation" },
      documented('1-R3'),
    ];
    const outcomes = [outcome(['1-R1'], 'passed')];
    const whole = summarize(rules, outcomes, [], { ...EMULATOR, requireCoverage: true });
    expect(whole.problems).toEqual([
      'rule 1-R3 has no check and is not marked untestable (conformance/rules.yaml)',
    ]);
    expect(whole.exitCode).toBe(1);
    expect(whole.coverage.untestable).toBe(1);
    expect(summarize(rules, outcomes, [], EMULATOR).exitCode).toBe(0);
  });

  it('refuses an untestable mark on a rule that has a check', () => {
    const rules = [{ ...documented('1-R1'), untestable: 'stale' }];
    const summary = summarize(rules, [outcome(['1-R1'], 'passed')], [], EMULATOR);
    expect(summary.problems).toEqual([
      'rule 1-R1 is marked untestable but has a check: drop the mark',
    ]);
  });
});

describe('a run that checked nothing (issue 13 item 2)', () => {
  const rules = [documented('1-R1'), documented('1-R2')];
  const notSelected = { skipReason: NOT_SELECTED_BY_FILTER };

  it('fails when --filter selected no check, saying so, though no rule failed', () => {
    const summary = summarize(
      rules,
      [outcome(['1-R1'], 'skipped', notSelected), outcome(['1-R2'], 'skipped', notSelected)],
      [],
      { ...EMULATOR, filter: 'zzz-nothing' },
    );
    expect(summary.counts.fail).toBe(0);
    expect(summary.nothingChecked).toBe('--filter "zzz-nothing" selected no check');
    expect(summary.exitCode).toBe(1);
  });

  it('fails when every check was skipped, giving the reasons', () => {
    const summary = summarize(
      rules,
      [
        outcome(['1-R1'], 'skipped', { skipReason: 'needs the control plane' }),
        outcome(['1-R2'], 'skipped', { skipReason: 'needs the control plane' }),
      ],
      [],
      LIVE,
    );
    expect(summary.nothingChecked).toBe(
      'every one of the 2 check(s) was skipped (needs the control plane)',
    );
    expect(summary.exitCode).toBe(1);
  });

  it('fails when the checks --filter selected were all skipped, naming the filter', () => {
    const summary = summarize(
      rules,
      [
        outcome(['1-R1'], 'skipped', notSelected),
        outcome(['1-R2'], 'skipped', { skipReason: 'needs destructive' }),
      ],
      [],
      { ...LIVE, filter: 'R2' },
    );
    expect(summary.nothingChecked).toBe(
      'every one of the 1 check(s) --filter "R2" selected was skipped (needs destructive)',
    );
  });

  it('fails when the checks that ran sent no request to the target', () => {
    const summary = summarize(
      rules,
      [outcome(['1-R1'], 'passed', { requests: 0 }), outcome(['1-R2'], 'skipped')],
      [],
      EMULATOR,
    );
    expect(summary.nothingChecked).toBe('the 1 check(s) that ran sent no request to the target');
    expect(summary.exitCode).toBe(1);
  });

  it("names the suite's own problem, not the filter, when a check file never ran", () => {
    // Seen in loaded unit runs: a build rewrote dist/ under the run, which then reported only
    // the first check file written, whose checks --filter had not selected.
    const summary = summarize(
      rules,
      [outcome(['1-R1'], 'skipped', notSelected)],
      ['checks/b.check.ts did not run', 'unhandled error: boom\nat somewhere'],
      { ...EMULATOR, filter: '1-R2' },
    );
    expect(summary.nothingChecked).toBe(
      'the suite itself failed: checks/b.check.ts did not run (and 1 more problem(s))',
    );
    expect(summary.exitCode).toBe(1);
    const alone = summarize(rules, [], ['unhandled error: boom\nat somewhere'], EMULATOR);
    expect(alone.nothingChecked).toBe('the suite itself failed: unhandled error: boom');
  });

  it('passes a run in which one check ran and sent a request', () => {
    const summary = summarize(
      rules,
      [outcome(['1-R1'], 'passed', { requests: 3 }), outcome(['1-R2'], 'passed', { requests: 0 })],
      [],
      EMULATOR,
    );
    expect(summary.nothingChecked).toBeUndefined();
    expect(summary.exitCode).toBe(0);
  });
});

describe('one assertion, one rule (issue 14 item 2)', () => {
  const rules = [documented('4.7-R1'), documented('4.7-R2'), decided('D-22')];
  const check = (chargedRules?: string[], extra: Partial<TestOutcome> = {}) =>
    outcome(['4.7-R1', '4.7-R2', 'D-22'], 'failed', {
      name: 'replies',
      behaviour: 'replies',
      ...(chargedRules === undefined ? {} : { chargedRules }),
      ...extra,
    });

  it('warns on a decided rule a failure was charged to, and exits 0, when not strict', () => {
    const summary = summarize(rules, [check(['D-22'])], [], EMULATOR);
    expect(statuses(summary)['D-22']).toBe('warn');
    expect(summary.counts.fail).toBe(0);
    expect(summary.exitCode).toBe(0);
  });

  it('fails that decided rule, and exits 1, when strict', () => {
    const summary = summarize(rules, [check(['D-22'])], [], STRICT);
    expect(statuses(summary)['D-22']).toBe('fail');
    expect(summary.exitCode).toBe(1);
  });

  it('fails a documented rule a failure was charged to, strict or not', () => {
    for (const options of [EMULATOR, STRICT]) {
      const summary = summarize(rules, [check(['4.7-R1'])], [], options);
      expect(statuses(summary)['4.7-R1']).toBe('fail');
      expect(summary.exitCode).toBe(1);
    }
  });

  it('does not fail the other rules of the check: they pass where another check passed them', () => {
    const other = outcome(['4.7-R1'], 'passed', { name: 'other' });
    const summary = summarize(rules, [check(['D-22']), other], [], EMULATOR);
    expect(statuses(summary)).toEqual({ '4.7-R1': 'pass', '4.7-R2': 'skip', 'D-22': 'warn' });
    expect(summary.uncharged).toEqual([]);
    expect(summary.problems).toEqual([]);
  });

  it('skips a rule its only check never reached, saying on which rule that check failed', () => {
    const summary = summarize(rules, [check(['D-22'])], [], EMULATOR);
    const r2 = summary.results.find((r) => r.rule.id === '4.7-R2')!;
    expect(r2.status).toBe('skip');
    expect(notReachedReasons(r2)).toEqual([
      'not reached: its check "replies" failed on D-22 first',
    ]);
    // Not a skipped check: the check ran (and failed).
    expect(summary.skipped).toEqual([]);
  });

  it('under certify refuses a rule left unverified, as it refuses a skipped check', () => {
    const summary = summarize(rules, [check(['D-22'])], [], { strict: false, noSkips: true });
    expect(summary.refusals).toEqual([
      '4.7-R1 not reached: its check "replies" failed on D-22 first',
      '4.7-R2 not reached: its check "replies" failed on D-22 first',
    ]);
    expect(summary.exitCode).toBe(1);
  });

  it('passes the other rules of a check that ran to its end and departed only from a decision', () => {
    const summary = summarize(rules, [check(['D-22'], { completed: true })], [], {
      strict: false,
      noSkips: true,
    });
    expect(statuses(summary)).toEqual({ '4.7-R1': 'pass', '4.7-R2': 'pass', 'D-22': 'warn' });
    expect(summary.refusals).toEqual([]);
    expect(summary.exitCode).toBe(0);
  });

  it('fails every rule of a check whose failure named no rule, and lists it as uncharged', () => {
    const summary = summarize(rules, [check(undefined)], [], EMULATOR);
    expect(statuses(summary)).toEqual({ '4.7-R1': 'fail', '4.7-R2': 'fail', 'D-22': 'warn' });
    expect(summary.uncharged).toEqual([
      {
        file: 'conformance/checks/x.check.ts',
        name: 'replies',
        rules: ['4.7-R1', '4.7-R2', 'D-22'],
      },
    ]);
    expect(summary.problems).toEqual([]);
    expect(summary.exitCode).toBe(1);
  });

  it('treats an empty chargedRules as uncharged', () => {
    expect(chargeOf(check([]))).toEqual({ rules: ['4.7-R1', '4.7-R2', 'D-22'], kind: 'uncharged' });
  });

  it('makes a charge to a rule the check does not declare a problem, and fails all its rules', () => {
    const summary = summarize([...rules, decided('D-23')], [check(['D-23'])], [], EMULATOR);
    expect(statuses(summary)).toEqual({
      '4.7-R1': 'fail',
      '4.7-R2': 'fail',
      'D-22': 'warn',
      'D-23': 'unchecked',
    });
    expect(summary.problems).toEqual([
      'conformance/checks/x.check.ts: test "replies" charged its failure to D-23, which it does not declare (it declares 4.7-R1, 4.7-R2, D-22); charged to all of these instead',
    ]);
    expect(summary.uncharged).toEqual([]);
    expect(summary.exitCode).toBe(1);
  });

  it('fails a rule charged by one check though another check of it passed', () => {
    const passed = outcome(['D-22'], 'passed', { name: 'other' });
    const summary = summarize(rules, [passed, check(['D-22'])], [], STRICT);
    expect(statuses(summary)['D-22']).toBe('fail');
  });

  it('gives the charge of a failed check only', () => {
    expect(chargeOf(outcome(['1-R1'], 'passed'))).toBeUndefined();
    expect(chargeOf(check(['4.7-R2']))).toEqual({ rules: ['4.7-R2'], kind: 'rule' });
  });
});

describe('certify on an API world (issue 15 item 5): what only the harness can give', () => {
  /** A deployment given a key, a mailbox and --destructive: mail, destructive, nothing else. */
  const API_WORLD: TargetConfig = {
    kind: 'live',
    baseUrl: 'https://mail.example.com/openapi/v1',
    apiKey: 'sk-test-0123456789abcdef',
    mailboxes: ['box@example.com'],
    destructive: true,
  };
  const offers = offeredNeeds(API_WORLD);
  const CERTIFY: SummaryOptions = { strict: false, noSkips: true, offers };
  const rules = [documented('4.3-R1'), documented('4.3-R2'), documented('6.4-R3')];
  const ran = outcome(['4.3-R1'], 'passed', { name: 'sends', requests: 3 });
  /** A check skipped as a worker skips it on this target: with selectCheck's reason. */
  const skippedFor = (ruleIds: string[], needs: Need[], name = `needs ${needs.join('+')}`) => {
    const selection = selectCheck(needs, offers, 'certify');
    if (selection.run) throw new Error(`the API world offers ${needs.join(', ')}`);
    return outcome(ruleIds, 'skipped', { name, needs, skipReason: selection.reason });
  };

  it('passes certify when a check was skipped for clock alone, listing its rule as needing the harness', () => {
    const summary = summarize(rules, [ran, skippedFor(['6.4-R3'], ['mail', 'clock'])], [], CERTIFY);
    expect(statuses(summary)['6.4-R3']).toBe('harness');
    const result = summary.results.find((r) => r.rule.id === '6.4-R3')!;
    expect(result.harness).toEqual(['clock']);
    expect(harnessReason(result.harness!)).toBe('needs the harness: clock');
    expect(summary.counts.harness).toBe(1);
    expect(summary.counts).toMatchObject({ pass: 1, skip: 0, harness: 1, unchecked: 1 });
    expect(summary.skipped.map((s) => s.harness)).toEqual([['clock']]);
    expect(summary.refusals).toEqual([]);
    expect(summary.exitCode).toBe(0);
  });

  it('still fails certify on a check skipped for second-key', () => {
    const skipped = skippedFor(['6.4-R3'], ['second-key']);
    const summary = summarize(rules, [ran, skipped], [], CERTIFY);
    expect(statuses(summary)['6.4-R3']).toBe('skip');
    expect(summary.counts.harness).toBe(0);
    expect(summary.refusals).toEqual([
      `skipped conformance/checks/x.check.ts "needs second-key": ${skipped.skipReason}`,
    ]);
    expect(summary.exitCode).toBe(1);
  });

  it('fails certify on a check skipped for clock and second-key together', () => {
    const summary = summarize(
      rules,
      [ran, skippedFor(['6.4-R3'], ['clock', 'second-key'])],
      [],
      CERTIFY,
    );
    expect(statuses(summary)['6.4-R3']).toBe('skip');
    expect(summary.skipped[0]?.harness).toBeUndefined();
    expect(summary.counts.harness).toBe(0);
    expect(summary.refusals).toHaveLength(1);
    expect(summary.exitCode).toBe(1);
  });

  it('keeps a rule skipped when one of its checks lacked the harness and another a key', () => {
    const summary = summarize(
      rules,
      [ran, skippedFor(['6.4-R3'], ['clock']), skippedFor(['6.4-R3'], ['second-key'])],
      [],
      CERTIFY,
    );
    expect(statuses(summary)['6.4-R3']).toBe('skip');
    expect(summary.counts.harness).toBe(0);
    // The harness-only check is not refused; the other is.
    expect(summary.refusals).toEqual([expect.stringContaining('"needs second-key"')]);
    expect(summary.exitCode).toBe(1);
  });

  it('names every harness need of a rule once, in the order of the needs', () => {
    const summary = summarize(
      rules,
      [ran, skippedFor(['6.4-R3'], ['faults', 'clock']), skippedFor(['6.4-R3'], ['clock'])],
      [],
      CERTIFY,
    );
    expect(summary.results.find((r) => r.rule.id === '6.4-R3')?.harness).toEqual([
      'clock',
      'faults',
    ]);
  });

  it('keeps a rule its check failed before reaching skipped and refused, not left to the harness', () => {
    const failed = outcome(['4.3-R1', '4.3-R2'], 'failed', { chargedRules: ['4.3-R1'] });
    const summary = summarize(rules, [failed, skippedFor(['4.3-R2'], ['clock'])], [], CERTIFY);
    expect(statuses(summary)['4.3-R2']).toBe('skip');
    expect(summary.counts.harness).toBe(0);
    expect(summary.refusals).toContain(
      '4.3-R2 not reached: its check "checks 4.3-R1, 4.3-R2 (failed)" failed on 4.3-R1 first',
    );
  });

  it('does not leave to the harness a check skipped for another reason than its needs', () => {
    const refused = outcome(['6.4-R3'], 'skipped', {
      needs: ['clock'],
      skipReason: 'the suite refused: an address outside the mailboxes',
    });
    const summary = summarize(rules, [ran, refused], [], CERTIFY);
    expect(statuses(summary)['6.4-R3']).toBe('skip');
    expect(summary.counts.harness).toBe(0);
    expect(summary.exitCode).toBe(1);
  });

  it('changes nothing outside certify: the skip stays a skip', () => {
    const summary = summarize(rules, [ran, skippedFor(['6.4-R3'], ['clock'])], [], {
      strict: false,
      offers,
    });
    expect(statuses(summary)['6.4-R3']).toBe('skip');
    expect(summary.counts.harness).toBe(0);
    expect(summary.skipped[0]?.harness).toBeUndefined();
    expect(summary.exitCode).toBe(0);
  });

  it('changes nothing against the in-process emulator, which offers every need', () => {
    const everything = offeredNeeds({ kind: 'emulator' });
    const filtered = outcome(['6.4-R3'], 'skipped', {
      needs: ['clock'],
      skipReason: NOT_SELECTED_BY_FILTER,
    });
    const summary = summarize(rules, [ran, filtered], [], { ...CERTIFY, offers: everything });
    expect(statuses(summary)['6.4-R3']).toBe('skip');
    expect(summary.counts.harness).toBe(0);
    expect(summary.refusals).toHaveLength(1);
    expect(summary.exitCode).toBe(1);
  });
});

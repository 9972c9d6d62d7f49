/**
 * One assertion, one rule, through the real pipeline: fixture checks run by vitest in a child
 * process against the in-process emulator, their outcomes collected by the RuleCollector as
 * `mailtwin-conformance` collects them, then folded by summarize().
 */
import { spawnSync } from 'node:child_process';
import { PACKAGE_ROOT } from '../../../emulator/src/package-root.ts';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadRules } from '../contract/rules.ts';
import { summarize, type TestOutcome } from '../report/summary.ts';

const ROOT = PACKAGE_ROOT;

const RUNNER = `
import { register } from 'tsx/esm/api';
register();
const { startVitest } = await import('vitest/node');
const { RuleCollector } = await import('./conformance/src/report/reporter.ts');
const collector = new RuleCollector(process.cwd());
const vitest = await startVitest(
  'test',
  [],
  { root: process.cwd(), config: false, watch: false, run: true, reporters: [collector] },
  {
    test: {
      include: ['conformance/src/failing-checks/charging.ts'],
      setupFiles: ['conformance/src/run/setup.ts'],
    },
  },
);
await vitest.close();
process.stdout.write('\\u0000' + JSON.stringify({ outcomes: collector.outcomes, problems: collector.problems }));
`;

let outcomes: TestOutcome[];
let problems: string[];

beforeAll(() => {
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', RUNNER], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1', MAILTWIN_CONFORMANCE_CONFIG: '' },
    timeout: 120_000,
  });
  const json = run.stdout.split('\u0000').at(-1) ?? '';
  try {
    ({ outcomes, problems } = JSON.parse(json) as { outcomes: TestOutcome[]; problems: string[] });
  } catch {
    throw new Error(`the fixture run printed no outcomes (exit ${run.status}):\n${run.stderr}`);
  }
}, 130_000);

const byBehaviour = (behaviour: string) => {
  const found = outcomes.find((o) => o.behaviour === behaviour);
  if (found === undefined) throw new Error(`no outcome for "${behaviour}"`);
  return found;
};

describe('check.ts charges a failure to the rule its failing assertion names', () => {
  it('loads every fixture check', () => {
    expect(problems).toEqual([]);
    expect(outcomes).toHaveLength(12);
  });

  it('records no charge on a passed check', () => {
    expect(byBehaviour('passes')).toMatchObject({ state: 'passed' });
    expect(byBehaviour('passes').chargedRules).toBeUndefined();
  });

  it('records the rule of a charged assertion, and says so in the failure', () => {
    const failed = byBehaviour('fails an assertion charged to D-2');
    expect(failed).toMatchObject({ state: 'failed', chargedRules: ['D-2'] });
    expect(failed.errors[0]).toContain('Charged to (the rule the failing assertion checks):');
    // A decided departure does not stop the check: it ran to its end (issue 26 item 5).
    expect(failed.completed).toBe(true);
    expect(failed.errors[0]).toContain('Checked and held (the check ran to its end): 4.1-R1');
  });

  it('records no rule for a plain assertion, and says it is counted against every rule', () => {
    const failed = byBehaviour('fails a plain assertion');
    expect(failed.state).toBe('failed');
    expect(failed.chargedRules).toBeUndefined();
    expect(failed.errors[0]).toContain('Uncharged (the failure named no rule)');
  });

  it('records an undeclared rule as named, for summarize() to call a problem', () => {
    const failed = byBehaviour('charges a rule it does not declare');
    expect(failed).toMatchObject({ state: 'failed', chargedRules: ['D-5'] });
    expect(failed.errors[0]).toContain('Charged to D-5, which this check does not declare');
  });

  it('keeps the charge of a property through shrinking', () => {
    const failed = byBehaviour('fails a property on D-2');
    expect(failed).toMatchObject({ state: 'failed', chargedRules: ['D-2'] });
    expect(failed.errors[0]).toContain('Counterexample: [5]');
  });

  it('still skips a check the suite refused, though the refusal was charged', () => {
    expect(byBehaviour('is refused by the suite inside a charged block')).toMatchObject({
      state: 'skipped',
      skipReason: 'the suite refused: a mailbox it was not given',
    });
  });

  it('reports a check that ran out of time as not finished, failing no rule, with the rules it reached', () => {
    const ran = byBehaviour('runs out of its time budget after reaching 4.1-R1');
    expect(ran.state).toBe('skipped');
    expect(ran.skipReason).toMatch(/^not finished: /);
    expect(ran.skipReason).toContain('after 1 requests');
    expect(ran.skipReason).toContain('rules reached: 4.1-R1; not reached: D-2');
  });

  it('does not count time spent waiting on the target against a check’s budget', () => {
    const ran = byBehaviour('waits on the target longer than its budget and still finishes');
    expect(ran.state, ran.errors.join('\n')).toBe('passed');
  });

  it('keeps the wait clock and the rules reached of checks run side by side apart', () => {
    const busy = byBehaviour(
      'side by side: runs out of its budget while the check beside it waits on the target',
    );
    expect(busy.state).toBe('skipped');
    // Its neighbour's wait is not its own, and its neighbour's D-2 is not a rule it reached.
    expect(busy.skipReason).toContain('(0.0 s more waiting');
    expect(busy.skipReason).toContain('rules reached: 4.1-R1; not reached: D-2');
    const waiting = byBehaviour(
      'side by side: waits on the target longer than its budget beside a busy check',
    );
    expect(waiting.state, waiting.errors.join('\n')).toBe('passed');
  });

  it('counts a contract breach for the contract’s rule though the check does not name it, in a property too', () => {
    for (const behaviour of [
      'meets a contract breach of D-5',
      'meets a contract breach of D-5 in a property',
    ]) {
      const failed = byBehaviour(behaviour);
      expect(failed, behaviour).toMatchObject({ state: 'failed', chargedRules: ['D-5'] });
      expect(failed.rules, behaviour).toEqual(['4.1-R1', 'D-2', 'D-5']);
      expect(failed.errors[0], behaviour).toContain(
        'Charged to (the rule the failing assertion checks):',
      );
    }
  });

  it('folds these into rule statuses: D-2 warns unless strict, 4.1-R1 fails only on the uncharged failure', () => {
    const rules = loadRules().filter((r) => ['4.1-R1', 'D-2', 'D-5'].includes(r.id));
    const status = (strict: boolean) =>
      Object.fromEntries(
        summarize(rules, outcomes, [], { strict }).results.map((r) => [r.rule.id, r.status]),
      );
    expect(status(false)).toEqual({ '4.1-R1': 'fail', 'D-2': 'warn', 'D-5': 'warn' });
    expect(status(true)).toEqual({ '4.1-R1': 'fail', 'D-2': 'fail', 'D-5': 'fail' });
    const withoutCrashes = outcomes.filter(
      (o) => o.behaviour !== 'fails a plain assertion' && !o.behaviour?.includes('declare'),
    );
    const fair = summarize(rules, withoutCrashes, [], { strict: false });
    expect(fair.results.find((r) => r.rule.id === '4.1-R1')?.status).toBe('pass');
    expect(fair.exitCode).toBe(0);
    expect(summarize(rules, withoutCrashes, [], { strict: true }).exitCode).toBe(1);
  });
});

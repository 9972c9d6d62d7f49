/**
 * A hand-made run for the report tests (JUnit, JSON, HTML): every status, a check that
 * verifies two rules, a sentence with quotes, <, > and &, a failure text with terminal colour
 * codes and a control character, skips with reasons, a warning, and a problem.
 */
import type { RunFacts } from './facts.ts';
import type { Rule } from '../contract/rules.ts';
import type { RuleResult, Summary, TestOutcome } from './summary.ts';

export const TRICKY_SENTENCE = `A "quoted" <b>bold</b> claim & 'more' > less.`;

export const SAMPLE_FACTS: RunFacts = {
  target: 'https://mail.example.com/openapi/v1',
  targetKind: 'live',
  baseUrl: 'https://mail.example.com/openapi/v1',
  toolVersion: '0.1.0',
  seed: 42,
  numRuns: 50,
  durationMs: 12_345,
  profile: 'full',
  strict: false,
  startedAt: '2026-01-02T03:04:05.678Z',
  requests: 1234,
  cases: 250,
};

const rule = (id: string, section: string, source: Rule['source'], sentence?: string): Rule => ({
  id,
  section,
  source,
  sentence: sentence ?? `Sentence of ${id}.`,
});

const check = (name: string, state: TestOutcome['state'], extra: Partial<TestOutcome> = {}) =>
  ({
    name,
    file: 'conformance/checks/sample.check.ts',
    rules: [],
    behaviour: name.replace(/^[^:]*: /, ''),
    needs: [],
    state,
    errors: [],
    requests: 10,
    cases: 5,
    durationMs: 120,
    ...extra,
  }) satisfies TestOutcome;

export function sampleSummary(overrides: Partial<Summary> = {}): Summary {
  const both = check('4.1-R1 4.2-R1: lists and pages', 'passed', {
    rules: ['4.1-R1', '4.2-R1'],
    needs: ['provisioning'],
  });
  const broken = check('4.3-R1: refuses "bad" <input> & more', 'failed', {
    rules: ['4.3-R1'],
    needs: ['provisioning', 'destructive'],
    chargedRules: ['4.3-R1'],
    errors: [
      `Rule broken while checking that it refuses "bad" <input> & more:\n  4.3-R1: "${TRICKY_SENTENCE}"\n\n\u001b[31mexpected 400, got 200\u001b[39m \u0007bell\n  replay: curl -i -X POST "$MAILTWIN_BASE_URL"'/emails/send' --data-binary '{"to":"a@b.test"}'`,
    ],
  });
  const skipped = check('6.2-R1: delivers webhooks', 'skipped', {
    rules: ['6.2-R1'],
    needs: ['webhook-receiver'],
    skipReason: 'needs a webhook receiver the target can reach',
    requests: 0,
    cases: 0,
  });
  const drift = check('D-2: answers a decided way', 'failed', {
    rules: ['D-2'],
    chargedRules: ['D-2'],
    errors: ['expected 404, got 403'],
  });
  const results: RuleResult[] = [
    { rule: rule('4.1-R1', '4.1', 'documented'), status: 'pass', tests: [both] },
    { rule: rule('4.2-R1', '4.2', 'documented'), status: 'pass', tests: [both] },
    {
      rule: rule('4.3-R1', '4.3', 'documented', TRICKY_SENTENCE),
      status: 'fail',
      tests: [broken],
    },
    { rule: rule('6.2-R1', '6.2', 'documented'), status: 'skip', tests: [skipped] },
    { rule: rule('9-R1', '9', 'documented'), status: 'unchecked', tests: [] },
    { rule: rule('D-2', '4.1', 'decided'), status: 'warn', tests: [drift] },
  ];
  return {
    results,
    counts: { pass: 2, fail: 1, warn: 1, skip: 1, harness: 0, unchecked: 1 },
    coverage: { checked: 5, total: 6, documented: [4, 5], decided: [1, 1], untestable: 0 },
    problems: ['conformance/checks/broken.check.ts did not load: SyntaxError <oops> & "more"'],
    skipped: [
      {
        file: skipped.file,
        name: skipped.name,
        rules: skipped.rules,
        reason: skipped.skipReason!,
      },
    ],
    uncharged: [],
    refusals: [],
    warnings: ['warning on D-2: a decided rule failed (--strict makes it a failure)'],
    exitCode: 1,
    ...overrides,
  };
}

/** The skip reason a worker gives a check that needs a clock on a target without one. */
export const CLOCK_REASON = 'needs a clock the suite can move, which only a control plane offers';

/**
 * `summary` with one more rule, 6.4-R3, that a certifying run against an API world left to the
 * harness: its only check needs a clock, which no API gives.
 */
export function withHarnessRule(summary: Summary): Summary {
  const clock = check('6.4-R3: retries on its schedule', 'skipped', {
    rules: ['6.4-R3'],
    needs: ['webhook-receiver', 'clock'],
    skipReason: CLOCK_REASON,
    requests: 0,
    cases: 0,
  });
  return {
    ...summary,
    results: [
      ...summary.results,
      {
        rule: rule('6.4-R3', '6.4', 'documented'),
        status: 'harness',
        tests: [clock],
        harness: ['clock'],
      },
    ],
    counts: { ...summary.counts, harness: summary.counts.harness + 1 },
    skipped: [
      ...summary.skipped,
      {
        file: clock.file,
        name: clock.name,
        rules: clock.rules,
        reason: CLOCK_REASON,
        harness: ['clock'],
      },
    ],
  };
}

/** A certify run against an API world that passed: two rules passed, one left to the harness. */
export function certifiedSummary(): Summary {
  const passed = sampleSummary().results.slice(0, 2);
  return withHarnessRule(
    sampleSummary({
      results: passed,
      counts: { pass: 2, fail: 0, warn: 0, skip: 0, harness: 0, unchecked: 0 },
      coverage: { checked: 3, total: 3, documented: [3, 3], decided: [0, 0], untestable: 0 },
      problems: [],
      skipped: [],
      warnings: [],
      exitCode: 0,
    }),
  );
}

import type { Rule } from './rules.ts';

/** The outcome of one vitest test as the report needs it. */
export interface TestOutcome {
  name: string;
  file: string;
  rules: string[];
  state: 'passed' | 'failed' | 'skipped';
  /** Why it was skipped (the missing need), when it was. */
  skipReason?: string;
  /** Failure messages, each naming the rule, the exchange and the replay command. */
  errors: string[];
}

/** pass / fail; warn = a decided rule failed on a live target (a deployment may choose otherwise). */
export type RuleStatus = 'pass' | 'fail' | 'warn' | 'skip' | 'unchecked';

export interface RuleResult {
  rule: Rule;
  status: RuleStatus;
  tests: TestOutcome[];
}

export interface Summary {
  results: RuleResult[];
  counts: Record<RuleStatus, number>;
  coverage: {
    checked: number;
    total: number;
    documented: [number, number];
    decided: [number, number];
  };
  /** Failures not tied to a rule: a check file that did not load, a test with no rule. */
  problems: string[];
  exitCode: 0 | 1;
}

export interface SummaryOptions {
  /** On a live target, decided rules only warn unless strict. */
  live: boolean;
  strict: boolean;
}

/** Folds test outcomes into one result per rule, with coverage and the run's exit code. */
export function summarize(
  rules: Rule[],
  outcomes: TestOutcome[],
  problems: string[],
  options: SummaryOptions,
): Summary {
  const known = new Set(rules.map((r) => r.id));
  const allProblems = [...problems];
  for (const outcome of outcomes) {
    if (outcome.rules.length === 0)
      allProblems.push(`${outcome.file}: test "${outcome.name}" names no rule`);
    for (const id of outcome.rules) {
      if (!known.has(id))
        allProblems.push(`${outcome.file}: test "${outcome.name}" names unknown rule ${id}`);
    }
  }
  const results = rules.map((rule) => {
    const tests = outcomes.filter((o) => o.rules.includes(rule.id));
    return { rule, tests, status: ruleStatus(rule, tests, options) };
  });
  const counts: Record<RuleStatus, number> = { pass: 0, fail: 0, warn: 0, skip: 0, unchecked: 0 };
  for (const result of results) counts[result.status] += 1;
  const checked = (source?: Rule['source']) =>
    results.filter((r) => r.tests.length > 0 && (source === undefined || r.rule.source === source))
      .length;
  const total = (source: Rule['source']) => rules.filter((r) => r.source === source).length;
  return {
    results,
    counts,
    coverage: {
      checked: checked(),
      total: rules.length,
      documented: [checked('documented'), total('documented')],
      decided: [checked('decided'), total('decided')],
    },
    problems: allProblems,
    exitCode: counts.fail > 0 || allProblems.length > 0 ? 1 : 0,
  };
}

function ruleStatus(rule: Rule, tests: TestOutcome[], options: SummaryOptions): RuleStatus {
  if (tests.length === 0) return 'unchecked';
  if (tests.some((t) => t.state === 'failed')) {
    return rule.source === 'decided' && options.live && !options.strict ? 'warn' : 'fail';
  }
  if (tests.some((t) => t.state === 'passed')) return 'pass';
  return 'skip';
}

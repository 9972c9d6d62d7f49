import type { Need } from './config.ts';
import type { Rule } from './rules.ts';

/** The outcome of one vitest test as the report needs it. */
export interface TestOutcome {
  name: string;
  file: string;
  rules: string[];
  /** The behaviour the check verifies (its name without the rule ids). */
  behaviour?: string;
  /** What it declared it needs. */
  needs?: Need[];
  state: 'passed' | 'failed' | 'skipped';
  /** Why it was skipped (the missing need), when it was. */
  skipReason?: string;
  /** Failure messages, each naming the rule, the exchange and the replay command. */
  errors: string[];
  /** HTTP requests it sent, and fast-check cases it ran (figures, never asserted). */
  requests?: number;
  cases?: number;
  durationMs?: number;
}

/** A check that did not run, and why. */
export interface SkippedCheck {
  file: string;
  name: string;
  rules: string[];
  reason: string;
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
    /** Rules marked untestable, counted apart. */
    untestable: number;
  };
  /** Failures not tied to a rule: a check file that did not load, a test with no rule. */
  problems: string[];
  /** Every skipped check with its reason, in the order they were reported. */
  skipped: SkippedCheck[];
  /**
   * Why the run fails although no rule failed: under `--profile certify`, each skipped check
   * and each warning. Empty otherwise.
   */
  refusals: string[];
  /**
   * Why the run checked nothing, when it did not: no check ran (none selected, all skipped) or
   * the checks that ran sent no request. Such a run is never conformant; absent otherwise.
   */
  nothingChecked?: string;
  exitCode: 0 | 1;
}

/** The skip reason of a check `--filter` did not select. */
export const NOT_SELECTED_BY_FILTER = 'not selected by --filter';

export interface SummaryOptions {
  /** On a live target, decided rules only warn unless strict. */
  live: boolean;
  strict: boolean;
  /** `--profile certify`: a skipped check or a warning fails the run. */
  noSkips?: boolean;
  /**
   * Every rule must have a check or be marked `untestable` with a reason (a whole run only:
   * a shard or a filtered run sees some checks).
   */
  requireCoverage?: boolean;
  /** The `--filter` text, to say so when it selected no check. */
  filter?: string;
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
  for (const result of results) {
    if (result.tests.length > 0 && result.rule.untestable !== undefined) {
      allProblems.push(
        `rule ${result.rule.id} is marked untestable but has a check: drop the mark`,
      );
    }
    if (
      options.requireCoverage &&
      result.tests.length === 0 &&
      result.rule.untestable === undefined
    ) {
      allProblems.push(
        `rule ${result.rule.id} has no check and is not marked untestable (conformance/rules.yaml)`,
      );
    }
  }
  const counts: Record<RuleStatus, number> = { pass: 0, fail: 0, warn: 0, skip: 0, unchecked: 0 };
  for (const result of results) counts[result.status] += 1;
  const skipped = outcomes
    .filter((o) => o.state === 'skipped')
    .map((o) => ({
      file: o.file,
      name: o.name,
      rules: o.rules,
      reason: o.skipReason ?? 'skipped',
    }));
  const refusals = options.noSkips
    ? [
        ...skipped.map((s) => `skipped ${s.file} "${s.name}": ${s.reason}`),
        ...results
          .filter((r) => r.status === 'warn')
          .map((r) => `warning on ${r.rule.id}: a decided rule failed`),
      ]
    : [];
  const checked = (source?: Rule['source']) =>
    results.filter((r) => r.tests.length > 0 && (source === undefined || r.rule.source === source))
      .length;
  const total = (source: Rule['source']) => rules.filter((r) => r.source === source).length;
  const nothingChecked = whyNothingChecked(outcomes, options.filter);
  return {
    results,
    counts,
    coverage: {
      checked: checked(),
      total: rules.length,
      documented: [checked('documented'), total('documented')],
      decided: [checked('decided'), total('decided')],
      untestable: rules.filter((r) => r.untestable !== undefined).length,
    },
    problems: allProblems,
    skipped,
    refusals,
    ...(nothingChecked === undefined ? {} : { nothingChecked }),
    exitCode:
      counts.fail > 0 ||
      allProblems.length > 0 ||
      refusals.length > 0 ||
      nothingChecked !== undefined
        ? 1
        : 0,
  };
}

/**
 * Why a run checked nothing: no check was selected, every selected check was skipped, or the
 * checks that ran sent no request (counted only where the outcome says how many it sent).
 */
function whyNothingChecked(outcomes: TestOutcome[], filter?: string): string | undefined {
  const selected = outcomes.filter(
    (o) => filter === undefined || o.skipReason !== NOT_SELECTED_BY_FILTER,
  );
  if (selected.length === 0) {
    return filter === undefined
      ? 'no check was found'
      : `--filter ${JSON.stringify(filter)} selected no check`;
  }
  const ran = selected.filter((o) => o.state !== 'skipped');
  if (ran.length === 0) {
    const reasons = [...new Set(selected.map((o) => o.skipReason ?? 'skipped'))];
    const shown = reasons.slice(0, 2).join('; ') + (reasons.length > 2 ? '; …' : '');
    return `every one of the ${selected.length} check(s)${filter === undefined ? '' : ` --filter ${JSON.stringify(filter)} selected`} was skipped (${shown})`;
  }
  const counted = ran.filter((o) => o.requests !== undefined);
  if (counted.length === ran.length && counted.every((o) => o.requests === 0)) {
    return `the ${ran.length} check(s) that ran sent no request to the target`;
  }
  return undefined;
}

function ruleStatus(rule: Rule, tests: TestOutcome[], options: SummaryOptions): RuleStatus {
  if (tests.length === 0) return 'unchecked';
  if (tests.some((t) => t.state === 'failed')) {
    return rule.source === 'decided' && options.live && !options.strict ? 'warn' : 'fail';
  }
  if (tests.some((t) => t.state === 'passed')) return 'pass';
  return 'skip';
}

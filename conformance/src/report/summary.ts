import type { StoredUpload } from '../client/policy.ts';
import { NEEDS, type Need } from '../run/config.ts';
import { harnessOnlySkip } from '../run/profiles.ts';
import type { Rule } from '../contract/rules.ts';

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
  /**
   * A failed check: the rules its failure was charged to by the failing assertion
   * (`expectAt`/`chargeTo`, charge.ts), as the failure named them. Absent when the failure
   * named no rule (a crash, a network failure, an assertion not yet converted): it is then
   * charged to every rule of the check. See {@link chargeOf}.
   */
  chargedRules?: string[];
  /**
   * A failed check that ran to its end, departing only from decided rules (check.ts): the
   * other rules it names were checked and held.
   */
  completed?: boolean;
  /** HTTP requests it sent, and fast-check cases it ran (figures, never asserted). */
  requests?: number;
  cases?: number;
  durationMs?: number;
  /** Of `durationMs`, the time spent waiting on the target's pace: mail, webhooks, the rate limit. */
  waitedMs?: number;
  /** Files it stored on a live target, which no endpoint deletes (§4.9). */
  uploads?: StoredUpload[];
}

/** A check that did not run, and why. */
export interface SkippedCheck {
  file: string;
  name: string;
  rules: string[];
  reason: string;
  /**
   * Under certify, a check skipped only for needs no API can meet (config.ts `HARNESS_NEEDS`):
   * those needs. It does not fail the run; its rules are listed as needing the harness.
   */
  harness?: Need[];
}

/**
 * pass: a check of the rule passed and none failed on it; fail: a failure was charged to it;
 * warn: a failure was charged to a decided rule and the run is not strict (a deployment may
 * have chosen otherwise); skip: no check of it ran to the end (skipped, or failed on another
 * rule before reaching it); harness: under certify, every check of it was skipped only for
 * needs that only a control plane, the test harness, can meet (a clock, faults, crafted mail:
 * config.ts `HARNESS_NEEDS`), so no deployment could show it through its API; unchecked: no
 * check names it.
 */
export type RuleStatus = 'pass' | 'fail' | 'warn' | 'skip' | 'harness' | 'unchecked';

export const RULE_STATUSES: readonly RuleStatus[] = [
  'pass',
  'fail',
  'warn',
  'skip',
  'harness',
  'unchecked',
];

export interface RuleResult {
  rule: Rule;
  status: RuleStatus;
  /** Every check naming the rule, whatever became of it. */
  tests: TestOutcome[];
  /** Status `harness`: the needs only the harness meets that its checks lacked. */
  harness?: Need[];
}

/** The reason a rule or check is left to the harness: `needs the harness: clock, faults`. */
export function harnessReason(needs: readonly Need[]): string {
  return `needs the harness: ${needs.join(', ')}`;
}

/** How a failed check's failure is counted (one assertion, one rule). */
export interface Charge {
  /** The rules the failure counts against. */
  rules: string[];
  /**
   * `rule`: the failing assertion named a rule of the check, and only that rule is charged.
   * `uncharged`: it named none, so every rule of the check is charged (and listed apart).
   * `undeclared`: it named a rule the check does not declare: a problem with the suite, and
   * every rule of the check is charged so nothing is hidden.
   */
  kind: 'rule' | 'uncharged' | 'undeclared';
  /** The rules the failure named that the check does not declare (kind `undeclared`). */
  undeclared?: string[];
}

/** The charge of a failed check; undefined for a check that did not fail. */
export function chargeOf(outcome: TestOutcome): Charge | undefined {
  if (outcome.state !== 'failed') return undefined;
  const named = outcome.chargedRules ?? [];
  if (named.length === 0) return { rules: [...outcome.rules], kind: 'uncharged' };
  const undeclared = named.filter((id) => !outcome.rules.includes(id));
  if (undeclared.length > 0) return { rules: [...outcome.rules], kind: 'undeclared', undeclared };
  return { rules: [...new Set(named)], kind: 'rule' };
}

/** Whether `outcome` failed with a failure charged to `ruleId`. */
export function failedOn(outcome: TestOutcome, ruleId: string): boolean {
  return chargeOf(outcome)?.rules.includes(ruleId) ?? false;
}

/** A failed check whose failure named no rule: charged to all its rules, and listed. */
export interface UnchargedFailure {
  file: string;
  name: string;
  rules: string[];
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
   * Failed checks whose failure named no rule, so every rule they name was charged: a crash,
   * a network failure, or an assertion not yet written with `expectAt`/`chargeTo`.
   */
  uncharged: UnchargedFailure[];
  /**
   * Why the run fails although no rule failed: under `--profile certify`, each skipped check
   * (but one skipped only for needs of the harness: its rules are `harness`) and each rule no
   * check reached (its check failed on another rule first). Empty otherwise.
   */
  refusals: string[];
  /** Decided rules that warned (listed by every report, and under certify by its verdict). */
  warnings: string[];
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
  /**
   * A failure charged to a decided rule (spec/DECISIONS.md) fails the run; otherwise it is a
   * warning, on the in-process emulator as on a live target.
   */
  strict: boolean;
  /**
   * `--profile certify`: a skipped check, or a rule left unverified because its check failed
   * on another rule first, fails the run, except a check skipped only for what needs the
   * harness (see `offers`). Warnings do not (unless `strict` makes them failures).
   */
  noSkips?: boolean;
  /**
   * Every rule must have a check or be marked `untestable` with a reason (a whole run only:
   * a shard or a filtered run sees some checks).
   */
  requireCoverage?: boolean;
  /** The `--filter` text, to say so when it selected no check. */
  filter?: string;
  /**
   * What the target offers (profiles.ts `offeredNeeds`). With `noSkips`, a check skipped only
   * for needs no API can meet (config.ts `HARNESS_NEEDS`: a clock, faults, crafted mail…) is
   * not refused, and a rule left unchecked only by such skips is `harness`, not `skip`: a
   * deployment certified through its API alone cannot be asked for what only a test harness
   * gives. Without it (or without `noSkips`) every skip counts as today.
   */
  offers?: ReadonlySet<Need>;
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
    const charge = chargeOf(outcome);
    if (charge?.kind === 'undeclared') {
      allProblems.push(
        `${outcome.file}: test "${outcome.name}" charged its failure to ${charge.undeclared!.join(', ')}, which it does not declare (it declares ${outcome.rules.join(', ')}); charged to all of these instead`,
      );
    }
  }
  const harnessOf = harnessSkips(outcomes, options);
  const results = rules.map((rule): RuleResult => {
    const tests = outcomes.filter((o) => o.rules.includes(rule.id));
    const status = ruleStatus(rule, tests, options);
    const harness = status === 'skip' ? harnessOnly(tests, harnessOf) : undefined;
    return harness === undefined
      ? { rule, tests, status }
      : { rule, tests, status: 'harness', harness };
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
  const counts = Object.fromEntries(RULE_STATUSES.map((s) => [s, 0])) as Record<RuleStatus, number>;
  for (const result of results) counts[result.status] += 1;
  const skipped = outcomes
    .filter((o) => o.state === 'skipped')
    .map((o): SkippedCheck => {
      const harness = harnessOf.get(o);
      return {
        file: o.file,
        name: o.name,
        rules: o.rules,
        reason: o.skipReason ?? 'skipped',
        ...(harness === undefined ? {} : { harness }),
      };
    });
  const uncharged = outcomes
    .filter((o) => chargeOf(o)?.kind === 'uncharged')
    .map((o) => ({ file: o.file, name: o.name, rules: [...o.rules] }));
  const refusals = options.noSkips
    ? [
        ...skipped
          .filter((s) => s.harness === undefined)
          .map((s) => `skipped ${s.file} "${s.name}": ${s.reason}`),
        ...results
          .filter((r) => r.status === 'skip')
          .flatMap((r) => notReachedReasons(r).map((reason) => `${r.rule.id} ${reason}`)),
      ]
    : [];
  const warnings = results
    .filter((r) => r.status === 'warn')
    .map((r) => `warning on ${r.rule.id}: a decided rule failed (--strict makes it a failure)`);
  const checked = (source?: Rule['source']) =>
    results.filter((r) => r.tests.length > 0 && (source === undefined || r.rule.source === source))
      .length;
  const total = (source: Rule['source']) => rules.filter((r) => r.source === source).length;
  // The run's own problems (a check file that did not load or run, an error vitest caught)
  // come before the catalogue's: when the suite itself failed, they are why nothing was
  // checked, not the filter or the target.
  const nothingChecked = whyNothingChecked(outcomes, options.filter, problems);
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
    uncharged,
    refusals,
    warnings,
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
 * The checks a certifying run skipped only for needs no API can meet, each with those needs
 * (profiles.ts `harnessOnlySkip`, which the dry run's prediction applies too). Empty unless
 * `noSkips` and `offers`.
 */
function harnessSkips(outcomes: TestOutcome[], options: SummaryOptions): Map<TestOutcome, Need[]> {
  const found = new Map<TestOutcome, Need[]>();
  const offers = options.offers;
  if (!options.noSkips || offers === undefined) return found;
  for (const outcome of outcomes) {
    if (outcome.state !== 'skipped') continue;
    const missing = harnessOnlySkip(outcome.needs ?? [], outcome.skipReason, offers);
    if (missing !== undefined) found.set(outcome, missing);
  }
  return found;
}

/**
 * The harness needs of a rule no check verified, when every one of its checks was skipped for
 * harness needs alone (a check that failed on another rule first leaves it `skip`), in the
 * order of config.ts `NEEDS`; undefined otherwise.
 */
function harnessOnly(
  tests: TestOutcome[],
  harnessOf: Map<TestOutcome, Need[]>,
): Need[] | undefined {
  if (tests.length === 0 || !tests.every((t) => harnessOf.has(t))) return undefined;
  const needs = new Set(tests.flatMap((t) => harnessOf.get(t)!));
  return NEEDS.filter((need) => needs.has(need));
}

/** A problem's first line: a module that did not load brings its whole compiler error. */
export function firstLine(text: string): string {
  return text.split('\n', 1)[0]!;
}

/**
 * Why a run checked nothing: no check was selected, every selected check was skipped, or the
 * checks that ran sent no request (counted only where the outcome says how many it sent). When
 * the run had problems of its own (`problems`: a check file that did not load or never ran, an
 * error vitest caught, the suite's files replaced under it), those are the reason, never the
 * filter or the target: the checks it never reached were not "not selected".
 */
function whyNothingChecked(
  outcomes: TestOutcome[],
  filter: string | undefined,
  problems: readonly string[],
): string | undefined {
  const reason = nothingCheckedFor(outcomes, filter);
  if (reason === undefined || problems.length === 0) return reason;
  const more = problems.length > 1 ? ` (and ${problems.length - 1} more problem(s))` : '';
  return `the suite itself failed: ${firstLine(problems[0]!)}${more}`;
}

function nothingCheckedFor(outcomes: TestOutcome[], filter?: string): string | undefined {
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

/**
 * One assertion, one rule. A rule fails (a decided one warns unless strict) when a failure was
 * charged to it; else it passes when a check naming it passed; else it is skipped: every check
 * naming it was skipped, or failed on another rule before reaching it (that check never ran
 * the assertions on this rule, so it verified nothing here); unchecked when no check names it.
 */
function ruleStatus(rule: Rule, tests: TestOutcome[], options: SummaryOptions): RuleStatus {
  if (tests.length === 0) return 'unchecked';
  if (tests.some((t) => failedOn(t, rule.id))) {
    return rule.source === 'decided' && !options.strict ? 'warn' : 'fail';
  }
  if (tests.some((t) => t.state === 'passed' || t.completed === true)) return 'pass';
  return 'skip';
}

/**
 * Why a check left a rule it names unverified: it failed on other rules first. One reason per
 * such check, e.g. `not reached: its check "refuses x" failed on D-22 first`.
 */
export function notReachedReasons(result: RuleResult): string[] {
  return result.tests.flatMap((test) => {
    const charge = chargeOf(test);
    if (charge === undefined || charge.rules.includes(result.rule.id) || test.completed === true)
      return [];
    return [
      `not reached: its check "${test.behaviour ?? test.name}" failed on ${charge.rules.join(', ')} first`,
    ];
  });
}

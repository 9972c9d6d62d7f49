import type { ProfileName } from './config.ts';
import type { Rule } from './rules.ts';
import type { RuleResult, RuleStatus, Summary, TestOutcome } from './summary.ts';

/** What every report says about the run beside the per-rule results. */
export interface RunFacts {
  /** The target as a person reads it: a base URL, or the in-process emulator. */
  target: string;
  targetKind?: 'emulator' | 'live';
  /** A live target's `{base_url}`. */
  baseUrl?: string;
  /** The version of mailtwin that ran the suite. */
  toolVersion?: string;
  seed: number;
  numRuns: number;
  durationMs: number;
  profile?: ProfileName;
  /** Failed decided rules fail the run. */
  strict?: boolean;
  /** `--shard i/n`: only this share of the check files ran. */
  shard?: string;
  /** HTTP requests sent and fast-check cases run, over all workers (figures, not asserted). */
  requests?: number;
  cases?: number;
  /** When the run started (ISO 8601). */
  startedAt?: string;
}

/** The run's figures, summed over the tests every worker reported. */
export function figuresOf(outcomes: readonly TestOutcome[]): { requests: number; cases: number } {
  let requests = 0;
  let cases = 0;
  for (const outcome of outcomes) {
    requests += outcome.requests ?? 0;
    cases += outcome.cases ?? 0;
  }
  return { requests, cases };
}

export const STATUS_LABEL: Record<RuleStatus, string> = {
  pass: 'PASS',
  fail: 'FAIL',
  warn: 'WARN',
  skip: 'SKIP',
  unchecked: '----',
};

export const DECIDED_GROUP = 'Decided (spec/DECISIONS.md)';

/** The heading a rule is reported under: its section, or one group for decided rules. */
export function groupOf(rule: Rule): string {
  return rule.source === 'decided' ? DECIDED_GROUP : `§${rule.section}`;
}

/** Results grouped by heading, in the order the rules come. */
export function groupResults(results: readonly RuleResult[]): [string, RuleResult[]][] {
  const groups = new Map<string, RuleResult[]>();
  for (const result of results) {
    const group = groupOf(result.rule);
    const list = groups.get(group) ?? [];
    list.push(result);
    groups.set(group, list);
  }
  return [...groups];
}

/** Why a rule was skipped: the distinct reasons of its tests. */
export function skipReasons(result: RuleResult): string[] {
  return [...new Set(result.tests.map((t) => t.skipReason ?? 'skipped'))];
}

/** What this run checked, against the whole catalogue (conformance/rules.yaml). */
export interface RunCoverage {
  /** Rules a check ran for in this run: passed, failed or warned. */
  checked: number;
  passed: number;
  failed: number;
  warned: number;
  /** Rules whose every check was skipped in this run. */
  skipped: number;
  /** Rules no check of the suite verifies. */
  unchecked: number;
  /** The catalogue's size. */
  total: number;
  documented: [checked: number, total: number];
  decided: [checked: number, total: number];
}

/**
 * Counts the rules this run checked, not the rules the suite has a check for: a run that
 * skipped most checks must not look covered.
 */
export function runCoverage(summary: Summary): RunCoverage {
  const { counts, results } = summary;
  const ran = (r: RuleResult) => r.status === 'pass' || r.status === 'fail' || r.status === 'warn';
  const of = (source: Rule['source']): [number, number] => {
    const rules = results.filter((r) => r.rule.source === source);
    return [rules.filter(ran).length, rules.length];
  };
  return {
    checked: results.filter(ran).length,
    passed: counts.pass,
    failed: counts.fail,
    warned: counts.warn,
    skipped: counts.skip,
    unchecked: counts.unchecked,
    total: results.length,
    documented: of('documented'),
    decided: of('decided'),
  };
}

/**
 * The run in one sentence: "N of 156 rules checked in this run (M passed, F failed, W warned,
 * S skipped: reasons below)", and how many rules have no check at all.
 */
export function headline(summary: Summary): string {
  const c = runCoverage(summary);
  const skipped = `${c.skipped} skipped${c.skipped > 0 ? ': reasons below' : ''}`;
  const unchecked =
    c.unchecked > 0 ? `; ${c.unchecked} ${c.unchecked === 1 ? 'has' : 'have'} no check` : '';
  return `${c.checked} of ${c.total} rules checked in this run (${c.passed} passed, ${c.failed} failed, ${c.warned} warned, ${skipped})${unchecked}`;
}

/** Why checks were skipped: each reason with the checks and the skipped rules it accounts for. */
export interface SkipReasonCount {
  reason: string;
  checks: number;
  rules: number;
}

/** The run's skip reasons, the most frequent first. */
export function skipReasonCounts(summary: Summary): SkipReasonCount[] {
  const byReason = new Map<string, SkipReasonCount>();
  for (const skipped of summary.skipped) {
    const entry = byReason.get(skipped.reason) ?? { reason: skipped.reason, checks: 0, rules: 0 };
    entry.checks += 1;
    byReason.set(skipped.reason, entry);
  }
  for (const result of summary.results.filter((r) => r.status === 'skip')) {
    for (const reason of skipReasons(result)) {
      const entry = byReason.get(reason);
      if (entry !== undefined) entry.rules += 1;
    }
  }
  return [...byReason.values()].sort((a, b) => b.checks - a.checks || b.rules - a.rules);
}

/** A failure message without terminal colour codes, for files. */
export function plainText(text: string): string {
  return text.replace(/\u001b\[[0-9;]*[A-Za-z]/g, '');
}

/** `1234567` → `1,234,567`, the same on every machine. */
export function formatCount(n: number): string {
  return String(Math.round(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

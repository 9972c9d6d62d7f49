import type { ProfileName } from './config.ts';
import type { Rule } from './rules.ts';
import type { RuleResult, RuleStatus, TestOutcome } from './summary.ts';

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

/** A failure message without terminal colour codes, for files. */
export function plainText(text: string): string {
  return text.replace(/\u001b\[[0-9;]*[A-Za-z]/g, '');
}

/** `1234567` → `1,234,567`, the same on every machine. */
export function formatCount(n: number): string {
  return String(Math.round(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

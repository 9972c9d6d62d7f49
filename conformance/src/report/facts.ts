import { NEEDS, type Need, type ProfileName } from '../run/config.ts';
import type { StoredUpload } from '../client/policy.ts';
import type { Rule } from '../contract/rules.ts';
import {
  chargeOf,
  failedOn,
  harnessReason,
  notReachedReasons,
  type RuleResult,
  type RuleStatus,
  type Summary,
  type TestOutcome,
} from './summary.ts';

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
  /**
   * The checks' own time, summed over every check that ran (figures, not asserted): `activeMs`
   * working, `waitedMs` waiting on the target's pace (mail on its way, webhook deliveries, the
   * rate limit). Checks that run side by side make their sum more than the run's duration.
   */
  activeMs?: number;
  waitedMs?: number;
  /** Files the run stored on a live target and could not delete (§4.9 has no delete). */
  uploadsLeft?: UploadLeft[];
  /** When the run started (ISO 8601). */
  startedAt?: string;
  /** SHA-256 (hex) of spec/openapi.yaml and conformance/rules.yaml as this run read them. */
  specSha256?: string;
  rulesSha256?: string;
  /** The command that re-runs this run, every secret a placeholder (certificate.ts). */
  rerun?: string;
  /** The binding the run checked the target through (issue 26, binding/target-binding.ts). */
  binding?: BindingFacts;
}

/** A run's binding as reports record it: every entry with its value and where it came from. */
export interface BindingFacts {
  name: string;
  /** SHA-256 of the binding's canonical JSON (binding.ts `bindingHash`). */
  sha256: string;
  /** Which binding, from where, in a sentence. */
  note: string;
  /** The target's published document, when it was the run's decided layer. */
  publishedUrl: string | null;
  entries: { entry: string; value: unknown; source: string }[];
}

/** A file a check stored on the target, with the check that stored it. */
export interface UploadLeft extends StoredUpload {
  check: string;
}

/** The run's figures, summed over the tests every worker reported. */
export function figuresOf(outcomes: readonly TestOutcome[]): {
  requests: number;
  cases: number;
  activeMs: number;
  waitedMs: number;
  uploadsLeft: UploadLeft[];
} {
  let requests = 0;
  let cases = 0;
  let activeMs = 0;
  let waitedMs = 0;
  const uploadsLeft: UploadLeft[] = [];
  for (const outcome of outcomes) {
    requests += outcome.requests ?? 0;
    cases += outcome.cases ?? 0;
    waitedMs += outcome.waitedMs ?? 0;
    activeMs += Math.max(0, (outcome.durationMs ?? 0) - (outcome.waitedMs ?? 0));
    for (const upload of outcome.uploads ?? [])
      uploadsLeft.push({ ...upload, check: outcome.name });
  }
  return { requests, cases, activeMs, waitedMs, uploadsLeft };
}

export const STATUS_LABEL: Record<RuleStatus, string> = {
  pass: 'PASS',
  fail: 'FAIL',
  warn: 'WARN',
  skip: 'SKIP',
  harness: 'HARN',
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

/**
 * Why a rule was skipped: the distinct reasons of its skipped tests, and of each check that
 * failed on another rule before reaching it; for a rule left to the harness, one reason:
 * `needs the harness: clock, faults`.
 */
export function skipReasons(result: RuleResult): string[] {
  if (result.status === 'harness') return [harnessReason(result.harness ?? [])];
  return [
    ...new Set([
      ...result.tests.filter((t) => t.state === 'skipped').map((t) => t.skipReason ?? 'skipped'),
      ...notReachedReasons(result),
    ]),
  ];
}

/** The failed checks whose failure was charged to this rule (its FAIL or WARN). */
export function chargingTests(result: RuleResult): TestOutcome[] {
  return result.tests.filter((t) => failedOn(t, result.rule.id));
}

/**
 * Each failed check once, in the order of the rules, with the results of the rules its failure
 * was charged to (the FAIL and WARN lines it accounts for).
 */
export function failedChecks(
  summary: Summary,
): Map<TestOutcome, { test: TestOutcome; rules: RuleResult[] }> {
  const failed = new Map<TestOutcome, { test: TestOutcome; rules: RuleResult[] }>();
  for (const result of summary.results.filter((r) => r.status === 'fail' || r.status === 'warn')) {
    for (const test of chargingTests(result)) {
      const entry = failed.get(test) ?? { test, rules: [] };
      entry.rules.push(result);
      failed.set(test, entry);
    }
  }
  return failed;
}

/**
 * What a failed check's failure was charged to, in words: `charged to D-22`, `uncharged:
 * counted against every rule of the check (4.3-R1, D-22)`, or the undeclared rule it named.
 */
export function chargeText(test: TestOutcome): string {
  const charge = chargeOf(test);
  if (charge === undefined) return '';
  switch (charge.kind) {
    case 'rule':
      return `charged to ${charge.rules.join(', ')}`;
    case 'uncharged':
      return `uncharged (no assertion named its rule): counted against every rule of the check (${charge.rules.join(', ')})`;
    case 'undeclared':
      return `charged to ${charge.undeclared!.join(', ')}, which the check does not declare: counted against every rule of the check (${charge.rules.join(', ')})`;
  }
}

/** What this run checked, against the whole catalogue (conformance/rules.yaml). */
export interface RunCoverage {
  /** Rules a check ran for in this run: passed, failed or warned. */
  checked: number;
  passed: number;
  failed: number;
  warned: number;
  /** Rules whose every check was skipped in this run (those left to the harness apart). */
  skipped: number;
  /** Rules a certifying run left to the harness: only needs no API can meet were missing. */
  harness: number;
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
    harness: counts.harness,
    unchecked: counts.unchecked,
    total: results.length,
    documented: of('documented'),
    decided: of('decided'),
  };
}

/**
 * The run in one sentence: "N of 156 rules checked in this run (M passed, F failed, W warned,
 * S skipped: reasons below)", with "H need the harness" when a certifying run left rules to it,
 * and how many rules have no check at all.
 */
export function headline(summary: Summary): string {
  const c = runCoverage(summary);
  const left = c.skipped + c.harness;
  const skipped = `${c.skipped} skipped${c.harness > 0 ? `, ${c.harness} need the harness` : ''}${left > 0 ? ': reasons below' : ''}`;
  const unchecked =
    c.unchecked > 0 ? `; ${c.unchecked} ${c.unchecked === 1 ? 'has' : 'have'} no check` : '';
  return `${c.checked} of ${c.total} rules checked in this run (${c.passed} passed, ${c.failed} failed, ${c.warned} warned, ${skipped})${unchecked}`;
}

/** Why checks were skipped: each reason with the checks and the skipped rules it accounts for. */
export interface SkipReasonCount {
  reason: string;
  checks: number;
  rules: number;
  /** Its checks were skipped only for needs of the harness (certify does not refuse them). */
  harness?: boolean;
}

/** The needs of the harness the rules left to it lacked, in the order of config.ts `NEEDS`. */
export function harnessNeedsOf(summary: Summary): Need[] {
  const needs = new Set(summary.results.flatMap((r) => r.harness ?? []));
  return NEEDS.filter((need) => needs.has(need));
}

/** The run's skip reasons, the most frequent first. */
export function skipReasonCounts(summary: Summary): SkipReasonCount[] {
  const byReason = new Map<string, SkipReasonCount>();
  for (const skipped of summary.skipped) {
    const entry = byReason.get(skipped.reason) ?? {
      reason: skipped.reason,
      checks: 0,
      rules: 0,
      ...(skipped.harness === undefined ? {} : { harness: true }),
    };
    entry.checks += 1;
    byReason.set(skipped.reason, entry);
  }
  for (const result of summary.results.filter(
    (r) => r.status === 'skip' || r.status === 'harness',
  )) {
    const fromSkips = new Set(
      result.tests.filter((t) => t.state === 'skipped').map((t) => t.skipReason ?? 'skipped'),
    );
    for (const reason of fromSkips) {
      const entry = byReason.get(reason);
      if (entry !== undefined) entry.rules += 1;
    }
    // A check that failed on another rule first: one reason per such check.
    for (const reason of notReachedReasons(result)) {
      const entry = byReason.get(reason) ?? { reason, checks: 1, rules: 0 };
      entry.rules += 1;
      byReason.set(reason, entry);
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

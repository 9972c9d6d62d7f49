import type { Need, ProfileName } from '../run/config.ts';
import {
  chargingTests,
  headline,
  plainText,
  runCoverage,
  skipReasons,
  type BindingFacts,
  type RunFacts,
  type UploadLeft,
} from './facts.ts';
import type { RuleSource } from '../contract/rules.ts';
import {
  chargeOf,
  type Charge,
  type RuleStatus,
  type Summary,
  type TestOutcome,
  type UnchargedFailure,
} from './summary.ts';

/**
 * `report.json`: the whole run for programs, in the shape conformance/report.schema.json
 * describes (and a unit test checks the produced file against). Rules point into `checks` by
 * index, so a check that verifies several rules is written once.
 */
export interface JsonReport {
  format: 'mailtwin-conformance-report';
  /**
   * 2: `needs` name the capabilities of a world (config.ts), not `control-plane`; a certifying
   * run's rule left to the harness has status `harness` and its `harnessNeeds`.
   */
  formatVersion: 2;
  tool: { name: 'mailtwin-conformance'; version: string | null };
  run: {
    target: string;
    targetKind: 'emulator' | 'live' | null;
    baseUrl: string | null;
    profile: ProfileName;
    seed: number;
    numRuns: number;
    strict: boolean;
    shard: string | null;
    startedAt: string | null;
    durationMs: number;
    /** The binding the target was checked through; null when the run recorded none. */
    binding: BindingFacts | null;
  };
  figures: {
    requests: number | null;
    generatedCases: number | null;
    /** Files stored on a live target that no endpoint deletes (§4.9); null in process. */
    uploadsLeft: UploadLeft[] | null;
    durationMs: number;
    checks: { total: number; passed: number; failed: number; skipped: number };
  };
  result: {
    exitCode: 0 | 1;
    conformant: boolean;
    /** "N of 156 rules checked in this run (…)", as the console prints it. */
    headline: string;
    refusals: string[];
  };
  counts: Record<RuleStatus, number>;
  bySource: Record<RuleSource, Record<RuleStatus, number>>;
  coverage: {
    checked: number;
    total: number;
    documented: { checked: number; total: number };
    decided: { checked: number; total: number };
    /** Rules checked in this run (passed, failed or warned), not rules that have a check. */
    thisRun: {
      checked: number;
      skipped: number;
      /** Rules a certifying run left to the harness (status `harness`). */
      harness: number;
      unchecked: number;
      total: number;
      documented: { checked: number; total: number };
      decided: { checked: number; total: number };
    };
  };
  rules: JsonRule[];
  checks: JsonCheck[];
  /** Decided rules that warned, each with the failures charged to it. */
  warnings: { rule: string; sentence: string; errors: string[] }[];
  /** `harnessNeeds`: under certify, the needs of the harness it lacked, when only those. */
  skipped: { file: string; name: string; rules: string[]; reason: string; harnessNeeds: Need[] }[];
  /** Failed checks whose failure named no rule: each charged to every rule it names. */
  uncharged: UnchargedFailure[];
  problems: string[];
}

export interface JsonRule {
  id: string;
  section: string;
  source: RuleSource;
  sentence: string;
  status: RuleStatus;
  /** Indexes into `checks`. */
  checks: number[];
  skipReasons: string[];
  /** Status `harness`: the needs only a control plane meets that its checks lacked; else []. */
  harnessNeeds: Need[];
  /** Requests its checks sent, summed (a check of two rules counts for both). */
  requests: number;
  /** The seed that replays it (`--seed`). */
  seed: number;
  /** Time its checks took, summed. */
  durationMs: number;
}

export interface JsonCheck {
  file: string;
  name: string;
  behaviour: string | null;
  rules: string[];
  needs: Need[];
  state: TestOutcome['state'];
  skipReason: string | null;
  errors: string[];
  /** How a failure was charged (summary.ts `Charge`); null unless failed. */
  charge: Charge['kind'] | null;
  /** The rules a failure counts against; null unless failed. */
  chargedTo: string[] | null;
  /** Rules of a failed check its failure was not charged to: not verified by it. */
  notReached: string[];
  requests: number;
  cases: number;
  durationMs: number;
}

const ZERO = (): Record<RuleStatus, number> => ({
  pass: 0,
  fail: 0,
  warn: 0,
  skip: 0,
  harness: 0,
  unchecked: 0,
});

export function buildJsonReport(summary: Summary, facts: RunFacts): JsonReport {
  const checks: JsonCheck[] = [];
  const indexOf = new Map<TestOutcome, number>();
  const bySource = { documented: ZERO(), decided: ZERO() };
  const rules = summary.results.map((result): JsonRule => {
    bySource[result.rule.source][result.status] += 1;
    return {
      id: result.rule.id,
      section: result.rule.section,
      source: result.rule.source,
      sentence: result.rule.sentence,
      status: result.status,
      checks: result.tests.map((test) => {
        let index = indexOf.get(test);
        if (index === undefined) {
          index = checks.push(jsonCheck(test)) - 1;
          indexOf.set(test, index);
        }
        return index;
      }),
      skipReasons:
        result.status === 'skip' || result.status === 'harness' ? skipReasons(result) : [],
      harnessNeeds: [...(result.harness ?? [])],
      requests: result.tests.reduce((sum, t) => sum + (t.requests ?? 0), 0),
      seed: facts.seed,
      durationMs: Math.round(result.tests.reduce((sum, t) => sum + (t.durationMs ?? 0), 0)),
    };
  });
  const run = runCoverage(summary);
  const state = (s: TestOutcome['state']) => checks.filter((c) => c.state === s).length;
  const { coverage } = summary;
  return {
    format: 'mailtwin-conformance-report',
    formatVersion: 2,
    tool: { name: 'mailtwin-conformance', version: facts.toolVersion ?? null },
    run: {
      target: facts.target,
      targetKind: facts.targetKind ?? null,
      baseUrl: facts.baseUrl ?? null,
      profile: facts.profile ?? 'full',
      seed: facts.seed,
      numRuns: facts.numRuns,
      strict: facts.strict ?? false,
      shard: facts.shard ?? null,
      startedAt: facts.startedAt ?? null,
      durationMs: Math.round(facts.durationMs),
      binding: facts.binding ?? null,
    },
    figures: {
      requests: facts.requests ?? null,
      generatedCases: facts.cases ?? null,
      uploadsLeft: facts.targetKind === 'live' ? (facts.uploadsLeft ?? []) : null,
      durationMs: Math.round(facts.durationMs),
      checks: {
        total: checks.length,
        passed: state('passed'),
        failed: state('failed'),
        skipped: state('skipped'),
      },
    },
    result: {
      exitCode: summary.exitCode,
      conformant: summary.exitCode === 0,
      headline: headline(summary),
      refusals: summary.refusals,
    },
    counts: summary.counts,
    bySource,
    coverage: {
      checked: coverage.checked,
      total: coverage.total,
      documented: { checked: coverage.documented[0], total: coverage.documented[1] },
      decided: { checked: coverage.decided[0], total: coverage.decided[1] },
      thisRun: {
        checked: run.checked,
        skipped: run.skipped,
        harness: run.harness,
        unchecked: run.unchecked,
        total: run.total,
        documented: { checked: run.documented[0], total: run.documented[1] },
        decided: { checked: run.decided[0], total: run.decided[1] },
      },
    },
    rules,
    checks,
    warnings: summary.results
      .filter((r) => r.status === 'warn')
      .map((r) => ({
        rule: r.rule.id,
        sentence: r.rule.sentence,
        errors: chargingTests(r).flatMap((t) => t.errors.map(plainText)),
      })),
    skipped: summary.skipped.map(({ harness, ...s }) => ({
      ...s,
      rules: [...s.rules],
      harnessNeeds: [...(harness ?? [])],
    })),
    uncharged: summary.uncharged.map((u) => ({ ...u, rules: [...u.rules] })),
    problems: summary.problems,
  };
}

function jsonCheck(test: TestOutcome): JsonCheck {
  const charge = chargeOf(test);
  return {
    file: test.file,
    name: test.name,
    behaviour: test.behaviour ?? null,
    rules: test.rules,
    needs: test.needs ?? [],
    state: test.state,
    skipReason: test.state === 'skipped' ? (test.skipReason ?? 'skipped') : null,
    errors: test.errors.map(plainText),
    charge: charge?.kind ?? null,
    chargedTo: charge?.rules ?? null,
    notReached: charge === undefined ? [] : test.rules.filter((id) => !charge.rules.includes(id)),
    requests: test.requests ?? 0,
    cases: test.cases ?? 0,
    durationMs: Math.round(test.durationMs ?? 0),
  };
}

export function formatJsonReport(summary: Summary, facts: RunFacts): string {
  return `${JSON.stringify(buildJsonReport(summary, facts), null, 2)}\n`;
}

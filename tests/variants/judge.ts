/**
 * What `npm run variants` asserts of one suite run against a conformant variant, read from the
 * run's exit status and its report.json (conformance/report.schema.json): a variant obeys every
 * sentence of the service document, so the suite may only warn, and only on decided rules.
 */
import type { JsonReport } from '../../conformance/src/report/json.ts';

/** A rule that failed, with the checks that failed on it and the first line of their errors. */
export interface RuleFailure {
  rule: string;
  source: 'documented' | 'decided';
  checks: string[];
}

export interface RunVerdict {
  /** Decided rules that warned, in rules.yaml order. */
  warned: string[];
  /** Documented rules that failed: the suite is unfair there, or the variant is not allowed. */
  documentedFailures: RuleFailure[];
  /** Decided rules that failed (only expected under --strict). */
  decidedFailures: RuleFailure[];
  /** Everything that breaks the expectation for this run, as sentences; empty when it holds. */
  problems: string[];
  /** Set when the target could not check the departed rule at all: the skip's reasons. */
  unseen?: string;
}

/** The checks that failed on `ruleId`, each as `behaviour: first telling line`. */
function failingChecks(report: JsonReport, ruleId: string): string[] {
  const rule = report.rules.find((r) => r.id === ruleId);
  return (rule?.checks ?? [])
    .map((index) => report.checks[index])
    .filter((check) => check !== undefined && check.state === 'failed')
    .map((check) => `${check!.behaviour ?? check!.name}: ${firstLine(check!.errors)}`);
}

/**
 * The line of a failure that says what went wrong: past its headings ("Rule broken while…",
 * the rule it is charged to, and their sentences), with the line that follows a colon.
 */
export function firstLine(errors: readonly string[]): string {
  const lines = (errors[0] ?? '').split('\n');
  const heading = (line: string) =>
    line.trim() === '' ||
    /^(Rule broken|Uncharged|Charged|Counted)\b/.test(line) ||
    /^\s+(?:\d+(?:\.\d+)?-R\d+|D-\d+) \(/.test(line);
  const end = lines.findIndex((line) => /^\s*Last \d+ HTTP exchange/.test(line));
  const body = end === -1 ? lines : lines.slice(0, end);
  const candidates = body.map((line, i) => [line, i] as const).filter(([line]) => !heading(line));
  const preferred = candidates.find(([line]) =>
    /expected |does not match|[A-Za-z]*Error\b|got /.test(line),
  );
  const index = (preferred ?? candidates[0])?.[1];
  if (index === undefined) return '';
  let telling = lines[index]!.trim();
  const next = lines[index + 1]?.trim();
  if (telling.endsWith(':') && next !== undefined && next !== '') telling += ` ${next}`;
  return telling.slice(0, 240);
}

/**
 * Judges one run. Not strict: exit 0, no failed rule of either source, every warning on a
 * decided rule, no problem of the suite itself. Strict: exit 1, and every failed rule decided.
 */
export function judgeRun(
  report: JsonReport | undefined,
  exitCode: number | null,
  strict: boolean,
  output = '',
): RunVerdict {
  if (report === undefined) {
    return {
      warned: [],
      documentedFailures: [],
      decidedFailures: [],
      problems: [
        `no report.json (exit ${exitCode}): ${output.trim().split('\n').slice(-3).join(' | ')}`,
      ],
    };
  }
  const failures = (source: 'documented' | 'decided') =>
    report.rules
      .filter((r) => r.source === source && r.status === 'fail')
      .map((r) => ({ rule: r.id, source, checks: failingChecks(report, r.id) }));
  const warned = report.rules.filter((r) => r.status === 'warn').map((r) => r.id);
  const verdict: RunVerdict = {
    warned: warned.filter((id) => id.startsWith('D-')),
    documentedFailures: failures('documented'),
    decidedFailures: failures('decided'),
    problems: [],
  };
  const problems = verdict.problems;
  const warnedDocumented = report.rules.filter(
    (r) => r.status === 'warn' && r.source !== 'decided',
  );
  if (warnedDocumented.length > 0)
    problems.push(
      `documented rules warned instead of failing: ${warnedDocumented.map((r) => r.id).join(', ')}`,
    );
  const listedWarnings = report.warnings.map((w) => w.rule).filter((id) => !id.startsWith('D-'));
  if (listedWarnings.length > 0)
    problems.push(`warnings on rules that are not decided: ${listedWarnings.join(', ')}`);
  for (const failure of verdict.documentedFailures) {
    problems.push(
      `documented rule ${failure.rule} failed: ${failure.checks.join(' / ') || 'no failing check named'}`,
    );
  }
  if (report.problems.length > 0)
    problems.push(`the suite had problems: ${report.problems.join('; ')}`);
  if (strict) {
    if (exitCode !== 1) problems.push(`--strict exited ${exitCode}, not 1: no decided rule failed`);
    if (verdict.decidedFailures.length === 0 && exitCode === 1)
      problems.push('--strict exited 1 without a failed decided rule');
  } else {
    if (exitCode !== 0) problems.push(`exited ${exitCode}, not 0`);
    for (const failure of verdict.decidedFailures) {
      problems.push(
        `decided rule ${failure.rule} failed instead of warning: ${failure.checks.join(' / ')}`,
      );
    }
  }
  return verdict;
}

/**
 * The check to repeat under --strict: one that warned, preferring one on `departsFrom`, named
 * by its behaviour for --filter; undefined when no decided rule warned.
 */
export function strictFilter(
  report: JsonReport | undefined,
  departsFrom: string,
): string | undefined {
  if (report === undefined) return undefined;
  const warned = report.rules.filter((r) => r.status === 'warn');
  const order = [
    ...warned.filter((r) => r.id === departsFrom),
    ...warned.filter((r) => r.id !== departsFrom),
  ];
  for (const rule of order) {
    const checks = rule.checks.map((index) => report.checks[index]).filter((c) => c !== undefined);
    const check = checks.find((c) => c.errors.length > 0) ?? checks[0];
    if (check !== undefined) return check.behaviour ?? check.name;
  }
  return undefined;
}

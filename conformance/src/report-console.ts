import type { RuleResult, RuleStatus, Summary, TestOutcome } from './summary.ts';

const LABEL: Record<RuleStatus, string> = {
  pass: 'PASS',
  fail: 'FAIL',
  warn: 'WARN',
  skip: 'SKIP',
  unchecked: '----',
};

export interface RunFacts {
  target: string;
  seed: number;
  numRuns: number;
  durationMs: number;
}

/** The console report: one line per rule by section, failures in full, then coverage. */
export function formatConsoleReport(summary: Summary, facts: RunFacts): string {
  const lines: string[] = [
    `mailtwin conformance against ${facts.target} (seed ${facts.seed}, ${facts.numRuns} runs per property)`,
    '',
  ];
  let heading = '';
  for (const result of summary.results) {
    const group =
      result.rule.source === 'decided' ? 'Decided (spec/DECISIONS.md)' : `§${result.rule.section}`;
    if (group !== heading) {
      heading = group;
      lines.push(heading);
    }
    lines.push(
      `  ${LABEL[result.status]} ${result.rule.id.padEnd(8)} ${shorten(result.rule.sentence, 88)}${detail(result)}`,
    );
  }
  // Each failed check once, however many rules it verifies.
  const failedTests = new Map<string, { test: TestOutcome; rules: RuleResult[] }>();
  for (const result of summary.results.filter((r) => r.status === 'fail' || r.status === 'warn')) {
    for (const test of result.tests.filter((t) => t.state === 'failed')) {
      const key = `${test.file}\u0000${test.name}`;
      const entry = failedTests.get(key) ?? { test, rules: [] };
      entry.rules.push(result);
      failedTests.set(key, entry);
    }
  }
  if (failedTests.size > 0) {
    lines.push(
      '',
      'Failures (WARN: a decided rule; a deployment may have chosen otherwise, see spec/DECISIONS.md)',
    );
    for (const { test, rules } of failedTests.values()) {
      const labels = rules.map((r) => `${LABEL[r.status]} ${r.rule.id}`).join(', ');
      lines.push('', `${labels} in ${test.file}`, ...test.errors.map(indent));
    }
  }
  if (summary.problems.length > 0)
    lines.push('', 'Problems with the suite itself:', ...summary.problems.map((p) => `  ${p}`));
  const { counts, coverage } = summary;
  lines.push(
    '',
    `Rules: ${counts.pass} passed, ${counts.fail} failed, ${counts.warn} warnings, ${counts.skip} skipped, ${counts.unchecked} without a check`,
    `Coverage: ${coverage.checked}/${coverage.total} rules have a check (documented ${coverage.documented[0]}/${coverage.documented[1]}, decided ${coverage.decided[0]}/${coverage.decided[1]})`,
    `Time: ${(facts.durationMs / 1000).toFixed(1)} s`,
    summary.exitCode === 0 ? 'Result: conformant for every checked rule' : 'Result: NOT conformant',
    '',
  );
  return lines.join('\n');
}

function detail(result: RuleResult): string {
  if (result.status === 'skip') {
    const reasons = [...new Set(result.tests.map((t) => t.skipReason ?? 'skipped'))];
    return `  [skipped: ${reasons.join('; ')}]`;
  }
  if (result.tests.length === 0) return '';
  return `  (${result.tests.length} check${result.tests.length === 1 ? '' : 's'})`;
}

function shorten(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((line) => `    ${line}`)
    .join('\n');
}

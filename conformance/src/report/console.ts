import {
  STATUS_LABEL as LABEL,
  chargeText,
  failedChecks,
  formatCount,
  groupOf,
  harnessNeedsOf,
  headline,
  plainText,
  runCoverage,
  skipReasonCounts,
  skipReasons,
  type RunCoverage,
  type RunFacts,
} from './facts.ts';
import { printable } from '../client/printable.ts';
import { firstLine, type RuleResult, type Summary, type TestOutcome } from './summary.ts';

export type { RunFacts } from './facts.ts';

/**
 * The console report: one line per rule this run decided (passed, failed, warned, or with no
 * check) by section, failures in full, the rules no check reached grouped by reason (a reason
 * once, not once per rule: a read-only run skips most of the catalogue for one reason), then
 * coverage, figures and the verdict, last. Control characters are escaped (printable.ts).
 */
export function formatConsoleReport(summary: Summary, facts: RunFacts): string {
  const lines: string[] = [`mailtwin conformance against ${facts.target} (${runLine(facts)})`, ''];
  let heading = '';
  for (const result of summary.results) {
    if (result.status === 'skip' || result.status === 'harness') continue; // grouped below
    const group = groupOf(result.rule);
    if (group !== heading) {
      heading = group;
      lines.push(heading);
    }
    lines.push(
      `  ${LABEL[result.status]} ${result.rule.id.padEnd(8)} ${shorten(result.rule.sentence, 88)}${detail(result)}`,
    );
  }
  // Each failed check once, labelled with the rules its failure was charged to.
  const failedTests = failedChecks(summary);
  if (failedTests.size > 0) {
    lines.push(
      '',
      'Failures, each charged to the rule its failing assertion checks (WARN: a decided rule; a deployment may have chosen otherwise, see spec/DECISIONS.md)',
    );
    for (const { test, rules } of failedTests.values()) {
      const labels = rules.map((r) => `${LABEL[r.status]} ${r.rule.id}`).join(', ');
      const notReached = test.rules.filter((id) => !rules.some((r) => r.rule.id === id));
      lines.push(
        '',
        `${labels} in ${test.file}`,
        `    ${chargeText(test)}${notReached.length === 0 ? '' : `; not reached: ${notReached.join(', ')}`}`,
        ...test.errors.map((error) => indent(printable(plainText(error)))),
      );
    }
  }
  if (summary.uncharged.length > 0) {
    lines.push(
      '',
      `Uncharged failures: ${summary.uncharged.length} failed check(s) named no rule (a crash, a network failure, or an assertion without expectAt/chargeTo), so each counts against every rule it names:`,
      ...summary.uncharged.map((u) => `  ${u.file} "${u.name}": ${u.rules.join(', ')}`),
    );
  }
  if (summary.problems.length > 0)
    lines.push('', 'Problems with the suite itself:', ...summary.problems.map((p) => `  ${p}`));
  const skipped = summary.results.filter((r) => r.status === 'skip');
  if (skipped.length > 0) {
    const byReason = new Map<string, string[]>();
    for (const r of skipped) {
      const reason = skipReasons(r).join('; ');
      byReason.set(reason, [...(byReason.get(reason) ?? []), r.rule.id]);
    }
    lines.push(
      '',
      `Skipped: ${plural(skipped.length, 'rule')} no check verified in this run, by reason:`,
    );
    for (const [reason, ids] of byReason)
      lines.push(`  ${reason} (${plural(ids.length, 'rule')}):`, ...wrapped(ids, '    '));
  }
  if (summary.refusals.length > 0) {
    lines.push(
      '',
      `Not certified: --profile certify allows no skipped check (but one that needs the harness) and no rule left unverified, and found ${summary.refusals.length}:`,
      ...summary.refusals.map((r) => `  ${r}`),
    );
  }
  const harness = summary.results.filter((r) => r.status === 'harness');
  if (harness.length > 0) {
    const byReason = new Map<string, string[]>();
    for (const r of harness) {
      const reason = skipReasons(r).join('; ');
      byReason.set(reason, [...(byReason.get(reason) ?? []), r.rule.id]);
    }
    lines.push(
      '',
      `Needs the harness: ${plural(harness.length, 'rule')} left unchecked only because their checks need what no API gives, only a control plane (the test harness); --profile certify lists them instead of failing:`,
      ...[...byReason].map(([reason, ids]) => `  ${reason}: ${ids.join(', ')}`),
    );
  }
  lines.push('', ...closingLines(summary, facts), '');
  return printable(lines.join('\n'));
}

/** Rule ids as lines of at most 100 characters, each starting with `prefix`. */
function wrapped(ids: readonly string[], prefix: string): string[] {
  const out: string[] = [];
  let line = '';
  for (const id of ids) {
    if (line !== '' && prefix.length + line.length + 1 + id.length > 100) {
      out.push(`${prefix}${line}`);
      line = '';
    }
    line = line === '' ? id : `${line} ${id}`;
  }
  if (line !== '') out.push(`${prefix}${line}`);
  return out;
}

/** At most this many skip reasons are listed; the rest are counted. */
const MAX_REASONS = 8;

/**
 * The headline (what this run checked of the catalogue), why the rest was skipped, the counts,
 * coverage, figures and result: the whole console report when it is not asked for. The
 * `Rules:`, `Coverage:`, `Requests:`, `Time:` lines keep their shape (scripts read them), and
 * `Result:` comes last.
 */
export function closingLines(summary: Summary, facts: RunFacts): string[] {
  const { counts, coverage } = summary;
  const run = runCoverage(summary);
  const lines = [headline(summary)];
  const reasons = skipReasonCounts(summary);
  if (reasons.length > 0) {
    lines.push('Skipped, by reason:');
    for (const r of reasons.slice(0, MAX_REASONS))
      lines.push(
        `  ${plural(r.checks, 'check')}${r.rules === 0 ? '' : r.harness ? ` (${plural(r.rules, 'rule')} left to the harness)` : ` (${plural(r.rules, 'rule')} left unchecked)`}: ${r.reason}`,
      );
    if (reasons.length > MAX_REASONS)
      lines.push(
        `  … and ${reasons.length - MAX_REASONS} more reasons (--report json or junit lists every skipped check with its reason)`,
      );
  }
  lines.push(
    `Rules: ${counts.pass} passed, ${counts.fail} failed, ${counts.warn} warnings, ${counts.skip} skipped, ${counts.unchecked} without a check${counts.harness > 0 ? `, ${counts.harness} need the harness` : ''}`,
    `Coverage: ${coverage.checked}/${coverage.total} rules have a check (documented ${coverage.documented[0]}/${coverage.documented[1]}, decided ${coverage.decided[0]}/${coverage.decided[1]}; ${coverage.untestable} marked untestable)`,
  );
  if (facts.shard !== undefined)
    lines.push(
      `Shard: ${facts.shard}; rules checked only by other shards' files show as without a check`,
    );
  if (summary.skipped.length > 0)
    lines.push(`Skipped checks: ${summary.skipped.length} (reasons above)`);
  // Said in the closing lines too, which are all a run prints without `--report console`: a run
  // whose own files did not run must not read as one that checked little by choice.
  if (summary.problems.length > 0)
    lines.push(
      `Problems with the suite itself: ${summary.problems.length} (the first: ${firstLine(summary.problems[0]!)}; --report console or json lists them all)`,
    );
  if (facts.requests !== undefined) lines.push(`Requests: ${formatCount(facts.requests)} sent`);
  if (facts.cases !== undefined)
    lines.push(`Generated cases: ${formatCount(facts.cases)} (fast-check runs)`);
  const left = facts.targetKind === 'live' ? (facts.uploadsLeft?.length ?? 0) : 0;
  if (left > 0)
    lines.push(
      `Uploads left: ${plural(left, 'file')} stored on the target, which no endpoint deletes (§4.9); ids in report.json (figures.uploadsLeft)`,
    );
  const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  const split =
    facts.activeMs === undefined || facts.waitedMs === undefined
      ? ''
      : ` (checks' own time, summed: ${seconds(facts.activeMs)} active, ${seconds(facts.waitedMs)} waiting on the target)`;
  lines.push(`Time: ${seconds(facts.durationMs)}${split}`, resultLine(summary, facts, run));
  return lines.map(printable);
}

/**
 * The verdict. A run that skipped rules is conformant only for the rules it checked, and says
 * how many; "every checked rule" is kept for a run that skipped none. A certifying run that
 * left rules to the harness says how many, and what they need.
 */
function resultLine(summary: Summary, facts: RunFacts, run: RunCoverage): string {
  const needs = harnessNeedsOf(summary).join(', ');
  const harness =
    run.harness === 0
      ? ''
      : `${plural(run.harness, 'rule')} ${run.harness === 1 ? 'needs' : 'need'} the harness (${needs})`;
  const but = `nothing skipped but ${plural(run.harness, 'rule')} that ${run.harness === 1 ? 'needs' : 'need'} the harness (${needs})`;
  if (summary.exitCode === 0) {
    const warned = summary.results.filter((r) => r.status === 'warn').map((r) => r.rule.id);
    const warnings =
      warned.length === 0
        ? ''
        : `; ${plural(warned.length, 'warning')} on decided rules (${warned.join(', ')}; --strict makes them failures)`;
    if (facts.profile === 'certify' && harness !== '')
      return warned.length === 0
        ? `Result: certified through the API: every checked rule passed, ${but}, no warning`
        : `Result: certified through the API: every documented rule passed, ${but}${warnings}`;
    if (facts.profile === 'certify')
      return warned.length === 0
        ? 'Result: certified: every checked rule passed, nothing skipped, no warning'
        : `Result: certified: every documented rule passed, nothing skipped${warnings}`;
    return run.skipped === 0
      ? `Result: conformant for every checked rule${warnings}`
      : `Result: conformant for the ${plural(run.checked, 'rule')} checked; ${run.skipped} skipped${warnings}`;
  }
  if (summary.nothingChecked !== undefined)
    return `Result: NOT conformant: nothing was checked (${summary.nothingChecked})`;
  if (summary.counts.fail === 0 && summary.problems.length === 0 && summary.refusals.length > 0)
    return `Result: NOT certified: no rule failed, but ${summary.refusals.length} skip(s) or unverified rule(s)${harness === '' ? '' : `; ${harness}`}`;
  return `Result: NOT conformant${harness === '' ? '' : ` (${harness})`}`;
}

function plural(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

function runLine(facts: RunFacts): string {
  const parts = [
    ...(facts.profile === undefined || facts.profile === 'full'
      ? []
      : [`profile ${facts.profile}`]),
    `seed ${facts.seed}`,
    `${facts.numRuns} runs per property`,
    ...(facts.strict && facts.profile !== 'certify' ? ['strict'] : []),
    ...(facts.shard === undefined ? [] : [`shard ${facts.shard}`]),
  ];
  return parts.join(', ');
}

function detail(result: RuleResult): string {
  if (result.tests.length === 0)
    return result.rule.untestable === undefined ? '' : '  [untestable: see conformance/rules.yaml]';
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

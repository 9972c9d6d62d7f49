// escape-html: & < > " ' as &amp; &lt; &gt; &quot; &#39; (HTML text and quoted attributes).
import esc from 'escape-html';
import {
  STATUS_LABEL,
  chargeText,
  failedChecks,
  formatCount,
  groupResults,
  harnessNeedsOf,
  headline,
  plainText,
  runCoverage,
  skipReasonCounts,
  skipReasons,
  type RunCoverage,
  type RunFacts,
} from './facts.ts';
import { RULE_STATUSES, type RuleResult, type Summary } from './summary.ts';

/**
 * `report.html`: one self-contained page (inline CSS, no script, no font, no image, and a
 * Content-Security-Policy that forbids loading anything), so it opens offline and can be
 * kept as a CI artifact: result, figures, coverage, failures and warnings in full, skipped
 * checks with their reasons, and every rule by section, decided rules apart.
 */
export function formatHtmlReport(summary: Summary, facts: RunFacts): string {
  const { counts, coverage } = summary;
  const run = runCoverage(summary);
  const [verdict, tone] = verdictOf(summary, facts, run);
  const documented = summary.results.filter((r) => r.rule.source === 'documented');
  const decided = summary.results.filter((r) => r.rule.source === 'decided');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>mailtwin conformance: ${esc(verdict)}</title>
<style>${CSS}</style>
</head>
<body>
<h1>mailtwin conformance</h1>
<p class="verdict ${tone}">${esc(verdict)}</p>
<p class="headline">${esc(headline(summary))}</p>
<table class="facts">
${row('Target', facts.target)}
${row('Profile', facts.profile ?? 'full')}
${row('Seed', String(facts.seed))}
${row('Runs per property', String(facts.numRuns))}
${row('Decided rules', facts.strict ? 'fail the run (strict)' : 'warn when they fail (--strict makes them failures)')}
${facts.shard === undefined ? '' : row('Shard', `${facts.shard} (rules checked only in other shards show as without a check)`)}
${facts.startedAt === undefined ? '' : row('Started', facts.startedAt)}
</table>
<h2>Figures</h2>
<table class="facts">
${facts.requests === undefined ? '' : row('Requests sent', formatCount(facts.requests))}
${facts.cases === undefined ? '' : row('Generated cases', formatCount(facts.cases))}
${row('Time', `${(facts.durationMs / 1000).toFixed(1)} s`)}
${row('Skipped checks', String(summary.skipped.length))}
</table>
<h2>Rules and coverage</h2>
<p class="counts">${RULE_STATUSES.filter((s) => s !== 'harness' || counts.harness > 0)
    .map((s) => `<span class="badge ${s}">${STATUS_LABEL[s]}</span> ${counts[s]} ${COUNT_NAME[s]}`)
    .join(' &middot; ')}</p>
<p class="note">Rules checked in this run, of the whole catalogue; the rest were skipped or have no check.</p>
${bar('All rules', run.checked, run.total)}
${bar('Documented (the service document)', ...run.documented)}
${bar('Decided (spec/DECISIONS.md)', ...run.decided)}
<p class="note">The suite has a check for ${coverage.checked} of ${coverage.total} rules (documented ${coverage.documented[0]}/${coverage.documented[1]}, decided ${coverage.decided[0]}/${coverage.decided[1]}; ${coverage.untestable} marked untestable).</p>
${skipReasonList(summary)}${refusals(summary)}${harnessList(summary)}${failures(summary)}${uncharged(summary)}${skipped(summary)}${problems(summary)}
<h2>Documented rules</h2>
${groupResults(documented)
  .map(([group, results]) => ruleTable(group, results))
  .join('\n')}
<h2>Decided rules</h2>
<p>Choices of spec/DECISIONS.md where the service document is silent. A failed decided rule is a warning unless --strict, in process as on a live target.</p>
${decided.length === 0 ? '<p>None.</p>' : ruleTable('Decided (spec/DECISIONS.md)', decided)}
</body>
</html>
`;
}

/**
 * The verdict and its colour: green only when every rule with a check was checked and passed;
 * amber when the checked rules passed but others were skipped; red otherwise.
 */
function verdictOf(summary: Summary, facts: RunFacts, run: RunCoverage): [string, string] {
  const needs = `${run.harness} rule${run.harness === 1 ? '' : 's'} that need${run.harness === 1 ? 's' : ''} the harness (${harnessNeedsOf(summary).join(', ')})`;
  if (summary.exitCode === 0) {
    const warned = run.warned;
    const warnings =
      warned === 0
        ? ''
        : `; ${warned} warning${warned === 1 ? '' : 's'} on decided rules (--strict makes them failures)`;
    // Amber: certified for what the API can show, not for what only the harness can.
    if (facts.profile === 'certify' && run.harness > 0)
      return [
        warned === 0
          ? `Certified through the API: every checked rule passed, nothing skipped but ${needs}, no warning`
          : `Certified through the API: every documented rule passed, nothing skipped but ${needs}${warnings}`,
        'partial',
      ];
    if (facts.profile === 'certify')
      return warned === 0
        ? ['Certified: every checked rule passed, nothing skipped, no warning', 'ok']
        : [`Certified: every documented rule passed, nothing skipped${warnings}`, 'partial'];
    return run.skipped === 0 && warned === 0
      ? ['Conformant for every checked rule', 'ok']
      : run.skipped === 0
        ? [`Conformant for every checked rule${warnings}`, 'partial']
        : [
            `Conformant for the ${run.checked} rule${run.checked === 1 ? '' : 's'} checked; ${run.skipped} skipped${warnings}`,
            'partial',
          ];
  }
  if (summary.nothingChecked !== undefined)
    return [`NOT conformant: nothing was checked (${summary.nothingChecked})`, 'bad'];
  const harness = run.harness === 0 ? '' : `; ${needs}`;
  return summary.counts.fail === 0 && summary.problems.length === 0 && summary.refusals.length > 0
    ? [
        `NOT certified: no rule failed, but checks were skipped or rules left unverified${harness}`,
        'bad',
      ]
    : [`NOT conformant${harness}`, 'bad'];
}

const COUNT_NAME = {
  pass: 'passed',
  fail: 'failed',
  warn: 'warnings',
  skip: 'skipped',
  harness: 'need the harness',
  unchecked: 'without a check',
} as const;

const CSS = `
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:2rem auto;max-width:75rem;padding:0 1rem;color:#1b1f24}
h1{margin-bottom:.2rem}h2{margin-top:2rem;border-bottom:1px solid #d0d7de;padding-bottom:.2rem}h3{margin:1.2rem 0 .4rem}
.verdict{font-size:1.2rem;font-weight:600;padding:.5rem .8rem;border-radius:6px;display:inline-block}
.verdict.ok{background:#dafbe1;color:#116329}.verdict.bad{background:#ffebe9;color:#a40e26}.verdict.partial{background:#fff8c5;color:#7d4e00}
.headline{font-weight:600}
table{border-collapse:collapse;width:100%}td,th{text-align:left;vertical-align:top;padding:.3rem .5rem;border-bottom:1px solid #eaeef2}
table.facts{width:auto}table.facts th{font-weight:600;padding-right:2rem}
.badge{font:600 12px/1 ui-monospace,monospace;padding:.25rem .4rem;border-radius:4px;display:inline-block;min-width:2.6rem;text-align:center}
.pass{background:#dafbe1;color:#116329}.fail{background:#ffebe9;color:#a40e26}.warn{background:#fff8c5;color:#7d4e00}
.skip{background:#ddf4ff;color:#0a3069}.harness{background:#fbefff;color:#6e40c9}.unchecked{background:#f6f8fa;color:#57606a}
.id{font-family:ui-monospace,monospace;white-space:nowrap}.note{color:#57606a}
.bar{display:flex;align-items:center;gap:.8rem;margin:.3rem 0}.bar span:first-child{width:18rem}
.track{flex:0 0 20rem;height:.7rem;background:#eaeef2;border-radius:4px;overflow:hidden}.fill{height:100%;background:#0969da}
pre{background:#f6f8fa;padding:.7rem;overflow-x:auto;white-space:pre-wrap;word-break:break-word;font-size:13px}
details{margin:.6rem 0}summary{cursor:pointer;font-weight:600}
`;

function row(name: string, value: string): string {
  return `<tr><th>${esc(name)}</th><td>${esc(value)}</td></tr>`;
}

function bar(label: string, checked: number, total: number): string {
  const percent = total === 0 ? 0 : Math.round((checked / total) * 100);
  return `<div class="bar"><span>${esc(label)}</span><span class="track"><span class="fill" style="display:block;width:${percent}%"></span></span><span>${checked}/${total} checked in this run (${percent}%)</span></div>`;
}

function skipReasonList(summary: Summary): string {
  const reasons = skipReasonCounts(summary);
  if (reasons.length === 0) return '';
  const items = reasons.map(
    (r) =>
      `<li>${r.checks} check${r.checks === 1 ? '' : 's'}${r.rules > 0 ? ` (${r.rules} rule${r.rules === 1 ? '' : 's'} ${r.harness ? 'left to the harness' : 'left unchecked'})` : ''}: ${esc(r.reason)}</li>`,
  );
  return `<p>Skipped, by reason:</p>\n<ul class="reasons">\n${items.join('\n')}\n</ul>\n`;
}

function ruleTable(group: string, results: RuleResult[]): string {
  const rows = results.map((result) => {
    const detail =
      result.status === 'skip'
        ? `skipped: ${skipReasons(result).join('; ')}`
        : result.status === 'harness'
          ? skipReasons(result).join('; ')
          : result.tests.length === 0
            ? 'no check yet'
            : `${result.tests.length} check${result.tests.length === 1 ? '' : 's'}`;
    return `<tr><td><span class="badge ${result.status}">${STATUS_LABEL[result.status]}</span></td><td class="id">${esc(result.rule.id)}</td><td>${esc(result.rule.sentence)}</td><td class="note">${esc(detail)}</td></tr>`;
  });
  return `<h3>${esc(group)}</h3>\n<table class="rules">\n<colgroup><col style="width:5.5rem"><col style="width:6.5rem"><col><col style="width:14rem"></colgroup>\n<tr><th>Status</th><th>Rule</th><th>Sentence</th><th>Checks</th></tr>\n${rows.join('\n')}\n</table>`;
}

function failures(summary: Summary): string {
  const failed = failedChecks(summary);
  if (failed.size === 0) return '';
  const items = [...failed.values()].map(({ test, rules: results }) => {
    const labels = results
      .map(
        (r) => `<span class="badge ${r.status}">${STATUS_LABEL[r.status]}</span> ${esc(r.rule.id)}`,
      )
      .join(' ');
    const notReached = test.rules.filter((id) => !results.some((r) => r.rule.id === id));
    const charge = `${chargeText(test)}${notReached.length === 0 ? '' : `; not reached: ${notReached.join(', ')}`}`;
    return `<details open><summary>${labels} ${esc(test.behaviour ?? test.name)} <span class="note">(${esc(test.file)})</span></summary>\n<p class="note">${esc(charge)}</p>\n${test.errors.map((e) => `<pre>${esc(plainText(e))}</pre>`).join('\n')}\n</details>`;
  });
  return `<h2>Failures and warnings</h2>\n<p class="note">Each failure is charged to the rule its failing assertion checks. WARN: a decided rule; a deployment may have chosen otherwise (spec/DECISIONS.md).</p>\n${items.join('\n')}\n`;
}

function uncharged(summary: Summary): string {
  if (summary.uncharged.length === 0) return '';
  const rows = summary.uncharged.map(
    (u) =>
      `<tr><td>${esc(u.file)}</td><td>${esc(u.name)}</td><td>${esc(u.rules.join(', '))}</td></tr>`,
  );
  return `<h2>Uncharged failures</h2>\n<p class="note">These failures named no rule (a crash, a network failure, or an assertion without expectAt/chargeTo), so each counts against every rule of its check.</p>\n<table>\n<tr><th>File</th><th>Check</th><th>Rules charged</th></tr>\n${rows.join('\n')}\n</table>\n`;
}

function skipped(summary: Summary): string {
  if (summary.skipped.length === 0) return '';
  const rows = summary.skipped.map(
    (s) => `<tr><td>${esc(s.file)}</td><td>${esc(s.name)}</td><td>${esc(s.reason)}</td></tr>`,
  );
  return `<h2>Skipped checks</h2>\n<table>\n<tr><th>File</th><th>Check</th><th>Why</th></tr>\n${rows.join('\n')}\n</table>\n`;
}

function refusals(summary: Summary): string {
  if (summary.refusals.length === 0) return '';
  return `<h2>Not certified</h2>\n<p>--profile certify allows no skipped check (but one that needs the harness) and no rule left unverified.</p>\n<ul>\n${summary.refusals.map((r) => `<li>${esc(r)}</li>`).join('\n')}\n</ul>\n`;
}

function harnessList(summary: Summary): string {
  const harness = summary.results.filter((r) => r.status === 'harness');
  if (harness.length === 0) return '';
  const rows = harness.map(
    (r) =>
      `<tr><td class="id">${esc(r.rule.id)}</td><td>${esc(r.rule.sentence)}</td><td>${esc(skipReasons(r).join('; '))}</td></tr>`,
  );
  return `<h2>Needs the harness</h2>\n<p class="note">Left unchecked only because their checks need what no API gives, only a control plane (the test harness): a clock, faults, crafted mail… --profile certify lists them instead of failing.</p>\n<table>\n<tr><th>Rule</th><th>Sentence</th><th>Why</th></tr>\n${rows.join('\n')}\n</table>\n`;
}

function problems(summary: Summary): string {
  if (summary.problems.length === 0) return '';
  return `<h2>Problems with the suite itself</h2>\n<ul>\n${summary.problems.map((p) => `<li>${esc(p)}</li>`).join('\n')}\n</ul>\n`;
}

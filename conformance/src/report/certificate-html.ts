// escape-html: & < > " ' as &amp; &lt; &gt; &quot; &#39; (HTML text and quoted attributes).
import esc from 'escape-html';
import { buildCertificate } from './certificate.ts';
import { STATUS_LABEL, type RunFacts } from './facts.ts';
import { RULE_STATUSES, type RuleStatus, type Summary } from './summary.ts';

/** `certificate.html`: the same certificate for people, self-contained (no script, no fetch). */
export function formatCertificateHtml(
  summary: Summary,
  facts: RunFacts,
  secrets: readonly (string | undefined)[] = [],
): string {
  const c = buildCertificate(summary, facts, secrets);
  const tone = c.verdict.certified
    ? c.counts.harness > 0 || c.counts.warn > 0
      ? 'partial'
      : 'ok'
    : 'bad';
  const rows = c.rules.map(
    (r) =>
      `<tr id="${esc(r.id)}"><td class="id">${esc(r.id)}</td><td><span class="badge ${r.status}">${esc(STATUS_LABEL[r.status])}</span></td><td>${esc(r.reason)}</td><td class="note">${esc(r.sentence)}</td></tr>`,
  );
  const counts = RULE_STATUSES.map((s) => `${c.counts[s]} ${STATUS_WORDS[s]}`).join(', ');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>mailtwin conformance certificate: ${esc(c.verdict.text)}</title>
<style>${CSS}</style>
</head>
<body>
<h1>mailtwin conformance certificate</h1>
<p class="verdict ${tone}">${esc(c.verdict.text)}</p>
<table class="facts">
${row('Target', c.target.name)}
${row('Suite', `${c.suite.name} ${c.suite.version ?? '(version unknown)'}`)}
${row(`SHA-256 of ${c.spec.path}`, c.spec.sha256 ?? 'not recorded')}
${row(`SHA-256 of ${c.catalogue.path}`, c.catalogue.sha256 ?? 'not recorded')}
${row('Profile', c.run.profile)}
${row('Strict', c.run.strict ? 'yes: failed decided rules fail the run' : 'no: failed decided rules warn')}
${row('Seed', String(c.run.seed))}
${row('Runs per property', String(c.run.numRuns))}
${c.run.shard === null ? '' : row('Shard', c.run.shard)}
${row('Date', c.run.date ?? 'not recorded')}
${row('Requests sent', c.run.requests === null ? 'not counted' : String(c.run.requests))}
${row('Exit code', String(c.run.exitCode))}
${row('Rules', counts)}
</table>
<h2>Re-run it</h2>
<p class="note">Every secret is a placeholder: set the environment variables, or put each key in place of its &lt;secret of …&gt;.</p>
<pre>${esc(c.rerun ?? 'not recorded')}</pre>
<h2>Rules</h2>
<p class="note">HARN: needs the harness. Only a control plane (the test harness) can give what its checks need (a clock, faults, crafted mail…), so no deployment can show it through its API.</p>
<table class="rules">
<tr><th>Rule</th><th>Status</th><th>Reason</th><th>Sentence</th></tr>
${rows.join('\n')}
</table>
<h2>Integrity</h2>
<p>SHA-256 of the canonical JSON of certificate.json without its <code>integrity</code> field (${esc(c.integrity.canonicalization)}):</p>
<pre>${esc(c.integrity.sha256)}</pre>
</body>
</html>
`;
}

const STATUS_WORDS: Record<RuleStatus, string> = {
  pass: 'passed',
  fail: 'failed',
  warn: 'warned',
  skip: 'skipped',
  harness: 'need the harness',
  unchecked: 'without a check',
};

const CSS = `
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:2rem auto;max-width:75rem;padding:0 1rem;color:#1b1f24}
h2{margin-top:2rem;border-bottom:1px solid #d0d7de;padding-bottom:.2rem}
.verdict{font-size:1.2rem;font-weight:600;padding:.5rem .8rem;border-radius:6px;display:inline-block}
.verdict.ok{background:#dafbe1;color:#116329}.verdict.bad{background:#ffebe9;color:#a40e26}.verdict.partial{background:#fff8c5;color:#7d4e00}
table{border-collapse:collapse;width:100%}td,th{text-align:left;vertical-align:top;padding:.3rem .5rem;border-bottom:1px solid #eaeef2}
table.facts{width:auto}table.facts th{font-weight:600;padding-right:2rem}
.badge{font:600 12px/1 ui-monospace,monospace;padding:.25rem .4rem;border-radius:4px;display:inline-block;min-width:2.6rem;text-align:center}
.pass{background:#dafbe1;color:#116329}.fail{background:#ffebe9;color:#a40e26}.warn{background:#fff8c5;color:#7d4e00}
.skip{background:#ddf4ff;color:#0a3069}.harness{background:#fbefff;color:#6e40c9}.unchecked{background:#f6f8fa;color:#57606a}
.id{font-family:ui-monospace,monospace;white-space:nowrap}.note{color:#57606a}
pre{background:#f6f8fa;padding:.7rem;overflow-x:auto;white-space:pre-wrap;word-break:break-all;font-size:13px}
`;

function row(name: string, value: string): string {
  return `<tr><th>${esc(name)}</th><td>${esc(value)}</td></tr>`;
}

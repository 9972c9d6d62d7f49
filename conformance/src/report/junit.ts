import { chargeText, chargingTests, groupResults, skipReasons, type RunFacts } from './facts.ts';
import type { RuleResult, Summary } from './summary.ts';

/**
 * The JUnit XML report (`junit.xml`), for CI systems that show test results: one <testsuite>
 * per section of the service document (and one for the decided rules, kept apart), one
 * <testcase> per rule with classname = that section and name = "<id> <sentence>". A failed
 * rule carries <failure> with the text of each failure charged to it (one assertion, one
 * rule: a check that failed on another rule does not fail this one); a skipped or unchecked
 * rule <skipped> with the reason (a rule a certifying run left to the harness: "needs the
 * harness: clock") (a rule its check never reached is skipped); a warning (a
 * decided rule failed, without --strict) passes with the text in <system-out>. Problems with the suite itself are <error>s of one more suite.
 */
export function formatJUnitReport(summary: Summary, facts: RunFacts): string {
  const suites = groupResults(summary.results).map(([group, results]) =>
    suite(group, results, facts),
  );
  if (summary.problems.length > 0 || summary.refusals.length > 0)
    suites.push(problemSuite(summary));
  const totals = { tests: 0, failures: 0, errors: 0, skipped: 0 };
  for (const s of suites) {
    totals.tests += s.tests;
    totals.failures += s.failures;
    totals.errors += s.errors;
    totals.skipped += s.skipped;
  }
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="mailtwin conformance" tests="${totals.tests}" failures="${totals.failures}" errors="${totals.errors}" skipped="${totals.skipped}" time="${seconds(facts.durationMs)}">`,
    ...suites.map((s) => s.xml),
    '</testsuites>',
    '',
  ].join('\n');
}

interface SuiteXml {
  xml: string;
  tests: number;
  failures: number;
  errors: number;
  skipped: number;
}

function suite(group: string, results: RuleResult[], facts: RunFacts): SuiteXml {
  let failures = 0;
  let skipped = 0;
  let timeMs = 0;
  const cases = results.map((result) => {
    const ms = result.tests.reduce((sum, t) => sum + (t.durationMs ?? 0), 0);
    timeMs += ms;
    const open = `    <testcase classname="${attr(group)}" name="${attr(`${result.rule.id} ${result.rule.sentence}`)}" time="${seconds(ms)}"`;
    const charged = chargingTests(result);
    const errors = charged.flatMap((t) => t.errors);
    const texts = charged.map((t) => `${chargeText(t)}\n\n${t.errors.join('\n\n')}`);
    switch (result.status) {
      case 'pass':
        return `${open}/>`;
      case 'fail':
        failures += 1;
        return [
          `${open}>`,
          `      <failure message="${attr(firstLine(errors) ?? 'failed')}" type="${result.rule.source}">${text(texts.join('\n\n'))}</failure>`,
          '    </testcase>',
        ].join('\n');
      case 'warn':
        return [
          `${open}>`,
          `      <system-out>${text(`WARN: a decided rule failed; a deployment may have chosen otherwise (spec/DECISIONS.md); --strict makes this a failure.\n\n${texts.join('\n\n')}`)}</system-out>`,
          '    </testcase>',
        ].join('\n');
      case 'skip':
      case 'harness':
        skipped += 1;
        return `${open}>\n      <skipped message="${attr(skipReasons(result).join('; '))}"/>\n    </testcase>`;
      case 'unchecked':
        skipped += 1;
        return `${open}>\n      <skipped message="no check covers this rule yet"/>\n    </testcase>`;
    }
  });
  const properties = [
    ['target', facts.target],
    ['seed', String(facts.seed)],
    ['numRuns', String(facts.numRuns)],
    ['profile', facts.profile ?? 'full'],
    ...(facts.shard === undefined ? [] : [['shard', facts.shard]]),
  ]
    .map(([name, value]) => `      <property name="${attr(name!)}" value="${attr(value!)}"/>`)
    .join('\n');
  return {
    tests: results.length,
    failures,
    errors: 0,
    skipped,
    xml: [
      `  <testsuite name="${attr(group)}" tests="${results.length}" failures="${failures}" errors="0" skipped="${skipped}" time="${seconds(timeMs)}"${facts.startedAt === undefined ? '' : ` timestamp="${attr(facts.startedAt.replace(/\.\d+Z$/, ''))}"`}>`,
      '    <properties>',
      properties,
      '    </properties>',
      ...cases,
      '  </testsuite>',
    ].join('\n'),
  };
}

function problemSuite(summary: Summary): SuiteXml {
  const entries = [
    ...summary.problems.map((p) => ['suite problem', p] as const),
    ...summary.refusals.map((r) => ['certify', r] as const),
  ];
  const cases = entries.map(
    ([kind, message], i) =>
      `    <testcase classname="mailtwin conformance" name="${attr(`${kind} ${i + 1}`)}" time="0">\n      <error message="${attr(message)}" type="${attr(kind)}">${text(message)}</error>\n    </testcase>`,
  );
  return {
    tests: entries.length,
    failures: 0,
    errors: entries.length,
    skipped: 0,
    xml: [
      `  <testsuite name="Suite problems and certification" tests="${entries.length}" failures="0" errors="${entries.length}" skipped="0" time="0">`,
      ...cases,
      '  </testsuite>',
    ].join('\n'),
  };
}

function firstLine(errors: string[]): string | undefined {
  return errors[0]?.split('\n').find((line) => line.trim() !== '');
}

function seconds(ms: number): string {
  return (ms / 1000).toFixed(3);
}

/**
 * Text XML 1.0 can carry: no terminal colour codes, no control characters but tab, newline and
 * carriage return, no lone surrogates (a failure message may hold any of these).
 */
export function xmlSafe(value: string): string {
  return value
    .replace(/\u001b\[[0-9;]*[A-Za-z]/g, '')
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, '\ufffd')
    .replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd');
}

/** Escapes an attribute value; newlines and tabs as references so parsers keep them. */
function attr(value: string): string {
  return xmlSafe(value)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;')
    .replace(/\n/g, '&#10;')
    .replace(/\r/g, '&#13;')
    .replace(/\t/g, '&#9;');
}

function text(value: string): string {
  return xmlSafe(value).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

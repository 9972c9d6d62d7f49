import escapeHtml from 'escape-html';
import { XMLBuilder } from 'fast-xml-parser';
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
  const total = (key: 'tests' | 'failures' | 'errors' | 'skipped') =>
    String(suites.reduce((sum, s) => sum + Number(s[`@${key}`]), 0));
  return BUILDER.build({
    '?xml': { '@version': '1.0', '@encoding': 'UTF-8' },
    testsuites: {
      '@name': 'mailtwin conformance',
      '@tests': total('tests'),
      '@failures': total('failures'),
      '@errors': total('errors'),
      '@skipped': total('skipped'),
      '@time': seconds(facts.durationMs),
      testsuite: suites,
    },
  }) as string;
}

/**
 * fast-xml-parser's XMLBuilder writes the elements, indented by two spaces, empty ones closed
 * with `/>`; values are escaped by escape-html (the project's one escaper) after xmlSafe, and
 * in attributes line breaks and tabs also become character references, so parsers keep them
 * (XML turns a raw one into a space).
 */
const BUILDER = new XMLBuilder({
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  format: true,
  indentBy: '  ',
  suppressEmptyNode: true,
  suppressBooleanAttributes: false,
  processEntities: false,
  tagValueProcessor: (_name: string, value: unknown) => escapeHtml(xmlSafe(String(value))),
  attributeValueProcessor: (_name: string, value: unknown) =>
    escapeHtml(xmlSafe(String(value)))
      .replace(/\n/g, '&#10;')
      .replace(/\r/g, '&#13;')
      .replace(/\t/g, '&#9;'),
});

/** One <testsuite> element as XMLBuilder takes it: `@name` an attribute, others children. */
type Element = { [key: string]: string | Element | Element[] };

function suite(group: string, results: RuleResult[], facts: RunFacts): Element {
  let failures = 0;
  let skipped = 0;
  let timeMs = 0;
  const cases = results.map((result): Element => {
    const ms = result.tests.reduce((sum, t) => sum + (t.durationMs ?? 0), 0);
    timeMs += ms;
    const testcase = {
      '@classname': group,
      '@name': `${result.rule.id} ${result.rule.sentence}`,
      '@time': seconds(ms),
    };
    const charged = chargingTests(result);
    const errors = charged.flatMap((t) => t.errors);
    const texts = charged.map((t) => `${chargeText(t)}\n\n${t.errors.join('\n\n')}`);
    switch (result.status) {
      case 'pass':
        return testcase;
      case 'fail':
        failures += 1;
        return {
          ...testcase,
          failure: {
            '@message': firstLine(errors) ?? 'failed',
            '@type': result.rule.source,
            '#text': texts.join('\n\n'),
          },
        };
      case 'warn':
        return {
          ...testcase,
          'system-out': `WARN: a decided rule failed; a deployment may have chosen otherwise (spec/DECISIONS.md); --strict makes this a failure.\n\n${texts.join('\n\n')}`,
        };
      case 'skip':
      case 'harness':
        skipped += 1;
        return { ...testcase, skipped: { '@message': skipReasons(result).join('; ') } };
      case 'unchecked':
        skipped += 1;
        return { ...testcase, skipped: { '@message': 'no check covers this rule yet' } };
    }
  });
  const properties = [
    ['target', facts.target],
    ['seed', String(facts.seed)],
    ['numRuns', String(facts.numRuns)],
    ['profile', facts.profile ?? 'full'],
    ...(facts.shard === undefined ? [] : [['shard', facts.shard]]),
  ].map(([name, value]) => ({ '@name': name!, '@value': value! }));
  return {
    '@name': group,
    '@tests': String(results.length),
    '@failures': String(failures),
    '@errors': '0',
    '@skipped': String(skipped),
    '@time': seconds(timeMs),
    ...(facts.startedAt === undefined
      ? {}
      : { '@timestamp': facts.startedAt.replace(/\.\d+Z$/, '') }),
    properties: { property: properties },
    testcase: cases,
  };
}

function problemSuite(summary: Summary): Element {
  const entries = [
    ...summary.problems.map((p) => ['suite problem', p] as const),
    ...summary.refusals.map((r) => ['certify', r] as const),
  ];
  return {
    '@name': 'Suite problems and certification',
    '@tests': String(entries.length),
    '@failures': '0',
    '@errors': String(entries.length),
    '@skipped': '0',
    '@time': '0',
    testcase: entries.map(([kind, message], i) => ({
      '@classname': 'mailtwin conformance',
      '@name': `${kind} ${i + 1}`,
      '@time': '0',
      error: { '@message': message, '@type': kind, '#text': message },
    })),
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

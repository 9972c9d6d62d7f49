import { describe, expect, it } from 'vitest';
import { SAMPLE_FACTS, sampleSummary } from './sample.ts';
import { renderReport, secretsOf, type RenderedReport } from './reports.ts';
import type { Summary } from './summary.ts';

/** Secrets of every kind, each planted somewhere a report prints. */
const KEY = 'sk-AbCdEfGhIjKl_0123456789abcdefghijklmnopqrstuv';
const MADE_KEY = 'sk-MmMmMmMmMmMm_made567890abcdefghijklmnopqrWXYZ';
const WEBHOOK = 'whsec_0123456789abcdefghijklmnopQRST';
const CONTROL = 'mt_q1w2e3r4t5y6u7i8o9p0-_ctrl';
const IN_PROCESS = 'conformance-0f8e2d4c-1b3a-4c5d-8e7f-9a0b1c2d3e4f';
/** A key of no known shape, given on the command line. */
const GIVEN = 'vendorKey.987654321';
const SECRETS = [KEY, MADE_KEY, WEBHOOK, CONTROL, IN_PROCESS, GIVEN];

/** The sample run with a secret in every free text a check or the suite can produce. */
function leakySummary(): Summary {
  const summary = sampleSummary({
    problems: [`unhandled error: fetch with ${CONTROL} failed`],
    refusals: [`skipped x "y": the suite refused key ${GIVEN}`],
  });
  const [passed, , failed, skipped, , warned] = summary.results;
  failed!.tests[0]!.errors = [
    `expected '${MADE_KEY}' to be '${KEY}'\n  replay: curl -H 'Authorization: Bearer ${KEY}'\n  response: 201 {"secret":"${WEBHOOK}"}`,
  ];
  warned!.tests[0]!.errors = [`token ${IN_PROCESS} and ${GIVEN}`];
  skipped!.tests[0]!.skipReason = `the suite refused: key ${MADE_KEY}`;
  summary.skipped[0]!.reason = `the suite refused: key ${MADE_KEY}`;
  passed!.tests[0]!.behaviour = `accepts ${KEY}`;
  return summary;
}

const FORMATS: RenderedReport[] = [
  'console',
  'closing',
  'junit',
  'json',
  'html',
  'certificate-json',
  'certificate-html',
];

describe('renderReport', () => {
  it.each(FORMATS)('leaves no secret in the %s report', (format) => {
    const text = renderReport(format, leakySummary(), SAMPLE_FACTS, [GIVEN, CONTROL]);
    for (const secret of SECRETS) expect(text).not.toContain(secret);
  });

  it.each(['console', 'junit', 'json', 'html'] as const)(
    'keeps each masked secret recognisable in the %s report: prefix and last four',
    (format) => {
      const text = renderReport(format, leakySummary(), SAMPLE_FACTS, [GIVEN]);
      for (const masked of ['sk-…stuv', 'sk-…WXYZ', 'whsec_…QRST', 'conformance-…3e4f'])
        expect(text).toContain(masked);
      expect(text).toContain('…4321');
    },
  );

  it('still writes a JSON file that parses, with the failure text masked', () => {
    const report = JSON.parse(renderReport('json', leakySummary(), SAMPLE_FACTS)) as {
      checks: { errors: string[] }[];
    };
    const errors = report.checks.flatMap((c) => c.errors).join('\n');
    expect(errors).toContain(`expected 'sk-…WXYZ' to be 'sk-…stuv'`);
  });
});

describe('secretsOf', () => {
  it("lists a live target's keys and control token, and nothing for the emulator", () => {
    expect(
      secretsOf({
        kind: 'live',
        baseUrl: 'https://x/openapi/v1',
        apiKey: 'a-key',
        secondApiKey: 'b-key',
        mailboxes: [],
        destructive: false,
        control: { baseUrl: 'https://x/_mailtwin/v1', token: 'c-token' },
      }),
    ).toEqual(['a-key', 'b-key', 'c-token']);
    expect(secretsOf({ kind: 'emulator' })).toEqual([]);
  });
});

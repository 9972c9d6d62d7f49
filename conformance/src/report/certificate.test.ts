import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { certificateSha256, verifyCertificate, type Certificate } from './certificate.ts';
import type { RunFacts } from './facts.ts';
import { SAMPLE_FACTS, certifiedSummary, sampleSummary, withHarnessRule } from './sample.ts';
import { renderReport } from './reports.ts';
import type { Summary } from './summary.ts';

const SPEC_SHA = 'a1'.repeat(32);
const RULES_SHA = 'b2'.repeat(32);
const RERUN =
  'npx mailtwin-conformance --base-url https://mail.example.com/openapi/v1 --api-key "$MAILTWIN_API_KEY" --profile certify --seed 42';
const FACTS: RunFacts = {
  ...SAMPLE_FACTS,
  profile: 'certify',
  specSha256: SPEC_SHA,
  rulesSha256: RULES_SHA,
  rerun: RERUN,
};

/** certificate.json as the CLI writes it: through the report boundary, secrets masked. */
function certificateFile(summary: Summary, facts = FACTS, secrets: string[] = []): Certificate {
  return JSON.parse(renderReport('certificate-json', summary, facts, secrets)) as Certificate;
}

/** SHA-256 of the JSON with keys sorted at every depth and no whitespace, written apart here. */
function independentSha256(value: object): string {
  const sorted = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(sorted)
      : v !== null && typeof v === 'object'
        ? Object.fromEntries(
            Object.keys(v)
              .sort()
              .map((k) => [k, sorted((v as Record<string, unknown>)[k])]),
          )
        : v;
  return createHash('sha256')
    .update(JSON.stringify(sorted(value)))
    .digest('hex');
}

describe('certificate.json', () => {
  const certificate = certificateFile(withHarnessRule(sampleSummary()));

  it('names the target, suite, contract, seed, profile, strictness, date and request count', () => {
    expect(certificate).toMatchObject({
      format: 'mailtwin-conformance-certificate',
      formatVersion: 1,
      target: {
        kind: 'live',
        baseUrl: 'https://mail.example.com/openapi/v1',
        name: 'https://mail.example.com/openapi/v1',
      },
      suite: { name: 'mailtwin-conformance', version: '0.1.0' },
      spec: { path: 'spec/openapi.yaml', sha256: SPEC_SHA },
      catalogue: { path: 'conformance/rules.yaml', sha256: RULES_SHA },
      run: {
        profile: 'certify',
        strict: false,
        seed: 42,
        numRuns: 50,
        shard: null,
        date: '2026-01-02T03:04:05.678Z',
        requests: 1234,
        exitCode: 1,
      },
      counts: { pass: 2, fail: 1, warn: 1, skip: 1, harness: 1, unchecked: 1 },
      rerun: RERUN,
    });
  });

  it('gives every rule its status and a one-line reason, a harness rule "needs the harness"', () => {
    expect(certificate.rules.map((r) => [r.id, r.status, r.reason])).toEqual([
      ['4.1-R1', 'pass', 'passed: 1 check, none failed on it'],
      ['4.2-R1', 'pass', 'passed: 1 check, none failed on it'],
      [
        '4.3-R1',
        'fail',
        'failed in "refuses "bad" <input> & more": expected 400, got 200 \ufffdbell',
      ],
      ['6.2-R1', 'skip', 'skipped: needs a webhook receiver the target can reach'],
      ['9-R1', 'unchecked', 'no check verifies it yet'],
      [
        'D-2',
        'warn',
        'a decided rule failed (a warning; --strict makes it a failure) in "answers a decided way": expected 404, got 403',
      ],
      ['6.4-R3', 'harness', 'needs the harness: clock'],
    ]);
  });

  it('holds a SHA-256 of everything else, which recomputing from the file gives again', () => {
    const { integrity, ...rest } = certificate;
    expect(integrity.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(independentSha256(rest)).toBe(integrity.sha256);
    expect(verifyCertificate(certificate)).toBe(true);
  });

  it('no longer matches its SHA-256 once a status is changed', () => {
    const edited = structuredClone(certificate);
    edited.rules[2]!.status = 'pass';
    expect(certificateSha256(edited)).not.toBe(certificate.integrity.sha256);
    expect(verifyCertificate(edited)).toBe(false);
  });

  it('says "not certified" for a run that is not --profile certify', () => {
    const full = certificateFile(certifiedSummary(), { ...FACTS, profile: 'full' });
    expect(full.verdict).toEqual({
      certified: false,
      text: 'not certified: a --profile full run, not --profile certify (its result: conformant for the rules it checked)',
    });
  });

  it('says "not certified" and why for a certify run that failed', () => {
    expect(certificate.verdict).toEqual({
      certified: false,
      text: 'not certified: 1 rule failed (4.3-R1); 1 problem(s) with the suite itself; 1 rule left to the harness (needs clock), which no API can give',
    });
  });

  it('says "not certified" for one shard of a certify run', () => {
    const shard = certificateFile(certifiedSummary(), { ...FACTS, shard: '1/2' });
    expect(shard.verdict.certified).toBe(false);
    expect(shard.verdict.text).toBe(
      'not certified: one shard (--shard 1/2) of a run checks only part of the suite',
    );
  });

  it('certifies a passing certify run, saying how many rules need the harness', () => {
    const passed = certificateFile(certifiedSummary());
    expect(passed.verdict).toEqual({
      certified: true,
      text: 'certified: every checked documented rule passed, nothing skipped; 1 rule left to the harness (needs clock), which no API can give; no warning',
    });
    expect(verifyCertificate(passed)).toBe(true);
  });
});

describe('certificate.html', () => {
  const summary = withHarnessRule(sampleSummary());
  const html = renderReport('certificate-html', summary, FACTS);
  const json = certificateFile(summary);

  it('is one self-contained page: no script, no link, no outside request', () => {
    expect(html.startsWith('<!doctype html>')).toBe(true);
    expect(html).not.toMatch(/<script|<link|<img|<iframe|<object|<embed|@import|url\(|@font-face/i);
    expect(html).not.toMatch(/\s(?:src|href|action|srcset|poster)\s*=/i);
    expect(html).toContain(
      `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">`,
    );
  });

  it('closes every element it opens, in order', () => {
    const VOID = new Set(['meta', 'br', 'col', 'hr', 'img', 'input', 'link']);
    const stack: string[] = [];
    for (const [, close, name] of html.matchAll(/<(\/?)([a-z][a-z0-9]*)\b[^>]*>/g)) {
      if (VOID.has(name!)) continue;
      if (close === '') stack.push(name!);
      else expect(stack.pop(), `</${name}>`).toBe(name);
    }
    expect(stack).toEqual([]);
  });

  it('shows each rule in a row of its own, with its status and reason', () => {
    for (const rule of json.rules) {
      const row = new RegExp(`<tr id="${rule.id.replace(/\./g, '\\.')}">(.*?)</tr>`).exec(html);
      expect(row, rule.id).not.toBeNull();
      expect(row![1]).toContain(`<span class="badge ${rule.status}">`);
    }
    expect(html).toContain('<td>needs the harness: clock</td>');
  });

  it('shows the verdict, the contract hashes, the command and the SHA-256 of the JSON', () => {
    expect(html).toContain(`<p class="verdict bad">${json.verdict.text}</p>`);
    expect(html).toContain(SPEC_SHA);
    expect(html).toContain(RULES_SHA);
    expect(html).toContain(`<pre>${RERUN.replace(/"/g, '&quot;')}</pre>`);
    expect(html).toContain(`<pre>${json.integrity.sha256}</pre>`);
  });

  it('says plainly "not certified" for a run that is not a certify run', () => {
    const full = renderReport('certificate-html', certifiedSummary(), {
      ...FACTS,
      profile: 'quick',
    });
    expect(full).toContain(
      '<p class="verdict bad">not certified: a --profile quick run, not --profile certify',
    );
  });

  it('shows a certified run that left rules to the harness in amber, not green', () => {
    const passed = renderReport('certificate-html', certifiedSummary(), FACTS);
    expect(passed).toContain('<p class="verdict partial">certified: ');
    expect(passed).toContain('<td>needs the harness: clock</td>');
  });
});

describe('a certificate carries no secret', () => {
  const KEY = 'sk-AbCdEfGhIjKl_0123456789abcdefghijklmnopqrstuv';
  const WEBHOOK = 'whsec_0123456789abcdefghijklmnopQRST';
  /** A key of no known shape, given on the command line. */
  const GIVEN = 'vendorKey.987654321';

  function leaky(): Summary {
    const summary = withHarnessRule(sampleSummary());
    summary.results[2]!.tests[0]!.errors = [
      `Rule broken while checking that it sends:\n  4.3-R1: "x"\n\nexpected '${KEY}' to be '${GIVEN}'\n\nreplay: curl -H 'Authorization: Bearer ${KEY}'`,
    ];
    summary.results[3]!.tests[0]!.skipReason = `the suite refused: secret ${WEBHOOK}`;
    return summary;
  }
  const facts: RunFacts = {
    ...FACTS,
    rerun: `${RERUN} --key 'one-domain=<secret of --key one-domain>'`,
  };

  it.each(['certificate-json', 'certificate-html'] as const)(
    'leaves no secret in %s, masked to prefix and last four',
    (format) => {
      const text = renderReport(format, leaky(), facts, [GIVEN]);
      for (const secret of [KEY, WEBHOOK, GIVEN]) expect(text).not.toContain(secret);
      expect(text).toContain('sk-…stuv');
      expect(text).toContain('…4321');
    },
  );

  it('hashes the masked text, so the file still verifies after the report boundary', () => {
    const certificate = certificateFile(leaky(), facts, [GIVEN]);
    expect(certificate.rules[2]!.reason).toBe(
      'failed in "refuses "bad" <input> & more": expected \'sk-…stuv\' to be \'…4321\'',
    );
    expect(verifyCertificate(certificate)).toBe(true);
  });
});

import { describe, expect, it } from 'vitest';
import { formatHtmlReport } from './html.ts';
import {
  SAMPLE_FACTS,
  TRICKY_SENTENCE,
  certifiedSummary,
  sampleSummary,
  withHarnessRule,
} from './sample.ts';
import type { RuleResult } from './summary.ts';

const html = formatHtmlReport(sampleSummary(), SAMPLE_FACTS);

describe('formatHtmlReport', () => {
  it('is one self-contained page: no script, stylesheet link, image, frame, font or import', () => {
    expect(html.startsWith('<!doctype html>')).toBe(true);
    expect(html).not.toMatch(/<script|<link|<img|<iframe|<object|<embed|@import|url\(|@font-face/i);
    expect(html).not.toMatch(/\s(?:src|href|action|srcset|poster)\s*=/i);
    expect(html).toContain('<style>');
  });

  it('forbids loading anything through its Content-Security-Policy', () => {
    expect(html).toContain(
      `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">`,
    );
  });

  it('escapes sentences, failure text and problems', () => {
    expect(html).not.toContain(TRICKY_SENTENCE);
    expect(html).toContain(
      'A &quot;quoted&quot; &lt;b&gt;bold&lt;/b&gt; claim &amp; &#39;more&#39; &gt; less.',
    );
    expect(html).toContain('SyntaxError &lt;oops&gt; &amp; &quot;more&quot;');
    expect(html).not.toContain('<input>');
    expect(html).not.toContain('\u001b[');
  });

  it('shows the verdict, the run and its figures', () => {
    expect(html).toContain('<p class="verdict bad">NOT conformant</p>');
    expect(html).toContain('<tr><th>Requests sent</th><td>1,234</td></tr>');
    expect(html).toContain('<tr><th>Generated cases</th><td>250</td></tr>');
    expect(html).toContain('<tr><th>Time</th><td>12.3 s</td></tr>');
    expect(html).toContain('<tr><th>Seed</th><td>42</td></tr>');
    expect(html).toContain(
      '<tr><th>Decided rules</th><td>warn when they fail (--strict makes them failures)</td></tr>',
    );
  });

  it('counts in its coverage bars the rules this run checked, documented and decided apart', () => {
    expect(html).toContain('4/6 checked in this run (67%)');
    expect(html).toContain('3/5 checked in this run (60%)');
    expect(html).toContain('1/1 checked in this run (100%)');
    expect(html).toContain(
      'The suite has a check for 5 of 6 rules (documented 4/5, decided 1/1; 0 marked untestable).',
    );
    expect(html.indexOf('<h2>Documented rules</h2>')).toBeLessThan(
      html.indexOf('<h2>Decided rules</h2>'),
    );
  });

  it('says what this run checked under the verdict, and why the rest was skipped', () => {
    expect(html).toContain(
      '<p class="headline">4 of 6 rules checked in this run (2 passed, 1 failed, 1 warned, 1 skipped: reasons below); 1 has no check</p>',
    );
    expect(html).toContain(
      '<li>1 check (1 rule left unchecked): needs a webhook receiver the target can reach</li>',
    );
  });

  it('never shows a run with skipped rules as a plain green conformant: 11 passed and 142 skipped', () => {
    const rule = (id: string) => ({
      id,
      section: '4.1',
      sentence: 's',
      source: 'documented' as const,
    });
    const ran = { name: 'n', file: 'f', rules: [], state: 'passed' as const, errors: [] };
    const skip = { ...ran, state: 'skipped' as const, skipReason: 'needs the control plane' };
    const results: RuleResult[] = [
      ...Array.from({ length: 11 }, (_, i) => ({
        rule: rule(`4.1-R${i}`),
        status: 'pass' as const,
        tests: [ran],
      })),
      ...Array.from({ length: 142 }, (_, i) => ({
        rule: rule(`5-R${i}`),
        status: 'skip' as const,
        tests: [skip],
      })),
      ...Array.from({ length: 3 }, (_, i) => ({
        rule: rule(`9-R${i}`),
        status: 'unchecked' as const,
        tests: [],
      })),
    ];
    const page = formatHtmlReport(
      sampleSummary({
        results,
        counts: { pass: 11, fail: 0, warn: 0, skip: 142, harness: 0, unchecked: 3 },
        coverage: {
          checked: 153,
          total: 156,
          documented: [153, 156],
          decided: [0, 0],
          untestable: 3,
        },
        problems: [],
        skipped: [{ file: 'f', name: 'n', rules: [], reason: 'needs the control plane' }],
        exitCode: 0,
      }),
      SAMPLE_FACTS,
    );
    expect(page).toContain(
      '<p class="verdict partial">Conformant for the 11 rules checked; 142 skipped</p>',
    );
    expect(page).not.toContain('verdict ok');
    expect(page).toContain('11/156 checked in this run (7%)');
    expect(page).not.toContain('98%');
  });

  it('says nothing was checked, in red, when the run checked nothing', () => {
    const page = formatHtmlReport(
      sampleSummary({ nothingChecked: 'no check was found', exitCode: 1 }),
      SAMPLE_FACTS,
    );
    expect(page).toContain(
      '<p class="verdict bad">NOT conformant: nothing was checked (no check was found)</p>',
    );
  });

  it('shows green only when nothing was skipped', () => {
    const clean = formatHtmlReport(
      sampleSummary({
        results: sampleSummary().results.filter((r) => r.status === 'pass'),
        counts: { pass: 2, fail: 0, warn: 0, skip: 0, harness: 0, unchecked: 0 },
        problems: [],
        skipped: [],
        exitCode: 0,
      }),
      SAMPLE_FACTS,
    );
    expect(clean).toContain('<p class="verdict ok">Conformant for every checked rule</p>');
  });

  it('lists failures and warnings in full, and skipped checks with the reason', () => {
    expect(html).toContain('<h2>Failures and warnings</h2>');
    expect(html).toContain('expected 400, got 200');
    expect(html).toContain('expected 404, got 403');
    expect(html).toContain('<h2>Skipped checks</h2>');
    expect(html).toContain('<td>needs a webhook receiver the target can reach</td>');
  });

  it('gives each rule a row with its status', () => {
    expect(html).toContain(
      '<tr><td><span class="badge skip">SKIP</span></td><td class="id">6.2-R1</td><td>Sentence of 6.2-R1.</td><td class="note">skipped: needs a webhook receiver the target can reach</td></tr>',
    );
    expect(html).toContain('<td class="note">no check yet</td>');
    expect(html).toContain('<span class="badge warn">WARN</span></td><td class="id">D-2</td>');
  });

  it('says certified, or lists why not, under --profile certify', () => {
    const clean = sampleSummary();
    const certified = formatHtmlReport(
      {
        ...clean,
        results: clean.results.filter((r) => r.status === 'pass'),
        counts: { pass: 2, fail: 0, warn: 0, skip: 0, harness: 0, unchecked: 0 },
        exitCode: 0,
        problems: [],
      },
      { ...SAMPLE_FACTS, profile: 'certify' },
    );
    expect(certified).toContain(
      'Certified: every checked rule passed, nothing skipped, no warning',
    );
    const warned = formatHtmlReport(sampleSummary({ exitCode: 0, problems: [] }), {
      ...SAMPLE_FACTS,
      profile: 'certify',
    });
    expect(warned).toContain(
      'Certified: every documented rule passed, nothing skipped; 1 warning on decided rules (--strict makes them failures)',
    );
    const refused = formatHtmlReport(sampleSummary({ refusals: ['skipped a "b": <c>'] }), {
      ...SAMPLE_FACTS,
      profile: 'certify',
    });
    expect(refused).toContain('<h2>Not certified</h2>');
    expect(refused).toContain('<li>skipped a &quot;b&quot;: &lt;c&gt;</li>');
  });
});

describe('formatHtmlReport: rules that need the harness (issue 15 item 5)', () => {
  const certify = { ...SAMPLE_FACTS, profile: 'certify' as const };

  it('shows a certified run that left rules to the harness in amber, saying how many', () => {
    const page = formatHtmlReport(certifiedSummary(), certify);
    expect(page).toContain(
      '<p class="verdict partial">Certified through the API: every checked rule passed, nothing skipped but 1 rule that needs the harness (clock), no warning</p>',
    );
  });

  it('gives the rule a HARN badge and its reason, and lists it under Needs the harness', () => {
    const page = formatHtmlReport(withHarnessRule(sampleSummary()), certify);
    expect(page).toContain(
      '<tr><td><span class="badge harness">HARN</span></td><td class="id">6.4-R3</td><td>Sentence of 6.4-R3.</td><td class="note">needs the harness: clock</td></tr>',
    );
    expect(page).toContain('<h2>Needs the harness</h2>');
    expect(page).toContain(
      '<tr><td class="id">6.4-R3</td><td>Sentence of 6.4-R3.</td><td>needs the harness: clock</td></tr>',
    );
    expect(page).toContain('<span class="badge harness">HARN</span> 1 need the harness');
    expect(page).toContain(
      '<p class="verdict bad">NOT conformant; 1 rule that needs the harness (clock)</p>',
    );
  });
});

import { describe, expect, it } from 'vitest';
import { formatHtmlReport } from './report-html.ts';
import { SAMPLE_FACTS, TRICKY_SENTENCE, sampleSummary } from './report-sample.ts';

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
    expect(html).toContain('<tr><th>Decided rules</th><td>warn when they fail</td></tr>');
  });

  it('shows coverage, documented and decided apart', () => {
    expect(html).toContain('5/6 have a check (83%)');
    expect(html).toContain('4/5 have a check (80%)');
    expect(html).toContain('1/1 have a check (100%)');
    expect(html.indexOf('<h2>Documented rules</h2>')).toBeLessThan(
      html.indexOf('<h2>Decided rules</h2>'),
    );
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
    const certified = formatHtmlReport(sampleSummary({ exitCode: 0, problems: [] }), {
      ...SAMPLE_FACTS,
      profile: 'certify',
    });
    expect(certified).toContain(
      'Certified: every checked rule passed, nothing skipped, no warning',
    );
    const refused = formatHtmlReport(sampleSummary({ refusals: ['skipped a "b": <c>'] }), {
      ...SAMPLE_FACTS,
      profile: 'certify',
    });
    expect(refused).toContain('<h2>Not certified</h2>');
    expect(refused).toContain('<li>skipped a &quot;b&quot;: &lt;c&gt;</li>');
  });
});

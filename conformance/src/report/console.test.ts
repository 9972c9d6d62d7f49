import { describe, expect, it } from 'vitest';
import { closingLines, formatConsoleReport, type RunFacts } from './console.ts';
import { certifiedSummary, withHarnessRule } from './sample.ts';
import type { Rule } from '../contract/rules.ts';
import type { RuleResult, RuleStatus, Summary, TestOutcome } from './summary.ts';

const FACTS: RunFacts = { target: 'the emulator', seed: 42, numRuns: 50, durationMs: 1234 };

function rule(id: string, section: string, source: Rule['source'] = 'documented'): Rule {
  return { id, section, sentence: `Sentence of ${id}.`, source };
}

function test(state: TestOutcome['state'], extra: Partial<TestOutcome> = {}): TestOutcome {
  return {
    name: `a ${state} test`,
    file: 'conformance/checks/a.check.ts',
    rules: [],
    state,
    errors: [],
    ...extra,
  };
}

/** A rule's result; each test names the rule, as summarize() attaches only tests that do. */
function result(r: Rule, status: RuleStatus, tests: TestOutcome[]): RuleResult {
  for (const t of tests) if (!t.rules.includes(r.id)) t.rules.push(r.id);
  return { rule: r, status, tests };
}

/** A summary built by hand, so the report is judged apart from summarize(). */
function summary(results: RuleResult[], overrides: Partial<Summary> = {}): Summary {
  const counts: Record<RuleStatus, number> = {
    pass: 0,
    fail: 0,
    warn: 0,
    skip: 0,
    harness: 0,
    unchecked: 0,
  };
  for (const r of results) counts[r.status] += 1;
  return {
    results,
    counts,
    coverage: { checked: 0, total: 0, documented: [0, 0], decided: [0, 0], untestable: 0 },
    problems: [],
    skipped: [],
    uncharged: [],
    refusals: [],
    warnings: [],
    exitCode: 0,
    ...overrides,
  };
}

function lines(text: string): string[] {
  return text.split('\n');
}

describe('formatConsoleReport', () => {
  it('opens with the target, seed and number of runs', () => {
    const report = formatConsoleReport(summary([]), FACTS);
    expect(lines(report)[0]).toBe(
      'mailtwin conformance against the emulator (seed 42, 50 runs per property)',
    );
  });

  it('prints a PASS line with the rule id, sentence and number of checks', () => {
    const report = formatConsoleReport(
      summary([result(rule('1-R1', '1'), 'pass', [test('passed'), test('passed')])]),
      FACTS,
    );
    expect(lines(report)).toContain('  PASS 1-R1     Sentence of 1-R1.  (2 checks)');
  });

  it('prints a FAIL line and, below, the failure text of each failed test', () => {
    const failed = test('failed', {
      file: 'conformance/checks/mailboxes.check.ts',
      errors: ['expected 200, got 500\n  replay: curl -i -X GET x'],
    });
    const report = formatConsoleReport(
      summary([result(rule('4.1-R1', '4.1'), 'fail', [test('passed'), failed])], { exitCode: 1 }),
      FACTS,
    );
    const out = lines(report);
    expect(out).toContain('  FAIL 4.1-R1   Sentence of 4.1-R1.  (2 checks)');
    const at = out.indexOf('FAIL 4.1-R1 in conformance/checks/mailboxes.check.ts');
    expect(at).toBeGreaterThan(0);
    expect(out.slice(at + 1, at + 4)).toEqual([
      '    uncharged (no assertion named its rule): counted against every rule of the check (4.1-R1)',
      '    expected 200, got 500',
      '      replay: curl -i -X GET x',
    ]);
  });

  it('does not list the passed tests of a failed rule among the failures', () => {
    const report = formatConsoleReport(
      summary([
        result(rule('4.1-R1', '4.1'), 'fail', [
          test('passed', { file: 'conformance/checks/passing.check.ts' }),
          test('failed', { errors: ['broken'] }),
        ]),
      ]),
      FACTS,
    );
    expect(report).not.toContain('passing.check.ts');
    expect(lines(report)).toContain('    broken');
  });

  it('lists skipped rules under their reason, the reason once, not a SKIP line per rule', () => {
    const report = formatConsoleReport(
      summary([
        result(rule('6.2-R1', '6.2'), 'skip', [
          test('skipped', { skipReason: 'needs a webhook receiver' }),
          test('skipped', { skipReason: 'needs a webhook receiver' }),
          test('skipped'),
        ]),
        result(rule('6.2-R2', '6.2'), 'skip', [
          test('skipped', { skipReason: 'needs a webhook receiver' }),
          test('skipped'),
        ]),
        result(rule('4.1-R1', '4.1'), 'pass', [test('passed')]),
      ]),
      FACTS,
    );
    const out = lines(report);
    expect(out.filter((l) => l.startsWith('  SKIP '))).toEqual([]);
    expect(out).not.toContain('§6.2'); // no heading over rules all skipped
    const at = out.indexOf('Skipped: 2 rules no check verified in this run, by reason:');
    expect(at).toBeGreaterThan(0);
    expect(out.slice(at + 1, at + 3)).toEqual([
      '  needs a webhook receiver; skipped (2 rules):',
      '    6.2-R1 6.2-R2',
    ]);
    expect(out.filter((l) => l.includes('needs a webhook receiver'))).toHaveLength(1);
  });

  it('wraps a long list of skipped rule ids at 100 columns', () => {
    const ids = Array.from({ length: 40 }, (_, i) => `4.3-R${i + 1}`);
    const report = formatConsoleReport(
      summary(
        ids.map((id) => result(rule(id, '4.3'), 'skip', [test('skipped', { skipReason: 'why' })])),
      ),
      FACTS,
    );
    const out = lines(report);
    const at = out.indexOf('  why (40 rules):');
    const idLines = out.slice(at + 1).filter((l) => /^ {4}4\.3-R/.test(l));
    expect(idLines.length).toBeGreaterThan(2);
    expect(idLines.every((l) => l.length <= 100)).toBe(true);
    expect(idLines.join(' ').trim().split(/\s+/)).toEqual(ids);
  });

  it('ends with the Result line, the verdict last', () => {
    const report = formatConsoleReport(
      summary([
        result(rule('4.1-R1', '4.1'), 'pass', [test('passed')]),
        result(rule('6.2-R1', '6.2'), 'skip', [test('skipped', { skipReason: 'why' })]),
      ]),
      FACTS,
    );
    expect(lines(report.trimEnd()).at(-1)).toMatch(/^Result: /);
  });

  it('escapes the control characters a failure quotes, so the log stays text (issue 27 item 11)', () => {
    const report = formatConsoleReport(
      summary([
        result(rule('4.10-R1', '4.10'), 'fail', [
          test('failed', {
            errors: ['expected "a\u0000b\u001b[2Jc\u001b]0;t\u0007\r" to be "abc"\n\tat line 2'],
          }),
        ]),
      ]),
      FACTS,
    );
    expect(report).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f]/);
    expect(report).toContain('expected "a\\x00bc\\x1b]0;t\\x07\\r" to be "abc"');
    expect(lines(report)).toContain('    \tat line 2');
  });

  it('prints a rule without a check with dashes and no detail', () => {
    const report = formatConsoleReport(
      summary([result(rule('9-R1', '9'), 'unchecked', [])]),
      FACTS,
    );
    expect(lines(report)).toContain('  ---- 9-R1     Sentence of 9-R1.');
  });

  it('groups documented rules under their section and decided rules under one heading', () => {
    const report = formatConsoleReport(
      summary([
        result(rule('1-R1', '1'), 'pass', [test('passed')]),
        result(rule('1-R2', '1'), 'pass', [test('passed')]),
        result(rule('2.1-R1', '2.1'), 'pass', [test('passed')]),
        result(rule('D-2', '4.1', 'decided'), 'warn', [test('failed', { errors: ['drift'] })]),
      ]),
      FACTS,
    );
    expect(lines(report).slice(2, 9)).toEqual([
      '§1',
      '  PASS 1-R1     Sentence of 1-R1.  (1 check)',
      '  PASS 1-R2     Sentence of 1-R2.  (1 check)',
      '§2.1',
      '  PASS 2.1-R1   Sentence of 2.1-R1.  (1 check)',
      'Decided (spec/DECISIONS.md)',
      '  WARN D-2      Sentence of D-2.  (1 check)',
    ]);
    expect(lines(report)).toContain('WARN D-2 in conformance/checks/a.check.ts');
  });

  it('shortens a long sentence to 88 characters with an ellipsis', () => {
    const long: Rule = { ...rule('1-R1', '1'), sentence: 'x'.repeat(100) };
    const report = formatConsoleReport(summary([result(long, 'unchecked', [])]), FACTS);
    expect(lines(report)).toContain(`  ---- 1-R1     ${'x'.repeat(87)}…`);
  });

  it('prints the counts and the coverage line', () => {
    const report = formatConsoleReport(
      summary(
        [
          result(rule('1-R1', '1'), 'pass', [test('passed')]),
          result(rule('1-R2', '1'), 'skip', [test('skipped')]),
          result(rule('1-R3', '1'), 'unchecked', []),
        ],
        { coverage: { checked: 7, total: 10, documented: [5, 6], decided: [2, 4], untestable: 1 } },
      ),
      FACTS,
    );
    const out = lines(report);
    expect(out).toContain('Rules: 1 passed, 0 failed, 0 warnings, 1 skipped, 1 without a check');
    expect(out).toContain(
      'Coverage: 7/10 rules have a check (documented 5/6, decided 2/4; 1 marked untestable)',
    );
    expect(out).toContain('Time: 1.2 s');
  });

  it('starts the closing lines with how many rules of the catalogue this run checked', () => {
    const lines = closingLines(
      summary([
        result(rule('1-R1', '1'), 'pass', [test('passed')]),
        result(rule('1-R2', '1'), 'fail', [test('failed')]),
        result(rule('D-1', '4.1', 'decided'), 'warn', [test('failed')]),
        result(rule('1-R3', '1'), 'skip', [test('skipped', { skipReason: 'needs a second key' })]),
        result(rule('1-R4', '1'), 'unchecked', []),
      ]),
      FACTS,
    );
    expect(lines[0]).toBe(
      '3 of 5 rules checked in this run (1 passed, 1 failed, 1 warned, 1 skipped: reasons below); 1 has no check',
    );
  });

  it('lists below the headline why checks were skipped, with the checks and rules each reason accounts for', () => {
    const control = test('skipped', { skipReason: 'needs the control plane' });
    const lines = closingLines(
      summary(
        [
          result(rule('1-R1', '1'), 'pass', [test('passed')]),
          result(rule('1-R2', '1'), 'skip', [control]),
          result(rule('1-R3', '1'), 'skip', [control]),
          result(rule('1-R4', '1'), 'skip', [
            test('skipped', { skipReason: 'not selected by --filter' }),
          ]),
        ],
        {
          skipped: [
            { file: 'a', name: 'x', rules: ['1-R2', '1-R3'], reason: 'needs the control plane' },
            { file: 'a', name: 'y', rules: ['1-R4'], reason: 'not selected by --filter' },
          ],
        },
      ),
      FACTS,
    );
    expect(lines.slice(0, 4)).toEqual([
      '1 of 4 rules checked in this run (1 passed, 0 failed, 0 warned, 3 skipped: reasons below)',
      'Skipped, by reason:',
      '  1 check (2 rules left unchecked): needs the control plane',
      '  1 check (1 rule left unchecked): not selected by --filter',
    ]);
    expect(lines).toContain('Skipped checks: 2 (reasons above)');
  });

  it('says conformant only for the rules checked when rules were skipped, and keeps Result last', () => {
    const lines = closingLines(
      summary([
        result(rule('1-R1', '1'), 'pass', [test('passed')]),
        result(rule('1-R2', '1'), 'skip', [test('skipped')]),
        result(rule('1-R3', '1'), 'skip', [test('skipped')]),
      ]),
      FACTS,
    );
    expect(lines.at(-1)).toBe('Result: conformant for the 1 rule checked; 2 skipped');
    expect(lines).toContain('Rules: 1 passed, 0 failed, 0 warnings, 2 skipped, 0 without a check');
  });

  it('says nothing was checked, and why, when the run checked nothing', () => {
    const lines = closingLines(
      summary([result(rule('1-R1', '1'), 'skip', [test('skipped')])], {
        nothingChecked: '--filter "zzz" selected no check',
        exitCode: 1,
      }),
      FACTS,
    );
    expect(lines[0]).toBe(
      '0 of 1 rules checked in this run (0 passed, 0 failed, 0 warned, 1 skipped: reasons below)',
    );
    expect(lines.at(-1)).toBe(
      'Result: NOT conformant: nothing was checked (--filter "zzz" selected no check)',
    );
  });

  it('prints no reasons when nothing was skipped', () => {
    const lines = closingLines(
      summary([result(rule('1-R1', '1'), 'pass', [test('passed')])]),
      FACTS,
    );
    expect(lines[0]).toBe(
      '1 of 1 rules checked in this run (1 passed, 0 failed, 0 warned, 0 skipped)',
    );
    expect(lines).not.toContain('Skipped, by reason:');
  });

  it('says in the closing lines, all a run prints without --report console, that the suite had problems', () => {
    const lines = closingLines(
      summary([], {
        problems: [
          'checks/b.check.ts did not load: boom\n  at line 2',
          'checks/c.check.ts did not run',
        ],
        exitCode: 1,
      }),
      FACTS,
    );
    expect(lines).toContain(
      'Problems with the suite itself: 2 (the first: checks/b.check.ts did not load: boom; --report console or json lists them all)',
    );
    expect(lines.at(-1)).toBe('Result: NOT conformant');
  });

  it('lists the problems with the suite itself', () => {
    const report = formatConsoleReport(
      summary([], { problems: ['x.check.ts did not load: boom'], exitCode: 1 }),
      FACTS,
    );
    const out = lines(report);
    const at = out.indexOf('Problems with the suite itself:');
    expect(at).toBeGreaterThan(0);
    expect(out[at + 1]).toBe('  x.check.ts did not load: boom');
  });

  it("ends with 'Result: NOT conformant' when the exit code is 1", () => {
    const report = formatConsoleReport(summary([], { exitCode: 1 }), FACTS);
    expect(report.endsWith('Result: NOT conformant\n')).toBe(true);
    expect(report).not.toContain('Result: conformant');
  });

  it('ends with the conformant result when the exit code is 0', () => {
    const report = formatConsoleReport(summary([], { exitCode: 0 }), FACTS);
    expect(report.endsWith('Result: conformant for every checked rule\n')).toBe(true);
    expect(report).not.toContain('NOT conformant');
  });

  it('prints no failures section when nothing failed', () => {
    const report = formatConsoleReport(
      summary([result(rule('1-R1', '1'), 'pass', [test('passed')])]),
      FACTS,
    );
    expect(report).not.toContain('Failures');
  });

  it('ends with the run figures: requests sent, generated cases and time', () => {
    const out = lines(formatConsoleReport(summary([]), { ...FACTS, requests: 12345, cases: 250 }));
    const at = out.indexOf('Requests: 12,345 sent');
    expect(at).toBeGreaterThan(0);
    expect(out.slice(at, at + 3)).toEqual([
      'Requests: 12,345 sent',
      'Generated cases: 250 (fast-check runs)',
      'Time: 1.2 s',
    ]);
  });

  it('says how many files a live run left on the target, which no endpoint deletes', () => {
    const uploadsLeft = [
      { id: 'att_1', name: 'a.txt', size: 3, check: 'stores any upload' },
      { id: 'att_2', check: 'stores any upload' },
    ];
    const live = { ...FACTS, targetKind: 'live' as const, requests: 10, cases: 0, uploadsLeft };
    expect(lines(formatConsoleReport(summary([]), live))).toContain(
      'Uploads left: 2 files stored on the target, which no endpoint deletes (§4.9); ids in report.json (figures.uploadsLeft)',
    );
    const none = lines(formatConsoleReport(summary([]), { ...live, uploadsLeft: [] }));
    expect(none.some((line) => line.startsWith('Uploads left'))).toBe(false);
  });

  it('names a profile other than full, strictness and the shard in the first line', () => {
    expect(lines(formatConsoleReport(summary([]), { ...FACTS, profile: 'full' }))[0]).toBe(
      'mailtwin conformance against the emulator (seed 42, 50 runs per property)',
    );
    expect(
      lines(
        formatConsoleReport(summary([]), {
          ...FACTS,
          profile: 'quick',
          strict: true,
          shard: '2/3',
        }),
      )[0],
    ).toBe(
      'mailtwin conformance against the emulator (profile quick, seed 42, 50 runs per property, strict, shard 2/3)',
    );
  });

  it('says the coverage of a shard is its own', () => {
    expect(formatConsoleReport(summary([]), { ...FACTS, shard: '1/2' })).toContain(
      "Shard: 1/2; rules checked only by other shards' files show as without a check",
    );
  });

  it('lists what certify refused, and says certified when nothing was', () => {
    const refused = lines(
      formatConsoleReport(
        summary([], { refusals: ['skipped a.check.ts "x": needs y'], exitCode: 1 }),
        { ...FACTS, profile: 'certify' },
      ),
    );
    const at = refused.findIndex((l) => l.startsWith('Not certified'));
    expect(refused[at]).toBe(
      'Not certified: --profile certify allows no skipped check (but one that needs the harness) and no rule left unverified, and found 1:',
    );
    expect(refused[at + 1]).toBe('  skipped a.check.ts "x": needs y');
    expect(refused.at(-2)).toBe(
      'Result: NOT certified: no rule failed, but 1 skip(s) or unverified rule(s)',
    );
    const certified = formatConsoleReport(summary([]), { ...FACTS, profile: 'certify' });
    expect(
      certified.endsWith(
        'Result: certified: every checked rule passed, nothing skipped, no warning\n',
      ),
    ).toBe(true);
  });

  it('under certify, lists decided-rule warnings in the verdict and stays certified', () => {
    const drift = test('failed', { chargedRules: ['D-2'], errors: ['drift'] });
    const report = formatConsoleReport(
      summary([
        result(rule('1-R1', '1'), 'pass', [test('passed')]),
        result(rule('D-2', '4.1', 'decided'), 'warn', [drift]),
      ]),
      { ...FACTS, profile: 'certify' },
    );
    expect(
      report.endsWith(
        'Result: certified: every documented rule passed, nothing skipped; 1 warning on decided rules (D-2; --strict makes them failures)\n',
      ),
    ).toBe(true);
    expect(lines(report)).toContain('WARN D-2 in conformance/checks/a.check.ts');
    expect(lines(report)).toContain('    charged to D-2');
  });
});

describe('failures charged to one rule (issue 14 item 2)', () => {
  it('lists a failed check under the rule it was charged to only, naming the rules it did not reach', () => {
    const replies = test('failed', {
      name: 'replies',
      rules: ['4.7-R1', 'D-22'],
      chargedRules: ['D-22'],
      errors: ['subject drift'],
    });
    const report = formatConsoleReport(
      summary([
        result(rule('4.7-R1', '4.7'), 'skip', [replies]),
        result(rule('D-22', '4.7', 'decided'), 'warn', [replies]),
      ]),
      FACTS,
    );
    const out = lines(report);
    expect(out).toContain('  not reached: its check "replies" failed on D-22 first (1 rule):');
    expect(
      out[out.indexOf('  not reached: its check "replies" failed on D-22 first (1 rule):') + 1],
    ).toBe('    4.7-R1');
    const at = out.indexOf('WARN D-22 in conformance/checks/a.check.ts');
    expect(at).toBeGreaterThan(0);
    expect(out[at + 1]).toBe('    charged to D-22; not reached: 4.7-R1');
    expect(report).not.toContain('FAIL 4.7-R1');
    expect(report).toContain(
      '  1 check (1 rule left unchecked): not reached: its check "replies" failed on D-22 first',
    );
  });

  it('lists failures that named no rule apart, with the rules each was charged to', () => {
    const crash = test('failed', {
      name: 'crashes',
      rules: ['1-R1', '1-R2'],
      errors: ['ECONNRESET'],
    });
    const report = formatConsoleReport(
      summary(
        [result(rule('1-R1', '1'), 'fail', [crash]), result(rule('1-R2', '1'), 'fail', [crash])],
        {
          uncharged: [{ file: crash.file, name: 'crashes', rules: ['1-R1', '1-R2'] }],
          exitCode: 1,
        },
      ),
      FACTS,
    );
    expect(lines(report)).toContain('FAIL 1-R1, FAIL 1-R2 in conformance/checks/a.check.ts');
    expect(report).toContain('Uncharged failures: 1 failed check(s) named no rule');
    expect(lines(report)).toContain('  conformance/checks/a.check.ts "crashes": 1-R1, 1-R2');
  });
});

describe('certify on an API world: rules that need the harness (issue 15 item 5)', () => {
  const CERTIFY: RunFacts = { ...FACTS, profile: 'certify' };

  it('lists a rule left to the harness under what it needs, not as a HARN line of its section', () => {
    const report = lines(formatConsoleReport(certifiedSummary(), CERTIFY));
    expect(report.filter((l) => l.startsWith('  HARN '))).toEqual([]);
    expect(report).toContain('  needs the harness: clock: 6.4-R3');
  });

  it('lists the rules left to the harness by need, and counts them on the Rules line', () => {
    const report = lines(formatConsoleReport(certifiedSummary(), CERTIFY));
    const at = report.findIndex((l) => l.startsWith('Needs the harness:'));
    expect(report[at]).toBe(
      'Needs the harness: 1 rule left unchecked only because their checks need what no API gives, only a control plane (the test harness); --profile certify lists them instead of failing:',
    );
    expect(report[at + 1]).toBe('  needs the harness: clock: 6.4-R3');
    expect(report).toContain(
      'Rules: 2 passed, 0 failed, 0 warnings, 0 skipped, 0 without a check, 1 need the harness',
    );
    expect(report).toContain(
      '  1 check (1 rule left to the harness): needs a clock the suite can move, which only a control plane offers',
    );
  });

  it('says in the certify verdict how many rules need the harness, and what they need', () => {
    const report = formatConsoleReport(certifiedSummary(), CERTIFY);
    expect(
      report.endsWith(
        'Result: certified through the API: every checked rule passed, nothing skipped but 1 rule that needs the harness (clock), no warning\n',
      ),
    ).toBe(true);
    const refused = formatConsoleReport(
      { ...certifiedSummary(), refusals: ['skipped a.check.ts "x": needs y'], exitCode: 1 },
      CERTIFY,
    );
    expect(
      refused.endsWith(
        'Result: NOT certified: no rule failed, but 1 skip(s) or unverified rule(s); 1 rule needs the harness (clock)\n',
      ),
    ).toBe(true);
  });

  it('puts the rules that need the harness in the headline', () => {
    const report = lines(formatConsoleReport(withHarnessRule(summary([])), CERTIFY));
    expect(report).toContain(
      '0 of 1 rules checked in this run (0 passed, 0 failed, 0 warned, 0 skipped, 1 need the harness: reasons below)',
    );
  });
});

import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { buildJsonReport, formatJsonReport } from './json.ts';
import {
  SAMPLE_FACTS,
  TRICKY_SENTENCE,
  certifiedSummary,
  sampleSummary,
  withHarnessRule,
} from './sample.ts';
import { packagePath } from '../../../emulator/src/package-root.ts';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
const schema = JSON.parse(
  readFileSync(packagePath('conformance/report.schema.json'), 'utf8'),
) as object;
const validate = addFormats(new Ajv2020({ strict: true, allErrors: true })).compile(schema);

function valid(value: unknown): string[] {
  return validate(value)
    ? []
    : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
}

describe('formatJsonReport', () => {
  const text = formatJsonReport(sampleSummary(), SAMPLE_FACTS);
  const report = JSON.parse(text) as ReturnType<typeof buildJsonReport>;

  it('writes a file that conformance/report.schema.json accepts', () => {
    expect(valid(report)).toEqual([]);
  });

  it('is accepted for a minimal run too (the emulator, no figures, no rule)', () => {
    const empty = buildJsonReport(
      sampleSummary({
        results: [],
        counts: { pass: 0, fail: 0, warn: 0, skip: 0, harness: 0, unchecked: 0 },
        problems: [],
        skipped: [],
        exitCode: 0,
      }),
      { target: 'the emulator', seed: -3, numRuns: 1, durationMs: 0.4 },
    );
    expect(valid(JSON.parse(JSON.stringify(empty)))).toEqual([]);
    expect(empty.run).toMatchObject({ targetKind: null, baseUrl: null, profile: 'full' });
    expect(empty.figures).toMatchObject({ requests: null, generatedCases: null });
  });

  it('is refused by the schema when a rule has an unknown status', () => {
    const broken = structuredClone(report);
    (broken.rules[0] as { status: string }).status = 'maybe';
    expect(valid(broken).join('\n')).toContain('/rules/0/status');
  });

  it('writes a check that verifies two rules once, both rules pointing to it', () => {
    const [first, second] = report.rules;
    expect(first?.checks).toEqual([0]);
    expect(second?.checks).toEqual([0]);
    expect(report.checks[0]).toMatchObject({ rules: ['4.1-R1', '4.2-R1'], state: 'passed' });
    expect(report.checks).toHaveLength(4);
  });

  it('says for each failed check what its failure was charged to and which rules it did not reach', () => {
    const drift = report.checks.find((c) => c.rules.includes('D-2'))!;
    expect(drift).toMatchObject({ charge: 'rule', chargedTo: ['D-2'], notReached: [] });
    expect(report.checks[0]).toMatchObject({ charge: null, chargedTo: null, notReached: [] });
    expect(report.uncharged).toEqual([]);
    const crash = { file: 'c.check.ts', name: 'crashes', rules: ['4.3-R1'] };
    const withUncharged = buildJsonReport(sampleSummary({ uncharged: [crash] }), SAMPLE_FACTS);
    expect(valid(JSON.parse(JSON.stringify(withUncharged)))).toEqual([]);
    expect(withUncharged.uncharged).toEqual([crash]);
  });

  it('keeps documented and decided rules apart in the counts', () => {
    expect(report.bySource).toEqual({
      documented: { pass: 2, fail: 1, warn: 0, skip: 1, harness: 0, unchecked: 1 },
      decided: { pass: 0, fail: 0, warn: 1, skip: 0, harness: 0, unchecked: 0 },
    });
    expect(report.warnings).toEqual([
      { rule: 'D-2', sentence: 'Sentence of D-2.', errors: ['expected 404, got 403'] },
    ]);
  });

  it('carries the run, figures, result, skips and problems', () => {
    expect(report.run).toEqual({
      target: 'https://mail.example.com/openapi/v1',
      targetKind: 'live',
      baseUrl: 'https://mail.example.com/openapi/v1',
      profile: 'full',
      seed: 42,
      numRuns: 50,
      strict: false,
      shard: null,
      startedAt: '2026-01-02T03:04:05.678Z',
      durationMs: 12345,
      binding: null,
    });
    expect(report.figures).toEqual({
      requests: 1234,
      generatedCases: 250,
      // A live target: nothing uploaded in this run, so nothing is left there.
      uploadsLeft: [],
      durationMs: 12345,
      checks: { total: 4, passed: 1, failed: 2, skipped: 1 },
    });
    expect(report.result).toEqual({
      exitCode: 1,
      conformant: false,
      headline:
        '4 of 6 rules checked in this run (2 passed, 1 failed, 1 warned, 1 skipped: reasons below); 1 has no check',
      refusals: [],
    });
    expect(report.skipped[0]?.reason).toBe('needs a webhook receiver the target can reach');
    expect(report.rules.find((r) => r.id === '6.2-R1')?.skipReasons).toEqual([
      'needs a webhook receiver the target can reach',
    ]);
    expect(report.problems).toHaveLength(1);
  });

  it('gives every rule its status, checks, requests, seed and duration', () => {
    const byId = Object.fromEntries(report.rules.map((r) => [r.id, r]));
    expect(byId['4.1-R1']).toMatchObject({
      status: 'pass',
      checks: [0],
      requests: 10,
      seed: 42,
      durationMs: 120,
    });
    expect(byId['6.2-R1']).toMatchObject({ status: 'skip', requests: 0, seed: 42 });
    expect(byId['9-R1']).toMatchObject({
      status: 'unchecked',
      checks: [],
      requests: 0,
      durationMs: 0,
    });
  });

  it('counts the rules this run checked apart from the rules that have a check', () => {
    expect(report.coverage).toMatchObject({
      checked: 5,
      total: 6,
      thisRun: {
        checked: 4,
        skipped: 1,
        unchecked: 1,
        total: 6,
        documented: { checked: 3, total: 5 },
        decided: { checked: 1, total: 1 },
      },
    });
  });

  it('keeps sentences as they are and strips colour codes from failure text', () => {
    expect(report.rules.find((r) => r.id === '4.3-R1')?.sentence).toBe(TRICKY_SENTENCE);
    const errors = report.checks.find((c) => c.state === 'failed')?.errors.join('\n') ?? '';
    expect(errors).toContain('expected 400, got 200');
    expect(errors).not.toContain('\u001b[');
  });
});

describe('formatJsonReport: rules that need the harness (issue 15 item 5)', () => {
  const report = JSON.parse(
    formatJsonReport(withHarnessRule(sampleSummary()), { ...SAMPLE_FACTS, profile: 'certify' }),
  ) as ReturnType<typeof buildJsonReport>;

  it('writes a file the schema accepts, with formatVersion 2', () => {
    expect(valid(report)).toEqual([]);
    expect(report.formatVersion).toBe(2);
    const passed = buildJsonReport(certifiedSummary(), SAMPLE_FACTS);
    expect(valid(JSON.parse(JSON.stringify(passed)))).toEqual([]);
  });

  it('gives the rule status harness, its reason and the needs it lacked', () => {
    expect(report.rules.find((r) => r.id === '6.4-R3')).toMatchObject({
      status: 'harness',
      skipReasons: ['needs the harness: clock'],
      harnessNeeds: ['clock'],
    });
    expect(report.rules.find((r) => r.id === '6.2-R1')?.harnessNeeds).toEqual([]);
  });

  it('counts the rules that need the harness, and marks the check skipped for it', () => {
    expect(report.counts.harness).toBe(1);
    expect(report.bySource.documented.harness).toBe(1);
    expect(report.coverage.thisRun.harness).toBe(1);
    expect(report.skipped.map((s) => s.harnessNeeds)).toEqual([[], ['clock']]);
  });

  it('is refused by the schema when a harness need is not one only the harness meets', () => {
    const broken = structuredClone(report);
    (broken.rules.at(-1)!.harnessNeeds as string[]) = ['second-key'];
    expect(valid(broken).join('\n')).toContain('/harnessNeeds/0');
  });
});

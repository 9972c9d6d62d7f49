import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { NEEDS, NEED_DESCRIPTIONS, type Need } from '../run/config.ts';
import { formatPlan, planChecks, type CollectedCheck } from './dry-run.ts';
import type { Rule } from '../contract/rules.ts';
import { summarize, type TestOutcome } from '../report/summary.ts';
import { packagePath } from '../../../emulator/src/package-root.ts';

const CHECKS: CollectedCheck[] = [
  { file: 'a.check.ts', name: '1-R1: reads', behaviour: 'reads', rules: ['1-R1'], needs: [] },
  {
    file: 'a.check.ts',
    name: '1-R2: writes',
    behaviour: 'writes',
    rules: ['1-R2'],
    needs: ['provisioning', 'destructive'],
  },
  {
    file: 'b.check.ts',
    name: 'D-2: hooks',
    behaviour: 'hooks',
    rules: ['D-2'],
    needs: ['webhook-receiver'],
  },
];
const RULES: Rule[] = [
  { id: '1-R1', section: '1', sentence: 's', source: 'documented' },
  { id: '1-R2', section: '1', sentence: 's', source: 'documented' },
  { id: 'D-2', section: '4', sentence: 's', source: 'decided' },
];
const ALL = new Set<Need>(NEEDS);
const runs = (plan: ReturnType<typeof planChecks>) => plan.map((c) => c.selection.run);

describe('planChecks', () => {
  it('runs everything on a target that offers everything', () => {
    expect(
      runs(planChecks({ checks: CHECKS, offers: ALL, profile: 'full', filter: undefined })),
    ).toEqual([true, true, true]);
  });

  it('decides as the workers do: profile first, then the target', () => {
    const plan = planChecks({
      checks: CHECKS,
      offers: new Set(['provisioning', 'destructive']),
      profile: 'read-only',
      filter: undefined,
    });
    expect(plan.map((c) => c.selection)).toEqual([
      { run: true },
      {
        run: false,
        reason: 'left out by --profile read-only: it writes through the API (needs destructive)',
      },
      { run: false, reason: `needs ${NEED_DESCRIPTIONS['webhook-receiver']}` },
    ]);
  });

  it('skips what --filter does not name', () => {
    const plan = planChecks({ checks: CHECKS, offers: ALL, profile: 'full', filter: 'hooks' });
    expect(plan.map((c) => c.selection)).toEqual([
      { run: false, reason: 'not selected by --filter' },
      { run: false, reason: 'not selected by --filter' },
      { run: true },
    ]);
  });
});

describe('formatPlan', () => {
  const facts = { target: 'https://x/openapi/v1', seed: 7, numRuns: 50, maxRps: 20 };

  it('lists each check by file with rules, needs and the decision, then the totals', () => {
    const plan = planChecks({
      checks: CHECKS,
      offers: new Set(),
      profile: 'full',
      filter: undefined,
    });
    const text = formatPlan(plan, RULES, [], { ...facts, profile: 'full' });
    expect(text.split('\n')).toEqual(
      expect.arrayContaining([
        'mailtwin-conformance --dry-run: nothing is sent to https://x/openapi/v1',
        'a.check.ts',
        '  RUN  reads',
        '       rules 1-R1; needs nothing',
        '  SKIP writes',
        '       rules 1-R2; needs provisioning, destructive',
        `       skipped: needs ${NEED_DESCRIPTIONS.provisioning}; ${NEED_DESCRIPTIONS.destructive}`,
        'b.check.ts',
        'Checks: 1 would run, 2 would be skipped, of 3 in 2 files',
        'Rules: 1/3 would be checked (documented 1/2, decided 0/1)',
        'Requests sent: 0 (dry run)',
      ]),
    );
    expect(text).toContain('at most 20 requests per second');
    expect(text).not.toContain('Certify would refuse');
  });

  it('warns that certify would refuse a plan with skips', () => {
    const plan = planChecks({
      checks: CHECKS,
      offers: new Set(),
      profile: 'certify',
      filter: undefined,
    });
    expect(formatPlan(plan, RULES, [], { ...facts, profile: 'certify' })).toContain(
      'Certify would refuse: 2 check(s) would be skipped, and --profile certify allows no skip but for what only the harness gives',
    );
  });

  // Issue 27 item 8: the dry run said "Certify would refuse: 27 check(s)" where the same run
  // certified, since certify lets a skip for harness needs alone pass.
  it('predicts what the certify verdict decides: a skip only for harness needs passes, any other is refused', () => {
    const checks: CollectedCheck[] = [
      ...CHECKS,
      {
        file: 'c.check.ts',
        name: '1-R3: clock',
        behaviour: 'clock',
        rules: ['1-R3'],
        needs: ['clock', 'faults'],
      },
    ];
    const rules: Rule[] = [
      ...RULES,
      { id: '1-R3', section: '1', sentence: 's', source: 'documented' },
    ];
    // What an API world with a destructive flag and a receiver offers: no harness need.
    const offers = new Set<Need>(['destructive', 'webhook-receiver', 'mail']);
    const plan = planChecks({ checks, offers, profile: 'certify', filter: undefined });
    expect(plan.map((c) => c.harness)).toEqual([
      undefined,
      ['provisioning'],
      undefined,
      ['clock', 'faults'],
    ]);
    const text = formatPlan(plan, rules, [], { ...facts, profile: 'certify' });
    expect(text).toContain(
      'Certify allows 2 skipped check(s): each lacks only what the harness gives (provisioning, clock, faults), and its rules are listed as needing the harness',
    );
    expect(text).not.toContain('Certify would refuse');
    expect(text).toContain('(certify leaves it to the harness)');
    // The verdict, given the outcomes the run would report, refuses exactly what the plan does.
    const outcomes: TestOutcome[] = plan.map((c) => ({
      name: c.name,
      file: c.file,
      rules: c.rules,
      needs: c.needs,
      errors: [],
      requests: 1,
      ...(c.selection.run
        ? { state: 'passed' as const }
        : { state: 'skipped' as const, skipReason: c.selection.reason }),
    }));
    const verdict = summarize(rules, outcomes, [], { strict: false, noSkips: true, offers });
    expect(verdict.refusals).toEqual([]);
    expect(verdict.exitCode).toBe(0);
    // Without a receiver, the hooks check is refused by both.
    const lacking = new Set<Need>(['destructive', 'mail']);
    const refusedPlan = planChecks({
      checks,
      offers: lacking,
      profile: 'certify',
      filter: undefined,
    });
    expect(formatPlan(refusedPlan, rules, [], { ...facts, profile: 'certify' })).toContain(
      'Certify would refuse: 1 check(s) would be skipped',
    );
    const refusedVerdict = summarize(
      rules,
      refusedPlan.map((c) => ({
        name: c.name,
        file: c.file,
        rules: c.rules,
        needs: c.needs,
        errors: [],
        requests: 1,
        ...(c.selection.run
          ? { state: 'passed' as const }
          : { state: 'skipped' as const, skipReason: c.selection.reason }),
      })),
      [],
      { strict: false, noSkips: true, offers: lacking },
    );
    expect(refusedVerdict.refusals).toEqual([
      `skipped b.check.ts "D-2: hooks": needs ${NEED_DESCRIPTIONS['webhook-receiver']}`,
    ]);
  });
});

/**
 * The dry run's two summary lines, which scripts read (issue 13 item 8): their exact shape, and
 * figures that add up. Returns the figures.
 */
function expectSummaryLines(stdout: string) {
  const checks = /^Checks: (\d+) would run, (\d+) would be skipped, of (\d+) in (\d+) files$/m.exec(
    stdout,
  );
  const rules =
    /^Rules: (\d+)\/(\d+) would be checked \(documented (\d+)\/(\d+), decided (\d+)\/(\d+)\)$/m.exec(
      stdout,
    );
  expect(checks, 'the Checks: line').not.toBeNull();
  expect(rules, 'the Rules: line').not.toBeNull();
  const [run, skipped, total, files] = checks!.slice(1).map(Number) as number[];
  const [checked, all, documented, documentedAll, decided, decidedAll] = rules!
    .slice(1)
    .map(Number) as number[];
  expect(run! + skipped!).toBe(total);
  expect(files).toBeGreaterThan(0);
  expect(documented! + decided!).toBe(checked);
  expect(documentedAll! + decidedAll!).toBe(all);
  expect(checked).toBeLessThanOrEqual(all!);
  const lines = stdout.split('\n');
  expect(lines.indexOf(rules![0]), 'Rules: comes right after Checks:').toBe(
    lines.indexOf(checks![0]) + 1,
  );
  return { run: run!, skipped: skipped!, total: total!, checked: checked!, all: all! };
}

describe("the dry run's two summary lines (read by scripts)", () => {
  it('keeps their wording and order, word for word', () => {
    const plan = planChecks({ checks: CHECKS, offers: ALL, profile: 'full', filter: 'hooks' });
    const text = formatPlan(plan, RULES, [], {
      target: 'https://x/openapi/v1',
      profile: 'full',
      seed: 7,
      numRuns: 50,
      maxRps: null,
    });
    const lines = text.split('\n');
    const at = lines.findIndex((line) => line.startsWith('Checks: '));
    expect(lines.slice(at, at + 2)).toEqual([
      'Checks: 1 would run, 2 would be skipped, of 3 in 2 files',
      'Rules: 1/3 would be checked (documented 0/2, decided 1/1)',
    ]);
    expect(expectSummaryLines(text)).toEqual({ run: 1, skipped: 2, total: 3, checked: 1, all: 3 });
  });
});

describe('mailtwin-conformance --dry-run', () => {
  it('lists the checks of a live target without sending it a single request', async () => {
    const requests: string[] = [];
    const server = createServer((request, response) => {
      requests.push(`${request.method} ${request.url}`);
      response.end('{}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const origin = `http://127.0.0.1:${port}`;
    try {
      const bin = packagePath('bin/mailtwin-conformance.js');
      const child = spawn(
        process.execPath,
        [
          bin,
          '--dry-run',
          '--base-url',
          `${origin}/openapi/v1`,
          '--api-key',
          'sk-dry',
          '--control-url',
          `${origin}/_mailtwin/v1`,
          '--control-token',
          'token',
          '--destructive',
          '--mailbox',
          'box@example.com',
        ],
        { stdio: ['ignore', 'pipe', 'pipe'] },
      );
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
      expect(stderr).toBe('');
      expect(code).toBe(0);
      expect(stdout).toContain(`nothing is sent to ${origin}/openapi/v1`);
      expect(stdout).toContain(`skipped: needs ${NEED_DESCRIPTIONS['webhook-receiver']}`);
      expectSummaryLines(stdout);
      expect(requests).toEqual([]);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  }, 60_000);
});

/**
 * `npm run variants`: shows that the suite is fair to other implementations (issue 14 item 5).
 *
 * Each variant of tests/variants/catalogue.ts changes the emulator on one point the service
 * document leaves open. For each, in its own copy of the repository, the suite runs in process
 * and against a separately started `mailtwin serve` (a live target: --base-url, --api-key,
 * --mailbox, --destructive, --control-url, --control-token from its banner), with --profile
 * quick and a fixed seed, and must:
 * - exit 0 without --strict, with no failed rule, every warning on a decided rule (D-n), and no
 *   documented rule failed (read from report.json, conformance/report.schema.json);
 * - exit 1 with --strict (a decided rule failed: the suite did see the other choice). To save
 *   time the strict run repeats only one check that warned (--filter), the one on the rule the
 *   variant departs from when there is one; --full-strict runs the whole suite strictly instead.
 * Prints one line per variant with the decided rules that warned, writes reports/variants.md
 * (and each run's report.json under reports/variants/), and exits 1 if any variant is judged
 * non-conformant. Slow (a whole quick suite run per target and variant); not part of `npm test`.
 *
 *   npm run variants                         every variant, both targets
 *   npm run variants -- --only V-1,V-3       just these
 *   npm run variants -- --targets in-process in-process only (or: live, api)
 *   npm run variants -- --targets api        against a separate server reached as an API world
 *                                            (issue 15: no control plane, keys by role, a webhook
 *                                            made as a dashboard would, mail arriving 300 ms late)
 *   npm run variants -- --jobs 2             variants run at once, each in its own copy (default 1)
 *   npm run variants -- --seed 7             the suite's seed (default 3, as test:conformance quick)
 *   npm run variants -- --full-strict        the strict run is the whole suite, not one check
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import type { JsonReport } from '../../conformance/src/report/json.ts';
import { makeWorkspace, REPO_ROOT, runChild } from '../mutants/workspace.ts';
import { VARIANTS } from './catalogue.ts';
import { judgeRun, strictFilter, type RunVerdict } from './judge.ts';
import { startApiWorld } from './api-world-target.ts';
import { startLiveTarget } from './live-target.ts';
import { applyVariantTo, type Variant } from './variant.ts';

/** At most this many documented failures are shown under a variant's line (all in the .md). */
const SHOWN_FAILURES = 6;

type TargetName = 'in-process' | 'live' | 'api';

/** How late mail arrives in the API world: a variant must not be failed for a late arrival. */
const API_WORLD_DELAY_MS = 300;

interface TargetOutcome {
  target: TargetName;
  normal: RunVerdict;
  strict: RunVerdict;
  strictExit: number | null;
}

interface VariantOutcome {
  variant: Variant;
  targets: TargetOutcome[];
  /** Problems starting the variant at all (a stale edit, a server that would not start). */
  setup: string[];
  seconds: number;
}

const { values } = parseArgs({
  options: {
    only: { type: 'string' },
    targets: { type: 'string', default: 'in-process,live' },
    jobs: { type: 'string', default: '1' },
    seed: { type: 'string', default: '3' },
    'full-strict': { type: 'boolean', default: false },
  },
});
const jobs = Math.max(1, Number.parseInt(values.jobs, 10) || 1);
const seed = String(Number.parseInt(values.seed, 10) || 3);
const targets = values.targets.split(',').map((t) => t.trim()) as TargetName[];
for (const target of targets) {
  if (target !== 'in-process' && target !== 'live' && target !== 'api')
    throw new Error(`unknown target "${target}": in-process, live or api`);
}
const only = values.only?.split(',').map((id) => id.trim());
const variants = only === undefined ? VARIANTS : VARIANTS.filter((v) => only.includes(v.id));
if (only !== undefined && variants.length !== only.length) {
  const known = new Set(VARIANTS.map((v) => v.id));
  throw new Error(`unknown variant id(s): ${only.filter((id) => !known.has(id)).join(', ')}`);
}

const REPORTS = join(REPO_ROOT, 'reports/variants');
// Only the selected variants' reports are replaced, so runs of other variants may go on alongside.
for (const variant of variants) rmSync(join(REPORTS, variant.id), { recursive: true, force: true });
mkdirSync(REPORTS, { recursive: true });
process.stdout.write(
  `${variants.length} variant(s), targets ${targets.join(' and ')}, --profile quick --seed ${seed}, ${jobs} at a time\n`,
);

const outcomes = await runAll(variants, jobs);
const okCount = outcomes.filter(conformant).length;
const markdown = renderMarkdown(outcomes);
writeFileSync(join(REPO_ROOT, 'reports/variants.md'), markdown);
process.stdout.write(
  `\nVariants judged conformant (warnings on decided rules only, failing under --strict): ${okCount}/${outcomes.length}\n` +
    `Written: ${relative(process.cwd(), join(REPO_ROOT, 'reports/variants.md'))}\n`,
);
process.exitCode = okCount === outcomes.length ? 0 : 1;

function conformant(outcome: VariantOutcome): boolean {
  return (
    outcome.setup.length === 0 &&
    outcome.targets.every((t) => t.normal.problems.length === 0 && t.strict.problems.length === 0)
  );
}

/** Runs the variants `jobs` at a time, each worker in its own copy; results in catalogue order. */
async function runAll(list: readonly Variant[], jobs: number): Promise<VariantOutcome[]> {
  const results = new Array<VariantOutcome>(list.length);
  let next = 0;
  const worker = async () => {
    const workspace = makeWorkspace('mailtwin-variant-');
    try {
      while (next < list.length) {
        const index = next++;
        const outcome = await runVariant(workspace, list[index]!);
        results[index] = outcome;
        process.stdout.write(`${line(outcome)}\n`);
      }
    } finally {
      rmSync(workspace, { recursive: true, force: true });
    }
  };
  await Promise.all(Array.from({ length: Math.min(jobs, list.length) }, worker));
  return results;
}

/** Applies the variant to the copy, runs the suite on every target, strict and not, and mends it. */
async function runVariant(workspace: string, variant: Variant): Promise<VariantOutcome> {
  const started = performance.now();
  const outcome: VariantOutcome = { variant, targets: [], setup: [], seconds: 0 };
  let restore: (() => void) | undefined;
  try {
    restore = applyVariantTo(workspace, variant);
    for (const target of targets) {
      const normal = await runSuite(workspace, variant, target, false);
      if (variant.departsFrom === undefined) {
        // Nothing decided to depart from: any warning is the suite charging an allowed
        // behaviour to a decision, and with none --strict has nothing to fail either.
        outcome.targets.push({
          target,
          normal: normal.verdict,
          strict: noWarningExpected(normal.verdict),
          strictExit: null,
        });
        continue;
      }
      const filter = strictFilter(normal.report, variant.departsFrom);
      // Through the API alone a departure may stay out of sight (ties need mail received at
      // one instant, which only a control plane can make): the API world is judged on never
      // failing a documented rule, and what it could not see is said, not counted against it.
      const unseen =
        unseenOn(normal.report, variant.departsFrom) ??
        (target === 'api' && filter === undefined
          ? 'not seen through the API alone in this run'
          : undefined);
      const strict =
        filter === undefined && !values['full-strict']
          ? { verdict: nothingToFail(unseen), exit: null }
          : await runSuite(
              workspace,
              variant,
              target,
              true,
              values['full-strict'] ? undefined : filter,
            );
      outcome.targets.push({
        target,
        normal: normal.verdict,
        strict: strict.verdict,
        strictExit: strict.exit,
      });
    }
  } catch (error) {
    outcome.setup.push(error instanceof Error ? error.message : String(error));
  } finally {
    restore?.();
    outcome.seconds = (performance.now() - started) / 1000;
  }
  return outcome;
}

/** One suite run against the variant on `target`; a live target is a fresh `mailtwin serve`. */
async function runSuite(
  workspace: string,
  variant: Variant,
  target: TargetName,
  strict: boolean,
  filter?: string,
): Promise<{ verdict: RunVerdict; exit: number | null; report: JsonReport | undefined }> {
  const reportDir = join(REPORTS, variant.id, `${target}${strict ? '-strict' : ''}`);
  mkdirSync(reportDir, { recursive: true });
  const live =
    target === 'live'
      ? await startLiveTarget(workspace)
      : target === 'api'
        ? await startApiWorld(workspace, API_WORLD_DELAY_MS)
        : undefined;
  try {
    const args = [
      join(workspace, 'bin/mailtwin-conformance.js'),
      '--profile',
      'quick',
      '--seed',
      seed,
      '--quiet',
      '--report',
      'console,json',
      '--report-dir',
      reportDir,
      ...(live?.flags ?? []),
      ...(strict ? ['--strict'] : []),
      ...(filter === undefined ? [] : ['--filter', filter]),
    ];
    const { status, stdout, stderr } = await runChild(args, workspace, 20 * 60_000);
    writeFileSync(join(reportDir, 'console.txt'), `${stdout}\n--- stderr ---\n${stderr}`);
    const reportPath = join(reportDir, 'report.json');
    const report = existsSync(reportPath)
      ? (JSON.parse(readFileSync(reportPath, 'utf8')) as JsonReport)
      : undefined;
    return {
      verdict: judgeRun(report, status, strict, `${stdout}\n${stderr}`),
      exit: status,
      report,
    };
  } finally {
    await live?.stop();
  }
}

/**
 * Why the run could not see a departure from `ruleId`: every check of the rule was skipped on
 * this target (a live target offers no loopback webhook receiver, for one), with the reasons.
 */
function unseenOn(report: JsonReport | undefined, ruleId: string): string | undefined {
  const rule = report?.rules.find((r) => r.id === ruleId);
  if (rule === undefined || rule.status !== 'skip') return undefined;
  return rule.skipReasons.join('; ') || 'skipped';
}

/** The strict verdict of a variant that departs from no decision: it must not have warned. */
function noWarningExpected(normal: RunVerdict): RunVerdict {
  return {
    warned: [],
    documentedFailures: [],
    decidedFailures: [],
    problems:
      normal.warned.length === 0
        ? []
        : [
            `warned on ${normal.warned.join(', ')}, though the variant departs from no decision: the document allows it in its own words`,
          ],
  };
}

/**
 * The strict run's verdict when nothing warned: --strict would have nothing to fail. That is
 * the suite's blind spot unless the target could not check the rule at all (`unseen`), which
 * the report says as a skip with its reason, never as a pass.
 */
function nothingToFail(unseen: string | undefined): RunVerdict {
  return {
    warned: [],
    documentedFailures: [],
    decidedFailures: [],
    problems:
      unseen === undefined
        ? [
            'no decided rule warned, so --strict has nothing to fail: the suite did not see the variant',
          ]
        : [],
    ...(unseen === undefined ? {} : { unseen }),
  };
}

/**
 * `ok   V-1   departs D-5   in-process: warned D-5, D-12; strict exit 1 | live: … (4m 3s)`, then,
 * for a variant judged otherwise, one indented line per problem (documented failures first).
 */
function line(outcome: VariantOutcome): string {
  const { variant } = outcome;
  const departs = variant.departsFrom ?? 'none';
  const head = `${conformant(outcome) ? 'ok  ' : 'FAIL'} ${variant.id.padEnd(5)} departs ${departs.padEnd(5)}`;
  const minutes = `${Math.floor(outcome.seconds / 60)}m ${Math.round(outcome.seconds % 60)}s`;
  if (outcome.setup.length > 0)
    return `${head} could not run: ${outcome.setup.join('; ')} (${minutes})`;
  const details: string[] = [];
  const perTarget = outcome.targets.map((t) => {
    const parts = [
      t.normal.warned.length > 0 ? `warned ${t.normal.warned.join(', ')}` : 'no warning',
    ];
    if (variant.departsFrom !== undefined && !t.normal.warned.includes(variant.departsFrom))
      parts.push(`${variant.departsFrom} not warned`);
    const documented = t.normal.documentedFailures.map((f) => f.rule);
    if (documented.length > 0) parts.push(`documented FAILED ${documented.join(', ')}`);
    parts.push(
      variant.departsFrom === undefined
        ? 'no decision departed from, --strict not needed'
        : t.strict.unseen === undefined
          ? `strict exit ${t.strictExit ?? '-'}`
          : `${departs} not checkable here (${t.strict.unseen})`,
    );
    for (const failure of t.normal.documentedFailures.slice(0, SHOWN_FAILURES)) {
      details.push(
        `${t.target} ${failure.rule}: ${(failure.checks[0] ?? 'no failing check named').slice(0, 300)}`,
      );
    }
    if (documented.length > SHOWN_FAILURES)
      details.push(
        `${t.target}: ${documented.length - SHOWN_FAILURES} more documented failures in reports/variants.md`,
      );
    const other = [
      ...t.normal.problems.filter((p) => !p.startsWith('documented rule ')),
      ...t.strict.problems
        .filter((p) => !p.startsWith('documented rule '))
        .map((p) => `strict: ${p}`),
    ];
    for (const problem of other) details.push(`${t.target} ${problem.slice(0, 300)}`);
    return `${t.target}: ${parts.join('; ')}`;
  });
  return [
    `${head} ${perTarget.join(' | ')} (${minutes})`,
    ...details.map((d) => `        ${d}`),
  ].join('\n');
}

function renderMarkdown(list: VariantOutcome[]): string {
  const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
  const md = [
    '# Conformant variants',
    '',
    `Generated by \`npm run variants\` on ${new Date().toISOString()} (--profile quick --seed ${seed}).`,
    '',
    '| Variant | Departs from | Change | Allowed by | Target | Warned (not strict) | --strict exit | Result |',
    '|---|---|---|---|---|---|---|---|',
  ];
  const details: string[] = [];
  for (const outcome of list) {
    const { variant } = outcome;
    const allowed = variant.allowedBy.map((a) => `${a.section} "${a.quote}"`).join(' ');
    const rows = outcome.setup.length > 0 ? [undefined] : outcome.targets;
    for (const t of rows) {
      const problems =
        t === undefined
          ? outcome.setup
          : [...t.normal.problems, ...t.strict.problems.map((p) => `strict: ${p}`)];
      const result =
        problems.length === 0 ? 'conformant' : `NOT conformant: ${problems.length} problem(s)`;
      md.push(
        `| ${variant.id} | ${variant.departsFrom ?? 'none'} | ${cell(variant.change)} | ${cell(allowed)} | ${t?.target ?? '-'} | ${t?.normal.warned.join(', ') ?? ''} | ${t?.strictExit ?? (t?.strict.unseen === undefined ? '' : `not run: ${cell(t.strict.unseen)}`)} | ${result} |`,
      );
      if (problems.length > 0) {
        details.push(
          '',
          `## ${variant.id} ${t?.target ?? ''}`,
          '',
          ...problems.map((p) => `- ${p.replace(/\n/g, ' ')}`),
        );
      }
    }
  }
  return `${[...md, ...details].join('\n')}\n`;
}

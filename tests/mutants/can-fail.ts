/**
 * `npm run can-fail`: shows that every conformance check can fail (issue 8 item 5).
 *
 * A check counts as able to fail when it fails against at least one of:
 * - the Prism mock of the spec (a target that answers with examples and remembers nothing);
 * - a Stryker mutant of the domain or the signer that it killed (reports/mutation/mutation.json,
 *   written by `npm run mutation`; Stryker stops at the first killing test, so this is a lower
 *   bound);
 * - a named mutant of tests/mutants/catalogue.ts: a hand-written bug applied to a copy of the
 *   repository, against which the check it names is run and must fail.
 *
 * Prints one line per check with its evidence, lists the checks with none, writes
 * reports/can-fail.md, and exits 1 when a check has no evidence or a named mutant survives.
 *
 *   npm run can-fail                     everything
 *   npm run can-fail -- --only M-3,M-7   just these named mutants (no mock run)
 *   npm run can-fail -- --no-mock        skip the Prism mock run
 *   npm run can-fail -- --jobs 4         mutants run at once, each in its own copy (default: cores)
 *   npm run can-fail -- --world api      the named mutants only, each against its copy started as
 *                                        a separate server and reached as an API world (issue 15:
 *                                        keys by role, a webhook made as a dashboard would, mail
 *                                        arriving late, no control plane); a mutant whose check
 *                                        needs the control world is counted as not checkable there
 *   npm run can-fail -- --binding <file> the named mutants only, the emulator speaking a renaming
 *                                        binding (issue 26 item 7: the suite's power survives
 *                                        renaming). In process the suite gets --emulator-binding
 *                                        <file>; with --world api the started server gets
 *                                        --binding <file>; either way the suite infers the binding
 *                                        from the document the emulator publishes, and is also
 *                                        given --binding <file> when that document leaves entries
 *                                        ambiguous (an error table with one code for several
 *                                        conditions). A check skipped under the binding is counted
 *                                        as not checkable, with its reason. Writes
 *                                        reports/can-fail-binding-<name>.md (-api-world.md with
 *                                        --world api)
 *   npm run can-fail -- --binding <file> --compare
 *                                        also runs each mutant in the default dialect, in the same
 *                                        copy, and reports the mutants caught there but not under
 *                                        the binding (the power lost to renaming)
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import type { JsonReport } from '../../conformance/src/report/json.ts';
import { ROOT, SPEC, prismMockRunFlags, runConformance, startPrism } from '../prism/harness.ts';
import { CATALOGUE } from './catalogue.ts';
import { mutateTree, type NamedMutant } from './named-mutant.ts';
import {
  defaultEntries,
  hiddenUnder,
  probeBinding,
  serveBindingArgs,
  suiteBindingFlags,
  type BindingRun,
} from './binding-run.ts';
import { startApiWorld, type ApiWorld } from '../variants/api-world-target.ts';
import { makeWorkspace, runChild } from './workspace.ts';

const MUTATION_REPORT = join(ROOT, 'reports/mutation/mutation.json');
const OUTPUT = join(ROOT, 'reports/can-fail.md');
const API_WORLD_OUTPUT = join(ROOT, 'reports/can-fail-api-world.md');

interface Evidence {
  mock?: string;
  stryker?: string;
  named?: string;
}

interface MutantOutcome {
  mutant: NamedMutant;
  caught: boolean;
  /** Its check was skipped: the target offers not what it needs (an API world, a control plane). */
  uncheckable?: boolean;
  detail: string;
  /** With --binding --compare: the same mutant's outcome in the default dialect. */
  baseline?: MutantOutcome;
}

/** How late mail arrives in an API world: enough that no check may assume instant delivery. */
const API_WORLD_DELAY_MS = 300;

const { values } = parseArgs({
  options: {
    only: { type: 'string' },
    'no-mock': { type: 'boolean', default: false },
    jobs: { type: 'string', default: String(availableParallelism()) },
    world: { type: 'string', default: 'control' },
    binding: { type: 'string' },
    compare: { type: 'boolean', default: false },
  },
});
if (values.world !== 'control' && values.world !== 'api')
  throw new Error(`unknown --world "${values.world}": control (in process) or api`);
const apiWorld = values.world === 'api';
if (values.compare && values.binding === undefined)
  throw new Error('--compare compares a --binding run with the default dialect: give --binding');
const binding = values.binding === undefined ? undefined : bindingRun(values.binding);
const DEFAULT_ENTRIES = defaultEntries(ROOT);
const jobs = Math.max(1, Number.parseInt(values.jobs, 10) || 1);
const only = values.only?.split(',').map((id) => id.trim());
const mutants = only === undefined ? CATALOGUE : CATALOGUE.filter((m) => only.includes(m.id));
if (only !== undefined && mutants.length !== only.length) {
  const known = new Set(CATALOGUE.map((m) => m.id));
  throw new Error(`unknown mutant id(s): ${only.filter((id) => !known.has(id)).join(', ')}`);
}

const evidence = new Map<string, Evidence>();
const note = (behaviour: string, kind: keyof Evidence, text: string) => {
  const entry = evidence.get(behaviour) ?? {};
  entry[kind] ??= text;
  evidence.set(behaviour, entry);
};

let allChecks: string[] = [];
if (only === undefined && !values['no-mock'] && !apiWorld && binding === undefined) {
  const mock = await runAgainstPrismMock();
  allChecks = mock.checks.map(behaviourOf);
  for (const check of mock.checks) {
    if (check.state === 'failed') note(behaviourOf(check), 'mock', firstLine(check.errors));
  }
}
if (allChecks.length === 0) allChecks = listChecks();

if (!apiWorld && binding === undefined)
  for (const [behaviour, mutant] of strykerKills()) note(behaviour, 'stryker', mutant);

const outcomes = await runNamedMutants(mutants, jobs);
for (const outcome of outcomes) {
  if (outcome.caught)
    note(
      outcome.mutant.caughtBy,
      'named',
      `${outcome.mutant.id} (${outcome.mutant.rule}): ${outcome.mutant.bug}`,
    );
}

const report = render(allChecks, outcomes, only !== undefined || apiWorld || binding !== undefined);
mkdirSync(join(ROOT, 'reports'), { recursive: true });
const output =
  binding !== undefined
    ? join(ROOT, `reports/can-fail-binding-${binding.name}${apiWorld ? '-api-world' : ''}.md`)
    : apiWorld
      ? API_WORLD_OUTPUT
      : OUTPUT;
writeFileSync(output, report.markdown);
process.stdout.write(`${report.console}\nWritten: ${relative(process.cwd(), output)}\n`);
process.exitCode = report.ok ? 0 : 1;

/** The `--binding` file, and whether the suite is also given it (see binding-run.ts). */
function bindingRun(path: string): BindingRun {
  // npm runs scripts in the package root; a relative path is the user's, from where they typed it.
  const run = probeBinding(path, process.env.INIT_CWD ?? process.cwd(), ROOT);
  if (run.ambiguous.length > 0)
    process.stdout.write(
      `The document published under ${run.name} leaves ${run.ambiguous.join(', ')} ambiguous: the suite gets --binding ${relative(ROOT, run.file)} too.\n`,
    );
  return run;
}

/** The check's behaviour: its name without the rule ids. */
function behaviourOf(check: JsonReport['checks'][number]): string {
  return check.behaviour ?? check.name;
}

/** The first line of a failure that says what went wrong (not the "Rule broken while…" heading). */
function firstLine(errors: string[]): string {
  const lines = (errors[0] ?? '').split('\n').map((line) => line.trim());
  const telling =
    lines.find((line) => /^(AssertionError|[A-Za-z]*Error)\b|expected /.test(line)) ??
    lines.find((line) => line !== '' && !line.startsWith('Rule broken while checking'));
  return (telling ?? lines.find((line) => line !== '') ?? '').slice(0, 200);
}

/** Every check's behaviour, from `mailtwin-conformance --dry-run`. */
function listChecks(): string[] {
  const run = spawnSync(
    process.execPath,
    [join(ROOT, 'bin/mailtwin-conformance.js'), '--dry-run'],
    {
      cwd: ROOT,
      encoding: 'utf8',
    },
  );
  return run.stdout
    .split('\n')
    .filter((line) => /^ {2}(RUN|SKIP) {2}/.test(line))
    .map((line) => line.replace(/^ {2}(RUN|SKIP) {2}/, '').trim());
}

async function runAgainstPrismMock(): Promise<JsonReport> {
  process.stdout.write('Running the suite against prism mock of the spec…\n');
  const prism = await startPrism(['mock', SPEC]);
  try {
    const run = await runConformance([...prismMockRunFlags(prism.url), '--strict']);
    return run.report;
  } finally {
    await prism.stop();
  }
}

/** Check behaviour → the first Stryker mutant it killed, from the last `npm run mutation`. */
function strykerKills(): Map<string, string> {
  const kills = new Map<string, string>();
  if (!existsSync(MUTATION_REPORT)) {
    process.stdout.write(
      `No ${relative(ROOT, MUTATION_REPORT)}: run npm run mutation for Stryker's evidence.\n`,
    );
    return kills;
  }
  const report = JSON.parse(readFileSync(MUTATION_REPORT, 'utf8')) as StrykerReport;
  const checkNames = new Map<string, string>();
  for (const [file, { tests }] of Object.entries(report.testFiles ?? {})) {
    if (!file.startsWith('conformance/checks/')) continue;
    for (const test of tests) checkNames.set(test.id, test.name.replace(/^[^:]*: /, ''));
  }
  for (const [file, { mutants }] of Object.entries(report.files)) {
    for (const mutant of mutants) {
      if (mutant.status !== 'Killed') continue;
      for (const id of mutant.killedBy ?? []) {
        const behaviour = checkNames.get(id);
        if (behaviour !== undefined && !kills.has(behaviour)) {
          kills.set(behaviour, `${mutant.mutatorName} at ${file}:${mutant.location.start.line}`);
        }
      }
    }
  }
  return kills;
}

interface StrykerReport {
  files: Record<
    string,
    {
      mutants: {
        status: string;
        mutatorName: string;
        killedBy?: string[];
        location: { start: { line: number } };
      }[];
    }
  >;
  testFiles?: Record<string, { tests: { id: string; name: string }[] }>;
}

/** Runs the mutants `jobs` at a time, each worker in its own copy; results in catalogue order. */
async function runNamedMutants(
  list: readonly NamedMutant[],
  jobs: number,
): Promise<MutantOutcome[]> {
  const outcomes = new Array<MutantOutcome>(list.length);
  let next = 0;
  const worker = async () => {
    const workspace = makeWorkspace();
    try {
      while (next < list.length) {
        const index = next++;
        const mutant = list[index]!;
        const started = performance.now();
        const outcome = await runOne(workspace, mutant, binding);
        if (values.compare) outcome.baseline = await runOne(workspace, mutant, undefined);
        outcomes[index] = outcome;
        const seconds = ((performance.now() - started) / 1000).toFixed(1);
        const versus =
          outcome.baseline === undefined ? '' : ` (default: ${verdictOf(outcome.baseline).trim()})`;
        process.stdout.write(
          `${verdictOf(outcome)} ${mutant.id} ${mutant.rule} (${seconds} s)${versus} ${outcome.detail}\n`,
        );
      }
    } finally {
      rmSync(workspace, { recursive: true, force: true });
    }
  };
  await Promise.all(Array.from({ length: Math.min(jobs, list.length) }, worker));
  return outcomes;
}

function verdictOf(outcome: MutantOutcome): string {
  return outcome.caught ? 'caught  ' : outcome.uncheckable ? 'n/a     ' : 'SURVIVED';
}

/**
 * Breaks the copy, runs the one check that must catch it, and mends the copy again; with
 * `dialect`, the emulator speaks that binding and the suite checks it through what it publishes.
 */
async function runOne(
  workspace: string,
  mutant: NamedMutant,
  dialect: BindingRun | undefined,
): Promise<MutantOutcome> {
  const hidden = hiddenUnder(mutant, dialect, DEFAULT_ENTRIES);
  if (hidden !== undefined)
    return {
      mutant,
      caught: false,
      uncheckable: true,
      detail: `not checkable under ${dialect!.name}: ${hidden}`,
    };
  // The file the mutant's code is in now: its own, or where that code moved (anchor.ts).
  const { file, original, mutated } = mutateTree(workspace, mutant);
  const path = join(workspace, file);
  writeFileSync(path, mutated);
  const reportDir = mkdtempSync(join(tmpdir(), 'mailtwin-mutant-report-'));
  let target: ApiWorld | undefined;
  try {
    target = apiWorld
      ? await startApiWorld(workspace, API_WORLD_DELAY_MS, serveBindingArgs(dialect))
      : undefined;
    const { status, stderr } = await runChild(
      [
        join(workspace, 'bin/mailtwin-conformance.js'),
        ...(target?.flags ?? []),
        ...suiteBindingFlags(dialect, apiWorld),
        '--filter',
        mutant.caughtBy,
        '--seed',
        '1',
        '--num-runs',
        '10',
        '--report',
        'json',
        '--report-dir',
        reportDir,
      ],
      workspace,
      300_000,
    );
    const reportPath = join(reportDir, 'report.json');
    if (!existsSync(reportPath)) {
      // In an API world the preflight tries every key by role before any check: a key that
      // should be refused and is not stops the run (exit 2), so the target is never certified.
      const refusedRun =
        apiWorld && status === 2 && /is not refused|with JSON that is not/.test(stderr);
      return {
        mutant,
        caught: refusedRun,
        detail: refusedRun
          ? `the preflight stopped the run: ${stderr.trim().split('\n').pop()!.slice(0, 300)}`
          : `no report (exit ${status}): ${stderr.slice(-600)}`,
      };
    }
    const report = JSON.parse(readFileSync(reportPath, 'utf8')) as JsonReport;
    const check = report.checks.find((c) => behaviourOf(c) === mutant.caughtBy);
    if (check === undefined) {
      return { mutant, caught: false, detail: `no check is named "${mutant.caughtBy}"` };
    }
    if (check.state === 'failed') return { mutant, caught: true, detail: firstLine(check.errors) };
    if (check.state === 'skipped' && (apiWorld || dialect !== undefined))
      return {
        mutant,
        caught: false,
        uncheckable: true,
        detail: `not checkable ${apiWorld ? 'in an API world' : ''}${apiWorld && dialect ? ' ' : ''}${dialect ? `under ${dialect.name}` : ''}: ${check.skipReason ?? 'skipped'}`,
      };
    return {
      mutant,
      caught: false,
      detail: `"${mutant.caughtBy}" ${check.state} against the mutant`,
    };
  } catch (error) {
    return { mutant, caught: false, detail: `could not run: ${(error as Error).message}` };
  } finally {
    await target?.stop();
    writeFileSync(path, original);
    rmSync(reportDir, { recursive: true, force: true });
  }
}

function render(checks: string[], outcomes: MutantOutcome[], partial: boolean) {
  const lines: string[] = [];
  const md: string[] = [
    binding === undefined
      ? '# Every check can fail'
      : `# Named mutants under the binding ${binding.name}`,
    '',
    `Generated by \`npm run can-fail\` on ${new Date().toISOString()}.`,
    '',
  ];
  if (binding !== undefined)
    md.push(
      `The emulator speaks \`${relative(ROOT, binding.file)}\` (${apiWorld ? 'mailtwin serve --binding, reached as an API world' : 'in process, --emulator-binding'}); ` +
        (binding.ambiguous.length === 0
          ? 'the suite inferred the binding from the document it publishes.'
          : `the document it publishes leaves ${binding.ambiguous.join(', ')} ambiguous, so the suite was also given --binding.`),
      '',
    );
  const unproven: string[] = [];
  if (!partial) {
    md.push(
      '| Check | Fails against the Prism mock | Kills a Stryker mutant | Catches a named mutant |',
      '|---|---|---|---|',
    );
    for (const behaviour of checks) {
      const found = evidence.get(behaviour) ?? {};
      const proven =
        found.mock !== undefined || found.stryker !== undefined || found.named !== undefined;
      if (!proven) unproven.push(behaviour);
      const cell = (text?: string) => (text ?? '').replace(/\|/g, '\\|');
      md.push(
        `| ${cell(behaviour)} | ${cell(found.mock)} | ${cell(found.stryker)} | ${cell(found.named)} |`,
      );
      const how = [found.mock && 'mock', found.stryker && 'stryker', found.named && 'named']
        .filter(Boolean)
        .join('+');
      lines.push(`${proven ? 'can fail' : 'NEITHER '}  ${how.padEnd(19)} ${behaviour}`);
    }
  }
  const survived = outcomes.filter((o) => !o.caught && !o.uncheckable);
  const uncheckable = outcomes.filter((o) => o.uncheckable);
  const compared = outcomes.some((o) => o.baseline !== undefined);
  const result = (o: MutantOutcome) =>
    `${o.caught ? 'caught' : o.uncheckable ? 'not checkable' : 'SURVIVED'}: ${o.detail.replace(/\|/g, '\\|').replace(/\n/g, ' ')}`;
  md.push(
    '',
    '## Named mutants',
    '',
    `| Id | Rule | Bug | Caught by | Result${binding ? ` under ${binding.name}` : ''} |${compared ? ' Result in the default dialect |' : ''}`,
    `|---|---|---|---|---|${compared ? '---|' : ''}`,
  );
  for (const outcome of outcomes) {
    const { mutant, baseline } = outcome;
    md.push(
      `| ${mutant.id} | ${mutant.rule} | ${mutant.bug} | ${mutant.caughtBy} | ${result(outcome)} |${baseline ? ` ${result(baseline)} |` : ''}`,
    );
  }
  const lost = outcomes.filter((o) => o.baseline?.caught === true && !o.caught);
  const baselines = outcomes.flatMap((o) => (o.baseline ? [o.baseline] : []));
  const summary = [
    binding === undefined
      ? undefined
      : `Named mutants under ${binding.name}${apiWorld ? ' in an API world' : ''}: ${outcomes.length - survived.length - uncheckable.length}/${outcomes.length - uncheckable.length} caught of those whose check runs under it (${outcomes.length} run); ${uncheckable.length} not checkable${uncheckable.length > 0 ? ` (${uncheckable.map((o) => o.mutant.id).join(', ')})` : ''}${survived.length > 0 ? `; survived: ${survived.map((o) => o.mutant.id).join(', ')}` : ''}`,
    compared
      ? `The same mutants in the default dialect: ${baselines.filter((o) => o.caught).length}/${baselines.length - baselines.filter((o) => o.uncheckable).length} caught; caught there but not under ${binding!.name}: ${lost.length === 0 ? 'none' : lost.map((o) => o.mutant.id).join(', ')}`
      : undefined,
  ].filter((line): line is string => line !== undefined);
  if (summary.length > 0) md.push('', '## Summary', '', ...summary.map((line) => `- ${line}`));
  if (unproven.length > 0)
    md.push('', '## Checks that fail against neither', '', ...unproven.map((b) => `- ${b}`));
  lines.push(
    '',
    partial
      ? ''
      : `Checks: ${checks.length - unproven.length}/${checks.length} shown able to fail; ${unproven.length} against neither`,
    ...(summary.length > 0
      ? summary
      : [
          apiWorld
            ? `Named mutants in an API world: ${outcomes.length - survived.length - uncheckable.length}/${outcomes.length - uncheckable.length} caught of those whose check runs there; ${uncheckable.length} need the control world${survived.length > 0 ? `; survived: ${survived.map((o) => o.mutant.id).join(', ')}` : ''}`
            : `Named mutants: ${outcomes.length - survived.length}/${outcomes.length} caught${survived.length > 0 ? `; survived: ${survived.map((o) => o.mutant.id).join(', ')}` : ''}`,
        ]),
  );
  return {
    markdown: `${md.join('\n')}\n`,
    console: lines.join('\n'),
    ok: unproven.length === 0 && survived.length === 0,
  };
}

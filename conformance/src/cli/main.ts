import { randomInt } from 'node:crypto';
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { PACKAGE_ROOT, packagePath } from '../package-root.ts';
import {
  CONFORMANCE_HELP,
  parseConformanceArgs,
  type CliRun,
  type ReportFormat,
} from './options.ts';
import { ConfigurationError } from './flag-values.ts';
import {
  RUN_CONFIG_ENV,
  maxConcurrentChecks,
  encodeRunConfig,
  type RunConfig,
} from '../run/config.ts';
import { formatPlan, planChecks, type CollectedCheck } from './dry-run.ts';
import { PROFILES, offeredNeeds } from '../run/profiles.ts';
import { certificateFacts } from '../report/certificate.ts';
import { rerunCommand } from './rerun-command.ts';
import { ProgressReporter } from './progress.ts';
import { figuresOf, type BindingFacts, type RunFacts } from '../report/facts.ts';
import { PreflightFailure, liveTarget, preflight } from './preflight.ts';
import { InvalidBinding, bindingEntries } from '../binding/binding.ts';
import { Dialect } from '../binding/dialect.ts';
import { formatBinding } from '../binding/print.ts';
import { AmbiguousBinding, targetBinding, type TargetBinding } from '../binding/target-binding.ts';
import { RuleCollector } from '../report/reporter.ts';
import { renderReport, secretsOf, type RenderedReport } from '../report/reports.ts';
import { loadRules } from '../contract/rules.ts';
import { NOT_SELECTED_BY_FILTER, summarize, type Summary } from '../report/summary.ts';
import {
  CHECKS_DIR,
  CHECK_FILE_SUFFIX,
  sourceNameOf,
  suiteFiles,
  watchSuiteFolders,
} from './suite-files.ts';

/** What vitest runs: the check files and the workers' setup, as this module runs (.ts or .js). */
const SUITE = suiteFiles(PACKAGE_ROOT);

/** The files `--report` writes, by format, in `--report-dir`, each with what it renders. */
const REPORT_FILES: Record<Exclude<ReportFormat, 'console'>, [string, RenderedReport][]> = {
  junit: [['junit.xml', 'junit']],
  json: [['report.json', 'json']],
  html: [['report.html', 'html']],
  certificate: [
    ['certificate.json', 'certificate-json'],
    ['certificate.html', 'certificate-html'],
  ],
};

/**
 * `mailtwin-conformance`: exit 0 all checked rules passed (decided ones may have warned, unless
 * --strict), 1 a rule failed (or certify found a skip or a rule left unverified), 2 bad
 * configuration.
 */
export async function main(argv: string[]): Promise<number> {
  let run: CliRun | 'help';
  try {
    run = parseConformanceArgs(argv, process.env, () => randomInt(0, 2 ** 31 - 1));
  } catch (error) {
    if (!(error instanceof ConfigurationError)) throw error;
    process.stderr.write(`mailtwin-conformance: ${error.message} (run with --help for usage)\n`);
    return 2;
  }
  if (run === 'help') {
    process.stdout.write(CONFORMANCE_HELP);
    return 0;
  }
  const rules = loadRules();
  // One budget for the whole run: each worker gets its share, so together they stay within it.
  // An API world's checks share the target's own mailboxes in one worker: they tell their mail
  // apart by what is new since they began (mail-watch.ts), and checks run side by side by the
  // tags they put in their subjects (worlds/claims.ts).
  const workers =
    run.target.kind === 'live' && run.target.control === undefined ? 1 : workerCount();
  const config: RunConfig = {
    target: run.target,
    seed: run.seed,
    numRuns: run.numRuns,
    profile: run.profile,
    workerMaxRps: run.maxRps === null ? null : run.maxRps / workers,
    requestTimeoutMs: run.requestTimeoutMs,
    // A failure's replay reads the bytes it sends from here (curl.ts).
    replayFiles: {
      dir: resolve(process.cwd(), run.reportDir, 'replay-files'),
      shown: join(run.reportDir, 'replay-files'),
    },
  };
  process.env[RUN_CONFIG_ENV] = encodeRunConfig(config);
  const target =
    run.target.kind === 'live' ? run.target.baseUrl : 'the mailtwin emulator (in process)';
  if (run.dryRun) return dryRun(run, rules, target, workers);
  // The progress shows the total from the first line: the checks are counted as the dry run
  // counts them (no test body runs) while the preflight asks the target.
  const [prepared, planned] = await Promise.all([
    prepareTarget(run),
    run.quiet || run.printBinding ? undefined : plannedPerFile(run),
  ]);
  if (typeof prepared === 'string') {
    process.stderr.write(`mailtwin-conformance: ${prepared}\n`);
    return 2;
  }
  if (run.printBinding) {
    process.stdout.write(formatBinding(prepared));
    return 0;
  }
  // Workers read the run's configuration when they start: the binding goes with it.
  config.binding = {
    resolved: prepared.resolved,
    ...(prepared.publishedUrl === undefined ? {} : { publishedUrl: prepared.publishedUrl }),
  };
  process.env[RUN_CONFIG_ENV] = encodeRunConfig(config);
  if (!run.quiet) process.stderr.write(`Binding: ${prepared.note}\n`);

  const reportDir = resolve(process.cwd(), run.reportDir);
  if (run.reports.some((format) => format !== 'console')) {
    try {
      mkdirSync(reportDir, { recursive: true });
    } catch (error) {
      process.stderr.write(
        `mailtwin-conformance: --report-dir ${run.reportDir} cannot be created: ${(error as Error).message}\n`,
      );
      return 2;
    }
  }
  const collector = new RuleCollector(
    PACKAGE_ROOT,
    run.filter === undefined ? 'skipped' : NOT_SELECTED_BY_FILTER,
    sourceNameOf,
  );
  // The check files there are as the run starts: each one vitest never reports on is said
  // once it ends, as is a suite folder removed or written again meanwhile (a build, say).
  const expected = run.shard === undefined ? allCheckFiles() : [];
  const suiteReplaced = watchSuiteFolders(PACKAGE_ROOT);
  const startedAt = new Date();
  const started = performance.now();
  // Imported here, not at the top: the dry run and --help need none of vitest's start-up.
  const { startVitest } = await import('vitest/node');
  const vitest = await startVitest(
    'test',
    [],
    {
      ...vitestOptions(run, workers),
      // Check files share a worker's modules, so the worker builds the emulator and compiles
      // the contract once (check.ts, sharedState); isolated, each of the 14 files paid ~2 s.
      isolate: false,
      // One progress line per check on stderr as it ends (progress.ts), unless --quiet.
      reporters: run.quiet
        ? [collector]
        : [collector, new ProgressReporter(process.stderr, planned)],
      ...(run.filter === undefined ? {} : { testNamePattern: escapeRegExp(run.filter) }),
    },
    { test: { ...SUITE, passWithNoTests: false } },
  );
  await vitest.close();
  // A check file that never reported is said, not left to read as "not selected" or absent.
  collector.expectFiles(expected);
  const replaced = suiteReplaced();
  // First: it is why the rest went wrong.
  if (replaced !== undefined) collector.problems.unshift(replaced);
  const summary = summarize(rules, collector.outcomes, collector.problems, {
    strict: run.strict,
    noSkips: PROFILES[run.profile].noSkips,
    // Under certify, a skip only for what no API gives is left to the harness, not refused.
    offers: offeredNeeds(run.target),
    requireCoverage: run.shard === undefined,
    ...(run.filter === undefined ? {} : { filter: run.filter }),
  });
  const facts: RunFacts = {
    target,
    targetKind: run.target.kind,
    ...(run.target.kind === 'live' ? { baseUrl: run.target.baseUrl } : {}),
    toolVersion: packageVersion(),
    seed: run.seed,
    numRuns: run.numRuns,
    profile: run.profile,
    strict: run.strict,
    ...(run.shard === undefined ? {} : { shard: run.shard }),
    startedAt: startedAt.toISOString(),
    binding: bindingFacts(prepared),
    ...figuresOf(collector.outcomes),
    durationMs: performance.now() - started,
  };
  const written = writeReports(run, reportDir, summary, facts);
  // The verdict comes last (`Result:`, the console report's last line): what was written and
  // why nothing was checked are said before it.
  for (const file of written) process.stdout.write(`Report: ${file}\n`);
  if (summary.nothingChecked !== undefined)
    process.stderr.write(`mailtwin-conformance: nothing was checked: ${summary.nothingChecked}\n`);
  process.stdout.write(
    renderReport(
      run.reports.includes('console') ? 'console' : 'closing',
      summary,
      facts,
      secretsOf(run.target),
    ),
  );
  return summary.exitCode;
}

/**
 * The binding the run checks the target through (binding/target-binding.ts), or why the target
 * cannot be checked at all (preflight.ts). The in-process emulator is built here once, as a
 * worker builds it, and asked the same questions; a live target is asked without importing the
 * emulator.
 */
async function prepareTarget(run: CliRun): Promise<TargetBinding | string> {
  let target;
  try {
    target =
      run.target.kind === 'live'
        ? liveTarget(run.target)
        : (await import('../worlds/targets.ts')).createTarget(run.target);
  } catch (error) {
    return run.target.kind === 'live'
      ? (error as Error).message
      : `the emulator did not start in process: ${(error as Error).message}`;
  }
  let binding: TargetBinding;
  try {
    binding = await targetBinding({
      ...(run.bindingFile === undefined ? {} : { file: run.bindingFile }),
      origin: new URL(target.baseUrl).origin,
      fetch: target.fetch,
      timeoutMs: run.requestTimeoutMs,
    });
  } catch (error) {
    if (error instanceof InvalidBinding || error instanceof AmbiguousBinding) return error.message;
    throw error;
  }
  if (run.printBinding) return binding;
  try {
    await preflight(target, {
      timeoutMs: run.requestTimeoutMs,
      dialect: new Dialect(binding.resolved),
    });
    return binding;
  } catch (error) {
    if (error instanceof PreflightFailure) return error.message;
    throw error;
  }
}

/** The run's binding as the reports record it (facts.ts). */
function bindingFacts(binding: TargetBinding): BindingFacts {
  const { resolved } = binding;
  return {
    name: resolved.binding.name,
    sha256: resolved.sha256,
    note: binding.note,
    publishedUrl: binding.publishedUrl ?? null,
    entries: bindingEntries(resolved.binding).map(([entry, value]) => ({
      entry,
      value,
      source: resolved.sources[entry] ?? 'default',
    })),
  };
}

/** Options shared by the run and the dry run's collection. */
function vitestOptions(run: CliRun, workers: number) {
  return {
    root: PACKAGE_ROOT,
    config: false as const,
    watch: false,
    run: true,
    maxWorkers: workers,
    // Checks that say so run side by side within their file (check.ts, `concurrent`).
    maxConcurrency: maxConcurrentChecks(),
    ...(run.shard === undefined ? {} : { shard: run.shard }),
  };
}

/**
 * Lists what the run would do without sending a request: each check file is read for the checks
 * it declares (check.ts, `declaredChecks`; no test body, hook or target runs, and no vitest
 * worker starts), then each check is judged as the workers would judge it.
 */
async function dryRun(
  run: CliRun,
  rules: ReturnType<typeof loadRules>,
  target: string,
  workers: number,
): Promise<number> {
  const { checks, problems } = await collectChecks(await checkFilesOf(run, workers));
  checks.sort((a, b) => a.file.localeCompare(b.file));
  const plan = planChecks({
    checks,
    offers: offeredNeeds(run.target),
    profile: run.profile,
    filter: run.filter,
  });
  process.stdout.write(
    formatPlan(plan, rules, problems, {
      target,
      profile: run.profile,
      seed: run.seed,
      numRuns: run.numRuns,
      maxRps: run.maxRps,
      ...(run.shard === undefined ? {} : { shard: run.shard }),
    }),
  );
  return problems.length > 0 ? 1 : 0;
}

/**
 * The checks each file declares (check.ts, `declaredChecks`: the file is imported, no test body
 * or hook runs), with the absolute path they came from, and each file that did not load.
 */
async function collectChecks(
  paths: string[],
): Promise<{ checks: (CollectedCheck & { path: string })[]; problems: string[] }> {
  const { declaredChecks } = await import('../check-runner/check.ts');
  const checks: (CollectedCheck & { path: string })[] = [];
  const problems: string[] = [];
  for (const path of paths) {
    const file = sourceNameOf(path.slice(PACKAGE_ROOT.length + 1));
    try {
      for (const declared of await declaredChecks(pathToFileURL(path).href))
        checks.push({ file, path, ...declared });
    } catch (error) {
      problems.push(`${file} did not load: ${(error as Error).message}`);
    }
  }
  return { checks, problems };
}

/**
 * How many checks of each check file (by absolute path) the run will run or skip, for the
 * progress total: `--filter` applied as vitest applies it, by name. A file that does not load is
 * left out, and the progress then waits for vitest's own count.
 */
async function plannedPerFile(run: CliRun): Promise<Map<string, number>> {
  const { checks } = await collectChecks(allCheckFiles());
  const planned = new Map<string, number>();
  for (const check of checks) {
    const counted = run.filter === undefined || check.name.includes(run.filter) ? 1 : 0;
    planned.set(check.path, (planned.get(check.path) ?? 0) + counted);
  }
  return planned;
}

/** Every check file, as absolute paths in name order. */
function allCheckFiles(): string[] {
  return readdirSync(CHECKS_DIR, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith(CHECK_FILE_SUFFIX))
    .map((name) => join(CHECKS_DIR, name))
    .sort();
}

/**
 * The check files a run takes, as absolute paths in name order. With --shard, vitest says which
 * (it splits files by a hash of their path), so the dry run lists what the sharded run runs.
 */
async function checkFilesOf(run: CliRun, workers: number): Promise<string[]> {
  if (run.shard === undefined) return allCheckFiles();
  const { createVitest } = await import('vitest/node');
  const vitest = await createVitest(
    'test',
    { ...vitestOptions(run, workers), reporters: [] },
    { test: { ...SUITE, passWithNoTests: false } },
  );
  try {
    const sequencer = new vitest.config.sequence.sequencer(vitest);
    const shard = await sequencer.shard(await vitest.globTestSpecifications());
    return shard.map((specification) => specification.moduleId).sort();
  } finally {
    await vitest.close();
  }
}

function writeReports(run: CliRun, reportDir: string, summary: Summary, facts: RunFacts): string[] {
  const written: string[] = [];
  // The certificate names the exact contract and the command that re-runs the run.
  const reportFacts = run.reports.includes('certificate')
    ? { ...facts, ...certificateFacts(rerunCommand(run)) }
    : facts;
  for (const format of run.reports) {
    if (format === 'console') continue;
    for (const [file, rendered] of REPORT_FILES[format]) {
      // Every report leaves through renderReport, which masks every secret (reports.ts).
      writeFileSync(
        join(reportDir, file),
        renderReport(rendered, summary, reportFacts, secretsOf(run.target)),
      );
      written.push(join(run.reportDir, file));
    }
  }
  return written;
}

/** The workers vitest will use: its own default, or VITEST_MAX_WORKERS. */
function workerCount(): number {
  const fromEnv = Number.parseInt(process.env.VITEST_MAX_WORKERS ?? '', 10);
  if (Number.isInteger(fromEnv) && fromEnv > 0) return fromEnv;
  return Math.max(availableParallelism() - 1, 1);
}

function packageVersion(): string {
  return (JSON.parse(readFileSync(packagePath('package.json'), 'utf8')) as { version: string })
    .version;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

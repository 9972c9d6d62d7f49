import { randomInt } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { startVitest } from 'vitest/node';
import {
  CONFORMANCE_HELP,
  ConfigurationError,
  parseConformanceArgs,
  type CliRun,
} from './cli-options.ts';
import { RUN_CONFIG_ENV, encodeRunConfig } from './config.ts';
import { formatConsoleReport } from './report-console.ts';
import { RuleCollector } from './reporter.ts';
import { loadRules } from './rules.ts';
import { summarize } from './summary.ts';

const PACKAGE_ROOT = fileURLToPath(new URL('../..', import.meta.url)).replace(/\/$/, '');

/** `mailtwin-conformance`: exit 0 all checked rules passed, 1 a rule failed, 2 bad configuration. */
export async function main(argv: string[]): Promise<number> {
  let run: CliRun | 'help';
  try {
    run = parseConformanceArgs(argv, process.env, () => randomInt(0, 2 ** 31 - 1));
  } catch (error) {
    if (!(error instanceof ConfigurationError)) throw error;
    process.stderr.write(`mailtwin-conformance: ${error.message}\n\n${CONFORMANCE_HELP}`);
    return 2;
  }
  if (run === 'help') {
    process.stdout.write(CONFORMANCE_HELP);
    return 0;
  }
  const rules = loadRules();
  process.env[RUN_CONFIG_ENV] = encodeRunConfig({
    target: run.target,
    seed: run.seed,
    numRuns: run.numRuns,
  });
  const collector = new RuleCollector(
    PACKAGE_ROOT,
    run.filter === undefined ? 'skipped' : 'not selected by --filter',
  );
  const started = performance.now();
  const vitest = await startVitest(
    'test',
    [],
    {
      root: PACKAGE_ROOT,
      config: false,
      watch: false,
      run: true,
      reporters: [collector],
      ...(run.filter === undefined ? {} : { testNamePattern: escapeRegExp(run.filter) }),
    },
    {
      test: {
        include: ['conformance/checks/**/*.check.ts'],
        setupFiles: ['conformance/src/setup.ts'],
        passWithNoTests: false,
      },
    },
  );
  await vitest.close();
  const summary = summarize(rules, collector.outcomes, collector.problems, {
    live: run.target.kind === 'live',
    strict: run.strict,
  });
  const target =
    run.target.kind === 'live' ? run.target.baseUrl : 'the mailtwin emulator (in process)';
  process.stdout.write(
    formatConsoleReport(summary, {
      target,
      seed: run.seed,
      numRuns: run.numRuns,
      durationMs: performance.now() - started,
    }),
  );
  if (collector.outcomes.length === 0) {
    process.stderr.write('mailtwin-conformance: no check ran (is --filter too narrow?)\n');
    return 1;
  }
  return summary.exitCode;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

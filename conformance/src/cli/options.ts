/**
 * The suite's command line, parsed once into a CliRun: the profile, seed and number of runs, the
 * request budget and deadline, the reports and the shard (docs/suite-options.md); the target's
 * flags are target-options.ts's, each value is checked by flag-values.ts.
 */
import { parseArgs } from 'node:util';
import type { ProfileName, RunConfig } from '../run/config.ts';
import { PROFILES, PROFILE_NAMES, isProfileName } from '../run/profiles.ts';
import { defaultOf, parseArgsOptions } from '../../../shared/flag-table.ts';
import {
  CONFORMANCE_FLAGS,
  DEFAULT_REQUEST_TIMEOUT_MS,
  LIVE_DEFAULT_MAX_RPS,
  REPORT_FORMATS,
  type ReportFormat,
} from './flags.ts';
import { ConfigurationError, integer, nonEmpty } from './flag-values.ts';
import { parseTarget } from './target-options.ts';

export {
  CONFORMANCE_FLAGS,
  CONFORMANCE_HELP,
  DEFAULT_REQUEST_TIMEOUT_MS,
  LIVE_DEFAULT_MAX_RPS,
  REPORT_FORMATS,
  type ReportFormat,
} from './flags.ts';

export interface CliRun extends RunConfig {
  filter: string | undefined;
  strict: boolean;
  /** The whole run's request budget per second; null for none (split among workers later). */
  maxRps: number | null;
  reports: ReportFormat[];
  reportDir: string;
  shard: string | undefined;
  dryRun: boolean;
  /** No progress line per check on stderr (progress.ts). */
  quiet: boolean;
  /** `--binding`: the binding file the run checks the target through. */
  bindingFile: string | undefined;
  /** `--print-binding`: print the binding the run would use, and stop. */
  printBinding: boolean;
}

/** Parses the command line; throws ConfigurationError with a reason a user can act on. */
export function parseConformanceArgs(
  argv: string[],
  env: NodeJS.ProcessEnv,
  randomSeed: () => number,
): CliRun | 'help' {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: parseArgsOptions(CONFORMANCE_FLAGS),
    }));
  } catch (error) {
    throw new ConfigurationError((error as Error).message);
  }
  if (values.help) return 'help';
  const profileName = values.profile ?? defaultOf(CONFORMANCE_FLAGS, 'profile');
  if (!isProfileName(profileName)) {
    throw new ConfigurationError(
      `--profile must be one of ${PROFILE_NAMES.join(', ')}, got "${profileName}"`,
    );
  }
  const profile: ProfileName = profileName;
  const seed =
    values.seed === undefined
      ? randomSeed()
      : integer('--seed', values.seed, -(2 ** 31), 2 ** 31 - 1);
  const numRuns =
    values['num-runs'] === undefined
      ? PROFILES[profile].numRuns
      : integer('--num-runs', values['num-runs'], 1, 100_000);
  if (profile === 'certify' && values.filter !== undefined) {
    throw new ConfigurationError(
      '--profile certify runs every check; --filter would skip the others',
    );
  }
  if (profile === 'read-only' && values.destructive) {
    throw new ConfigurationError(
      '--destructive allows writing, which --profile read-only rules out; give one of them',
    );
  }
  const target = parseTarget(values, env);
  const maxRps =
    values['max-rps'] === undefined
      ? target.kind === 'live'
        ? LIVE_DEFAULT_MAX_RPS
        : null
      : rate(values['max-rps']);
  return {
    seed,
    numRuns,
    filter: values.filter,
    strict: (values.strict ?? false) || PROFILES[profile].strict,
    profile,
    maxRps,
    // Split among the workers by the CLI once it knows how many there are.
    workerMaxRps: maxRps,
    requestTimeoutMs:
      values['request-timeout'] === undefined
        ? DEFAULT_REQUEST_TIMEOUT_MS
        : integer('--request-timeout', values['request-timeout'], 1, 3_600_000),
    reports: reportList(values.report),
    reportDir: reportDir(values['report-dir']),
    shard: values.shard === undefined ? undefined : shard(values.shard),
    dryRun: values['dry-run'] ?? false,
    quiet: values.quiet ?? false,
    bindingFile: nonEmpty('--binding', values.binding),
    printBinding: values['print-binding'] ?? false,
    target,
  };
}

/** `--max-rps`: a positive number of requests per second, or 0 for no limit. */
function rate(raw: string): number | null {
  if (!/^\d+(?:\.\d+)?$/.test(raw) || Number(raw) > 100_000) {
    throw new ConfigurationError(
      `--max-rps must be a number of requests per second from 0 (no limit) to 100000, got "${raw}"`,
    );
  }
  return Number(raw) === 0 ? null : Number(raw);
}

function reportList(given: string | undefined): ReportFormat[] {
  const raw = given ?? defaultOf(CONFORMANCE_FLAGS, 'report');
  const formats = raw.split(',').map((part) => part.trim());
  const unknown = formats.filter(
    (format) => !(REPORT_FORMATS as readonly string[]).includes(format),
  );
  if (unknown.length > 0 || formats.length === 0) {
    throw new ConfigurationError(
      `--report takes a comma list of ${REPORT_FORMATS.join(', ')}, got "${raw}"`,
    );
  }
  return [...new Set(formats as ReportFormat[])];
}

function reportDir(raw: string | undefined): string {
  if (raw === undefined) return defaultOf(CONFORMANCE_FLAGS, 'report-dir');
  if (raw.trim() === '') throw new ConfigurationError('--report-dir must not be empty');
  return raw;
}

function shard(raw: string): string {
  const match = /^(\d+)\/(\d+)$/.exec(raw);
  const index = Number(match?.[1]);
  const count = Number(match?.[2]);
  if (match === null || count < 1 || index < 1 || index > count) {
    throw new ConfigurationError(
      `--shard must be <index>/<count> with 1 <= index <= count, e.g. 2/4, got "${raw}"`,
    );
  }
  return `${index}/${count}`;
}

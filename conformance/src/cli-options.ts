import { parseArgs } from 'node:util';
import type { ProfileName, RunConfig, TargetConfig } from './config.ts';
import { PROFILES, PROFILE_NAMES, isProfileName } from './profiles.ts';

export const REPORT_FORMATS = ['console', 'junit', 'json', 'html'] as const;
export type ReportFormat = (typeof REPORT_FORMATS)[number];

/** How long one request may go unanswered (`--request-timeout`), headers and body included. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 20_000;

/** Requests per second against a live target unless `--max-rps` says otherwise. */
export const LIVE_DEFAULT_MAX_RPS = 20;

export const CONFORMANCE_HELP = `Usage: mailtwin-conformance [options]

Checks a deployment of the Email Service API against its contract (spec/openapi.yaml) and the
rules of the service document (conformance/rules.yaml), and prints pass / fail / skip per rule.
Without --base-url it checks the mailtwin emulator, started in this process.

Target:
  --base-url <url>        The deployment's full versioned endpoint, e.g. https://mail.example.com/openapi/v1
  --unversioned-base-url  Accept a --base-url not ending in /openapi/v1: for a proxy such as Prism
                          that serves the API at its root
  --api-key <key>         An API key of that deployment (or set MAILTWIN_API_KEY)
  --second-api-key <key>  A key of another owner, for checks that need two (or MAILTWIN_SECOND_API_KEY)
  --mailbox <address>     A mailbox the suite may use (repeatable); it sends mail to no other
                          address than these and its own *.conformance.test addresses
  --destructive           Allow checks that write through the API: send, upload, modify, delete
  --control-url <url>     A control plane like the emulator's (ending in /_mailtwin/v1); unlocks the
                          checks that set up their own owners, mailboxes, keys and mail
  --control-token <t>     Its bearer token (or set MAILTWIN_CONTROL_TOKEN)
  --max-rps <n>           At most n requests per second over the whole run (default: 20 against
                          --base-url, no limit in process; 0 for no limit)
  --request-timeout <ms>  How long one request may go unanswered, body included, before its check
                          fails, naming it (default 20000)

Run:
  --profile <name>        Which checks run and how strictly (default full):
${PROFILE_NAMES.map((name) => `                            ${name.padEnd(10)} ${PROFILES[name].description}`).join('\n')}
  --seed <n>              Seed for generated cases (default: random, printed so the run can be replayed)
  --num-runs <n>          Cases per property (default 50; 10 with --profile quick)
  --filter <text>         Only checks whose name contains this text
  --strict                Treat failed decided rules (spec/DECISIONS.md) as failures; without it they
                          are warnings (exit 0), in process as against --base-url
  --shard <i>/<n>         Run the i-th of n shares of the check files (vitest --shard), e.g. 2/4
  --dry-run               List every check, its rules and needs, and whether it would run or be
                          skipped here and why; sends no request

Reports:
  --report <list>         Comma list of console, junit, json, html (default console)
  --report-dir <dir>      Where junit.xml, report.json and report.html go (default conformance-report)
  --quiet                 No progress line per check on stderr (by default one as each check ends)
  -h, --help              Show this help

Each failure is charged to the rule its failing assertion checks; the check's other rules are
not failed by it. Exit status: 0 every checked documented rule passed (decided rules may have
warned), 1 a rule failed (or, with --profile certify, a check was skipped or a rule left
unverified), 2 bad configuration.
`;

export class ConfigurationError extends Error {
  override name = 'ConfigurationError';
}

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
      options: {
        'base-url': { type: 'string' },
        'unversioned-base-url': { type: 'boolean' },
        'api-key': { type: 'string' },
        'second-api-key': { type: 'string' },
        mailbox: { type: 'string', multiple: true },
        destructive: { type: 'boolean' },
        'control-url': { type: 'string' },
        'control-token': { type: 'string' },
        'max-rps': { type: 'string' },
        'request-timeout': { type: 'string' },
        profile: { type: 'string' },
        seed: { type: 'string' },
        'num-runs': { type: 'string' },
        filter: { type: 'string' },
        strict: { type: 'boolean' },
        shard: { type: 'string' },
        'dry-run': { type: 'boolean' },
        report: { type: 'string' },
        'report-dir': { type: 'string' },
        quiet: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (error) {
    throw new ConfigurationError((error as Error).message);
  }
  if (values.help) return 'help';
  const profileName = values.profile ?? 'full';
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
    target,
  };
}

function parseTarget(
  values: {
    'base-url'?: string;
    'unversioned-base-url'?: boolean;
    'api-key'?: string;
    'second-api-key'?: string;
    mailbox?: string[];
    destructive?: boolean;
    'control-url'?: string;
    'control-token'?: string;
  },
  env: NodeJS.ProcessEnv,
): TargetConfig {
  const baseUrl = values['base-url'];
  if (baseUrl === undefined) {
    for (const flag of [
      'api-key',
      'second-api-key',
      'control-url',
      'mailbox',
      'destructive',
      'unversioned-base-url',
    ] as const) {
      if (values[flag] !== undefined) throw new ConfigurationError(`--${flag} needs --base-url`);
    }
    return { kind: 'emulator' };
  }
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new ConfigurationError(`--base-url is not a URL: ${baseUrl}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigurationError('--base-url must be an http or https URL');
  }
  if (url.search !== '' || url.hash !== '' || url.username !== '' || url.password !== '') {
    throw new ConfigurationError('--base-url must have no query, fragment or credentials');
  }
  // §5 rule 5 puts the API under /openapi/v1; a proxy such as Prism serves it at its root.
  if (!values['unversioned-base-url'] && !/\/openapi\/v1\/?$/.test(url.pathname)) {
    throw new ConfigurationError(
      `--base-url must be the full versioned endpoint ending in /openapi/v1 (§5 rule 5), got ${baseUrl}`,
    );
  }
  const apiKey = values['api-key'] ?? env.MAILTWIN_API_KEY;
  if (apiKey === undefined || apiKey === '') {
    throw new ConfigurationError('a live target needs --api-key (or MAILTWIN_API_KEY)');
  }
  const secondApiKey = values['second-api-key'] ?? env.MAILTWIN_SECOND_API_KEY;
  if (secondApiKey !== undefined && secondApiKey === apiKey) {
    throw new ConfigurationError('--second-api-key must be another key than --api-key');
  }
  const mailboxes = (values.mailbox ?? []).map((mailbox) => {
    if (!/^[^\s@<>,]+@[^\s@<>,]+$/.test(mailbox))
      throw new ConfigurationError(
        `--mailbox must be a plain address like box@example.com, got "${mailbox}"`,
      );
    return mailbox;
  });
  const control = parseControl(
    values['control-url'],
    values['control-token'] ?? env.MAILTWIN_CONTROL_TOKEN,
  );
  return {
    kind: 'live',
    ...(control === undefined ? {} : { control }),
    baseUrl: `${url.origin}${url.pathname.replace(/\/+$/, '')}`,
    apiKey,
    ...(secondApiKey === undefined || secondApiKey === '' ? {} : { secondApiKey }),
    mailboxes,
    destructive: values.destructive ?? false,
  };
}

function integer(flag: string, raw: string, min: number, max: number): number {
  if (!/^-?\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new ConfigurationError(`${flag} must be an integer from ${min} to ${max}, got "${raw}"`);
  }
  return Number(raw);
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

function reportList(raw: string | undefined): ReportFormat[] {
  if (raw === undefined) return ['console'];
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
  if (raw === undefined) return 'conformance-report';
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

function parseControl(
  rawUrl: string | undefined,
  token: string | undefined,
): { baseUrl: string; token: string } | undefined {
  if (rawUrl === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    throw new ConfigurationError(`--control-url is not a URL: ${rawUrl}`);
  }
  if (
    (url.protocol !== 'http:' && url.protocol !== 'https:') ||
    url.search !== '' ||
    url.username !== ''
  ) {
    throw new ConfigurationError(
      '--control-url must be an http or https URL with no query or credentials',
    );
  }
  if (token === undefined || token === '') {
    throw new ConfigurationError('--control-url needs --control-token (or MAILTWIN_CONTROL_TOKEN)');
  }
  return { baseUrl: `${url.origin}${url.pathname.replace(/\/+$/, '')}`, token };
}

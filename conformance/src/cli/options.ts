import { parseArgs } from 'node:util';
import {
  DEFAULT_DELIVERY_TIMEOUT_MS,
  KEY_ROLES,
  type KeyRole,
  type ProfileName,
  type RunConfig,
  type TargetConfig,
} from '../run/config.ts';
import { PROFILES, PROFILE_NAMES, isProfileName } from '../run/profiles.ts';
import {
  HELP_FLAG,
  defaultOf,
  helpOptions,
  parseArgsOptions,
  wrap,
  type Flag,
} from './flag-table.ts';

export const REPORT_FORMATS = ['console', 'junit', 'json', 'html', 'certificate'] as const;
export type ReportFormat = (typeof REPORT_FORMATS)[number];

/** How long one request may go unanswered (`--request-timeout`), headers and body included. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 20_000;

/** Requests per second against a live target unless `--max-rps` says otherwise. */
export const LIVE_DEFAULT_MAX_RPS = 20;

const TARGET = 'Target';
const BINDING =
  'Binding (the names a deployment chose where the service document says "not shown")';
const RUN = 'Run';
const REPORTS = 'Reports';

/**
 * Every flag of `mailtwin-conformance`, written once: the parser, `--help` and the table of
 * docs/suite-options.md are made from it (flag-table.ts).
 */
export const CONFORMANCE_FLAGS = [
  {
    name: 'base-url',
    type: 'string',
    value: '<url>',
    unset: 'the in-process emulator',
    description:
      "The deployment's full versioned endpoint ({base_url}, ending in /openapi/v1), e.g. https://mail.example.com/openapi/v1",
    group: TARGET,
  },
  {
    name: 'unversioned-base-url',
    type: 'boolean',
    description:
      'Accept a --base-url not ending in /openapi/v1: for a proxy such as Prism that serves the API at its root',
    group: TARGET,
  },
  {
    name: 'api-key',
    type: 'string',
    value: '<key>',
    unset: '$MAILTWIN_API_KEY',
    description: 'An API key of that deployment; needed with --base-url',
    group: TARGET,
  },
  {
    name: 'second-api-key',
    type: 'string',
    value: '<key>',
    unset: '$MAILTWIN_SECOND_API_KEY',
    description:
      'A key of another owner, for checks that need two; the same as --key other-owner=<key>',
    group: TARGET,
  },
  {
    name: 'key',
    type: 'string[]',
    value: '<role>=<key>',
    description:
      "A key made in the deployment's dashboard, by role (repeatable): follow-owner (as --api-key), one-domain, selected-mailbox, other-owner (a key of another owner), disabled (a disabled key), disabled-owner (a key of a disabled owner). Preflight asks each: the first four must answer GET /mailboxes 200, the last two must be refused; the authorization checks use every key given",
    group: TARGET,
  },
  {
    name: 'suppressed',
    type: 'string[]',
    value: '<address>',
    description: "An address on the deployment's suppression list (repeatable); offers suppressed",
    group: TARGET,
  },
  {
    name: 'mailbox',
    type: 'string[]',
    value: '<address>',
    description:
      'A mailbox the suite may use (repeatable); it sends mail to no other address than these and its own *.conformance.test addresses',
    group: TARGET,
  },
  {
    name: 'destructive',
    type: 'boolean',
    description:
      'Allow checks that write through the API (send, upload, modify, delete); offers the need destructive',
    group: TARGET,
  },
  {
    name: 'control-url',
    type: 'string',
    value: '<url>',
    description:
      "A control plane like the emulator's (ending in /_mailtwin/v1): the control world, offering every need but webhook-receiver and destructive, so checks set up their own owners, mailboxes, keys and mail",
    group: TARGET,
  },
  {
    name: 'control-token',
    type: 'string',
    value: '<token>',
    unset: '$MAILTWIN_CONTROL_TOKEN',
    description: "The control plane's bearer token",
    group: TARGET,
  },
  {
    name: 'webhook-listen',
    type: 'string',
    value: '<host:port>',
    description: "Where the suite's webhook receiver listens, e.g. 127.0.0.1:8787",
    group: TARGET,
  },
  {
    name: 'webhook-public-url',
    type: 'string',
    value: '<url>',
    description:
      "The URL the deployment's webhook (made in its dashboard) points at, which reaches --webhook-listen (through a tunnel, for one)",
    group: TARGET,
  },
  {
    name: 'webhook-secret',
    type: 'string',
    value: '<whsec_…>',
    unset: '$MAILTWIN_WEBHOOK_SECRET',
    description:
      "That webhook's signing secret; the three --webhook-* flags together offer webhook-receiver",
    group: TARGET,
  },
  {
    name: 'webhook-id',
    type: 'string',
    value: '<id>',
    description: "That webhook's id, to check the X-Service-Webhook-Id header",
    group: TARGET,
  },
  {
    name: 'delivery-timeout',
    type: 'string',
    value: '<ms>',
    default: String(DEFAULT_DELIVERY_TIMEOUT_MS),
    description:
      'How long mail the suite sends may take to arrive in a --mailbox, and a webhook delivery to reach the receiver',
    group: TARGET,
  },
  {
    name: 'max-rps',
    type: 'string',
    value: '<n>',
    unset: `${LIVE_DEFAULT_MAX_RPS} with --base-url, else no limit`,
    description: 'At most n requests per second over the whole run; 0 for no limit',
    group: TARGET,
  },
  {
    name: 'request-timeout',
    type: 'string',
    value: '<ms>',
    default: String(DEFAULT_REQUEST_TIMEOUT_MS),
    description:
      'How long one request may go unanswered, body included; then its check fails naming the request (a property stops at the case that hung, without shrinking)',
    group: TARGET,
  },
  {
    name: 'binding',
    type: 'string',
    value: '<file>',
    unset: "inferred from the target's {origin}/openapi/openapi.json, else spec/DECISIONS.md's",
    description: 'Check the target through this binding (spec/binding.schema.json)',
    group: BINDING,
  },
  {
    name: 'print-binding',
    type: 'boolean',
    description: 'Print the binding the run would use, each entry with its source, and exit',
    group: BINDING,
  },
  {
    name: 'emulator-binding',
    type: 'string',
    value: '<file>',
    description:
      'Without --base-url: the in-process emulator speaks this binding (mailtwin serve --binding), and the suite infers it back from what it publishes',
    group: BINDING,
  },
  {
    name: 'profile',
    type: 'string',
    value: '<name>',
    default: 'full',
    description: `Which checks run and how strictly: ${PROFILE_NAMES.join(', ')} (docs/profiles.md)`,
    group: RUN,
  },
  {
    name: 'seed',
    type: 'string',
    value: '<n>',
    unset: 'random, printed',
    description: 'Seed of every generated case; the same seed replays the run',
    group: RUN,
  },
  {
    name: 'num-runs',
    type: 'string',
    value: '<n>',
    default: String(PROFILES.full.numRuns),
    defaultNote: `${PROFILES.quick.numRuns} with --profile quick`,
    description: 'Cases per property',
    group: RUN,
  },
  {
    name: 'filter',
    type: 'string',
    value: '<text>',
    unset: 'all checks',
    description: 'Only checks whose name contains the text (the others are reported as skipped)',
    group: RUN,
  },
  {
    name: 'strict',
    type: 'boolean',
    description:
      'Failed decided rules (spec/DECISIONS.md) fail the run instead of warning, in process as against --base-url',
    group: RUN,
  },
  {
    name: 'shard',
    type: 'string',
    value: '<i>/<n>',
    unset: 'all files',
    description: "Run the i-th of n shares of the check files (vitest's --shard), e.g. 2/4",
    group: RUN,
  },
  {
    name: 'dry-run',
    type: 'boolean',
    description:
      'List every check (file, behaviour, rule ids, needs) and whether it would run or be skipped here and why; sends no request',
    group: RUN,
  },
  {
    name: 'report',
    type: 'string',
    value: '<list>',
    default: 'console',
    description: `Comma list of ${REPORT_FORMATS.join(', ')}; certificate writes certificate.json and certificate.html: target, suite, SHA-256 of the spec, seed, every rule's status and reason, the command that re-runs it (secrets as placeholders) and a SHA-256 of it all`,
    group: REPORTS,
  },
  {
    name: 'report-dir',
    type: 'string',
    value: '<dir>',
    default: 'conformance-report',
    description:
      "Where junit.xml, report.json, report.html and the certificate are written, and the bytes a failure's curl -F replay reads (replay-files/)",
    group: REPORTS,
  },
  {
    name: 'quiet',
    type: 'boolean',
    description: 'No progress line per check on stderr (by default one as each check ends)',
    group: REPORTS,
  },
  HELP_FLAG,
] as const satisfies readonly Flag[];

const CONFORMANCE_PARSE_OPTIONS = parseArgsOptions(CONFORMANCE_FLAGS);

export const CONFORMANCE_HELP = `Usage: mailtwin-conformance [options]

Checks a deployment of the Email Service API against its contract (spec/openapi.yaml) and the
rules of the service document (conformance/rules.yaml), and prints pass / fail / skip per rule.
Without --base-url it checks the mailtwin emulator, started in this process.

${helpOptions(CONFORMANCE_FLAGS)}
Profiles (--profile):
${PROFILE_NAMES.map((name) =>
  wrap(PROFILES[name].description, 86)
    .map((line, i) => `  ${(i === 0 ? name : '').padEnd(10)} ${line}`)
    .join('\n'),
).join('\n')}

Each failure is charged to the rule its failing assertion checks; the check's other rules are
not failed by it. Exit status: 0 every checked documented rule passed (decided rules may have
warned), 1 a rule failed (or, with --profile certify, a check was skipped for anything but
what only a control plane gives, or a rule left unverified), 2 bad configuration.
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
      options: CONFORMANCE_PARSE_OPTIONS,
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

function nonEmpty(flag: string, value: string | undefined): string | undefined {
  if (value !== undefined && value.trim() === '')
    throw new ConfigurationError(`${flag} must name a file`);
  return value;
}

function parseTarget(
  values: {
    'base-url'?: string;
    'unversioned-base-url'?: boolean;
    'api-key'?: string;
    'second-api-key'?: string;
    key?: string[];
    suppressed?: string[];
    'webhook-listen'?: string;
    'webhook-public-url'?: string;
    'webhook-secret'?: string;
    'webhook-id'?: string;
    'delivery-timeout'?: string;
    mailbox?: string[];
    destructive?: boolean;
    'control-url'?: string;
    'control-token'?: string;
    'emulator-binding'?: string;
  },
  env: NodeJS.ProcessEnv,
): TargetConfig {
  const baseUrl = values['base-url'];
  if (baseUrl === undefined) {
    for (const flag of [
      'api-key',
      'second-api-key',
      'key',
      'suppressed',
      'webhook-listen',
      'webhook-public-url',
      'webhook-secret',
      'webhook-id',
      'delivery-timeout',
      'control-url',
      'mailbox',
      'destructive',
      'unversioned-base-url',
    ] as const) {
      if (values[flag] !== undefined) throw new ConfigurationError(`--${flag} needs --base-url`);
    }
    const binding = nonEmpty('--emulator-binding', values['emulator-binding']);
    return binding === undefined ? { kind: 'emulator' } : { kind: 'emulator', binding };
  }
  if (values['emulator-binding'] !== undefined)
    throw new ConfigurationError(
      '--emulator-binding is for the in-process emulator; a --base-url target speaks its own (give --binding)',
    );
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
  const keys = keysByRole(values.key ?? []);
  const apiKey = alias(
    keys,
    'follow-owner',
    '--api-key',
    values['api-key'] ?? env.MAILTWIN_API_KEY,
  );
  if (apiKey === undefined) {
    throw new ConfigurationError(
      'a live target needs --api-key or --key follow-owner=<key> (or MAILTWIN_API_KEY)',
    );
  }
  const secondApiKey = alias(
    keys,
    'other-owner',
    '--second-api-key',
    values['second-api-key'] ?? env.MAILTWIN_SECOND_API_KEY,
  );
  const secrets = Object.entries(keys);
  for (const [role, secret] of secrets) {
    const twin = secrets.find(([other, s]) => other !== role && s === secret);
    if (twin !== undefined)
      throw new ConfigurationError(
        `the ${role} and ${twin[0]} keys are the same key: give each its own`,
      );
  }
  const mailboxes = (values.mailbox ?? []).map((mailbox) => plainAddress('--mailbox', mailbox));
  const suppressed = (values.suppressed ?? []).map((a) => plainAddress('--suppressed', a));
  const webhook = parseWebhook(values, env);
  const deliveryTimeoutMs =
    values['delivery-timeout'] === undefined
      ? DEFAULT_DELIVERY_TIMEOUT_MS
      : integer('--delivery-timeout', values['delivery-timeout'], 1, 3_600_000);
  const control = parseControl(
    values['control-url'],
    values['control-token'] ?? env.MAILTWIN_CONTROL_TOKEN,
  );
  return {
    kind: 'live',
    ...(control === undefined ? {} : { control }),
    baseUrl: `${url.origin}${url.pathname.replace(/\/+$/, '')}`,
    apiKey,
    ...(secondApiKey === undefined ? {} : { secondApiKey }),
    keys,
    ...(suppressed.length === 0 ? {} : { suppressed }),
    ...(webhook === undefined ? {} : { webhook }),
    deliveryTimeoutMs,
    mailboxes,
    destructive: values.destructive ?? false,
  };
}

/** `--key role=secret`, each role at most once. */
function keysByRole(raw: string[]): Partial<Record<KeyRole, string>> {
  const keys: Partial<Record<KeyRole, string>> = {};
  for (const entry of raw) {
    const at = entry.indexOf('=');
    const role = entry.slice(0, at);
    const secret = entry.slice(at + 1);
    if (at < 1 || secret === '')
      throw new ConfigurationError(`--key takes <role>=<key>, got "${entry.slice(0, 20)}…"`);
    if (!(KEY_ROLES as readonly string[]).includes(role))
      throw new ConfigurationError(
        `--key role must be one of ${KEY_ROLES.join(', ')}, got "${role}"`,
      );
    if (keys[role as KeyRole] !== undefined)
      throw new ConfigurationError(`--key ${role}= is given twice`);
    keys[role as KeyRole] = secret;
  }
  return keys;
}

/**
 * The key of `role`, from `--key role=` or its older flag (`--api-key`, `--second-api-key`),
 * recorded under the role; both given and different is an error.
 */
function alias(
  keys: Partial<Record<KeyRole, string>>,
  role: KeyRole,
  flag: string,
  fromFlag: string | undefined,
): string | undefined {
  const given = fromFlag === '' ? undefined : fromFlag;
  if (given !== undefined && keys[role] !== undefined && keys[role] !== given)
    throw new ConfigurationError(`${flag} and --key ${role}= name different keys: give one`);
  if (given !== undefined) keys[role] = given;
  return keys[role];
}

function plainAddress(flag: string, address: string): string {
  if (!/^[^\s@<>,]+@[^\s@<>,]+$/.test(address))
    throw new ConfigurationError(
      `${flag} must be a plain address like box@example.com, got "${address}"`,
    );
  return address;
}

/** The --webhook-* flags: listen, public URL and secret together, or none of them. */
function parseWebhook(
  values: {
    'webhook-listen'?: string;
    'webhook-public-url'?: string;
    'webhook-secret'?: string;
    'webhook-id'?: string;
  },
  env: NodeJS.ProcessEnv,
): Extract<TargetConfig, { kind: 'live' }>['webhook'] {
  const secret = values['webhook-secret'] ?? env.MAILTWIN_WEBHOOK_SECRET;
  const given = [values['webhook-listen'], values['webhook-public-url']].filter(
    (v) => v !== undefined,
  ).length;
  if (given === 0) {
    if (values['webhook-id'] !== undefined)
      throw new ConfigurationError('--webhook-id needs --webhook-listen and --webhook-public-url');
    return undefined;
  }
  if (given === 1 || secret === undefined || secret === '')
    throw new ConfigurationError(
      'a webhook receiver needs --webhook-listen, --webhook-public-url and --webhook-secret together',
    );
  const listen = /^(\[[0-9a-fA-F:.]+\]|[^:\s]+):(\d{1,5})$/.exec(values['webhook-listen']!);
  const port = Number(listen?.[2]);
  if (listen === null || port < 1 || port > 65_535)
    throw new ConfigurationError(
      `--webhook-listen must be <host>:<port>, e.g. 127.0.0.1:8787, got "${values['webhook-listen']}"`,
    );
  let publicUrl: URL;
  try {
    publicUrl = new URL(values['webhook-public-url']!);
  } catch {
    throw new ConfigurationError(
      `--webhook-public-url is not a URL: ${values['webhook-public-url']}`,
    );
  }
  if (publicUrl.protocol !== 'http:' && publicUrl.protocol !== 'https:')
    throw new ConfigurationError('--webhook-public-url must be an http or https URL');
  if (!/^whsec_\S+$/.test(secret))
    throw new ConfigurationError("--webhook-secret must be the webhook's whsec_… signing secret");
  return {
    listen: { host: listen[1]!.replace(/^\[|\]$/g, ''), port },
    publicUrl: publicUrl.href,
    secret,
    ...(values['webhook-id'] === undefined ? {} : { id: values['webhook-id'] }),
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

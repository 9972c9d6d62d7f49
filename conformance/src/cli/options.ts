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
import { defaultOf, parseArgsOptions } from './flag-table.ts';
import {
  CONFORMANCE_FLAGS,
  DEFAULT_REQUEST_TIMEOUT_MS,
  LIVE_DEFAULT_MAX_RPS,
  REPORT_FORMATS,
  type ReportFormat,
} from './flags.ts';

export {
  CONFORMANCE_FLAGS,
  CONFORMANCE_HELP,
  DEFAULT_REQUEST_TIMEOUT_MS,
  LIVE_DEFAULT_MAX_RPS,
  REPORT_FORMATS,
  type ReportFormat,
} from './flags.ts';

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

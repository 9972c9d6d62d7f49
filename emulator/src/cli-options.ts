import { resolve } from 'node:path';
import ipaddr from 'ipaddr.js';
import { parseArgs } from 'node:util';
import { RATE_LIMIT_BOUNDS, type RateLimit } from './domain/rate-limit.ts';
import { MAX_DELIVERY_DELAY_MS } from './services/local-delivery.ts';
import type { SmtpLimits } from './smtp/smtp-limits.ts';
import type { AllowedHosts } from './http/host-check.ts';
import { packagePath } from './package-root.ts';
import { defaultOf, parseArgsOptions } from '../../shared/flag-table.ts';
import { SERVE_FLAGS } from './serve-flags.ts';

export { DEFAULT_SMTP_PORT, SERVE_FLAGS, SERVE_HELP } from './serve-flags.ts';

/** The demo data `mailtwin serve` starts with unless told otherwise. */
export const DEFAULT_FIXTURES = packagePath('fixtures/demo.json');

/** The options of `mailtwin serve`; the flag names are a contract and are kept for every release. */
export interface ServeOptions {
  port: number;
  host: string;
  /** D-66: `--allowed-hosts`, names served beside loopback and IP literals, or `'all'`. */
  allowedHosts: AllowedHosts;
  /** A database file (absolute path), or null for an in-memory database. */
  db: string | null;
  /**
   * `--ready-file <path>` (absolute): written once the emulator answers (origin, base URL,
   * control token, SMTP URL, pid), removed when it stops; null for none.
   */
  readyFile: string | null;
  /** The fixture file to load into an empty store (absolute path), or null with `--no-demo`. */
  fixtures: string | null;
  /** The control plane's bearer token; undefined means a random one. */
  controlToken: string | undefined;
  /** Lets webhooks target loopback addresses, for a receiver on the same machine. */
  allowLoopbackWebhooks: boolean;
  /** The hosting platform's request size limit the emulator models (D-27); 413 above it. */
  maxRequestBytes: number;
  /** D-30: how long one webhook delivery attempt may take. */
  webhookTimeoutMs: number;
  /** D-38: `--rate-limit <n>/<window>`, per API key; null (the default) for none. */
  rateLimit: RateLimit | null;
  /** How long mail sent to a mailbox of the emulator takes to reach it; 0 (the default): at once. */
  deliveryDelayMs: number;
  /** The request log on stdout after the banner: text lines, JSON lines, or null (`--quiet`). */
  log: 'text' | 'json' | null;
  /** The SMTP ingress's port (0: a free one), or null with `--no-smtp`. */
  smtpPort: number | null;
  /** `--binding <file>` (absolute path): the deployment dialect the API speaks; null for none. */
  binding: string | null;
  /** `--contract <url or file>`: a published OpenAPI document to infer the binding from. */
  contract: string | null;
  /** The SMTP ingress's connections at once and deadlines (issue 27). */
  smtpLimits: Pick<SmtpLimits, 'maxClients' | 'dataTimeoutMs' | 'sessionTimeoutMs'>;
  /** False with `--no-response-cache`: every GET is computed afresh (to measure the cache). */
  responseCache: boolean;
}

export const MAIN_HELP = `Usage: mailtwin <command> [options]

Commands:
  serve    Start the emulator (see: mailtwin serve --help)
  listen   Forward a running emulator's webhook deliveries to a local URL (mailtwin listen --help)
  trigger  Make an inbound email in a running emulator (mailtwin trigger --help)
  binding  Infer a deployment's binding from its published OpenAPI document (mailtwin binding --help)
  help     Show this help
`;

/** A configuration error: the CLI prints the message and exits with status 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** Parses `mailtwin serve` arguments; throws UsageError with a one-line reason on bad input. */
export function parseServeOptions(
  argv: string[],
  cwd: string = process.cwd(),
): ServeOptions | 'help' {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: parseArgsOptions(SERVE_FLAGS),
    });
  } catch (error) {
    throw new UsageError(describeParseError(error as Error & { code?: string }));
  }
  const { values } = parsed;
  if (values.help) return 'help';
  if (values['no-demo'] && values.fixtures !== undefined) {
    throw new UsageError('--no-demo and --fixtures cannot be used together');
  }
  if (values.quiet && values.log !== undefined) {
    throw new UsageError('--quiet and --log cannot be used together');
  }
  if (values.binding !== undefined && values.contract !== undefined) {
    throw new UsageError('--binding and --contract cannot be used together');
  }
  for (const flag of SMTP_FLAGS) {
    if (values['no-smtp'] && values[flag] !== undefined) {
      throw new UsageError(`--no-smtp and --${flag} cannot be used together`);
    }
  }
  const port = parsePort(values.port ?? defaultOf(SERVE_FLAGS, 'port'));
  return {
    port,
    host: requireValue('--host', values.host ?? defaultOf(SERVE_FLAGS, 'host')),
    allowedHosts: parseAllowedHosts(values['allowed-hosts'] ?? []),
    db:
      values.db === undefined || values.db === ':memory:'
        ? null
        : resolve(cwd, requireValue('--db', values.db)),
    readyFile:
      values['ready-file'] === undefined
        ? null
        : resolve(cwd, requireValue('--ready-file', values['ready-file'])),
    fixtures: values['no-demo']
      ? null
      : values.fixtures === undefined
        ? DEFAULT_FIXTURES
        : resolve(cwd, requireValue('--fixtures', values.fixtures)),
    controlToken:
      values['control-token'] === undefined ? undefined : parseToken(values['control-token']),
    allowLoopbackWebhooks: values['allow-loopback-webhooks'] ?? false,
    maxRequestBytes: parseByteCount(
      values['max-request-bytes'] ?? defaultOf(SERVE_FLAGS, 'max-request-bytes'),
    ),
    webhookTimeoutMs: parseTimeout(
      values['webhook-timeout-ms'] ?? defaultOf(SERVE_FLAGS, 'webhook-timeout-ms'),
    ),
    rateLimit: values['rate-limit'] === undefined ? null : parseRateLimit(values['rate-limit']),
    deliveryDelayMs: parseDeliveryDelay(
      values['delivery-delay-ms'] ?? defaultOf(SERVE_FLAGS, 'delivery-delay-ms'),
    ),
    log: values.quiet ? null : parseLogFormat(values.log ?? defaultOf(SERVE_FLAGS, 'log')),
    // --port 0 (tests, several instances at once) picks a free SMTP port too.
    binding:
      values.binding === undefined ? null : resolve(cwd, requireValue('--binding', values.binding)),
    contract:
      values.contract === undefined
        ? null
        : /^https?:\/\//i.test(values.contract)
          ? values.contract
          : resolve(cwd, requireValue('--contract', values.contract)),
    smtpPort: values['no-smtp']
      ? null
      : parsePort(
          values['smtp-port'] ?? (port === 0 ? '0' : defaultOf(SERVE_FLAGS, 'smtp-port')),
          '--smtp-port',
        ),
    responseCache: !values['no-response-cache'],
    smtpLimits: {
      maxClients: parseWhole(
        '--smtp-max-clients',
        values['smtp-max-clients'] ?? defaultOf(SERVE_FLAGS, 'smtp-max-clients'),
        10_000,
      ),
      dataTimeoutMs: parseWhole(
        '--smtp-data-timeout-ms',
        values['smtp-data-timeout-ms'] ?? defaultOf(SERVE_FLAGS, 'smtp-data-timeout-ms'),
        MAX_SMTP_TIMEOUT_MS,
      ),
      sessionTimeoutMs: parseWhole(
        '--smtp-session-timeout-ms',
        values['smtp-session-timeout-ms'] ?? defaultOf(SERVE_FLAGS, 'smtp-session-timeout-ms'),
        MAX_SMTP_TIMEOUT_MS,
      ),
    },
  };
}

/** The flags that only mean something with an SMTP ingress. */
const SMTP_FLAGS = [
  'smtp-port',
  'smtp-max-clients',
  'smtp-data-timeout-ms',
  'smtp-session-timeout-ms',
] as const;

/** 24 h: a longer SMTP deadline is no deadline. */
const MAX_SMTP_TIMEOUT_MS = 86_400_000;

/** A whole number from 1 to max, digits only. */
function parseWhole(flag: string, raw: string, max: number): number {
  if (!/^[1-9]\d{0,9}$/.test(raw) || Number(raw) > max) {
    throw new UsageError(`${flag} must be an integer from 1 to ${max}, got "${raw}"`);
  }
  return Number(raw);
}

function parseTimeout(raw: string): number {
  if (!/^\d{1,7}$/.test(raw) || Number(raw) < 1) {
    throw new UsageError(`--webhook-timeout-ms must be an integer from 1 to 9999999, got "${raw}"`);
  }
  return Number(raw);
}

/** A host name (or `.name`, for it and every name under it), an IP address, or a trailing dot. */
const HOST_NAME =
  /^\.?[a-z0-9_](?:[a-z0-9_-]*[a-z0-9_])?(?:\.[a-z0-9_](?:[a-z0-9_-]*[a-z0-9_])?)*\.?$/i;

/**
 * `--allowed-hosts a.test,.b.test --allowed-hosts c.test`: the names together, lower case; `all`
 * or `true` alone (as Vite's `server.allowedHosts: true`) turns the check off.
 */
export function parseAllowedHosts(raw: readonly string[]): AllowedHosts {
  const names = raw.flatMap((value) => value.split(',')).map((name) => name.trim());
  if (names.some((name) => name === 'all' || name === 'true')) {
    if (names.length > 1)
      throw new UsageError('--allowed-hosts all (or true) cannot be combined with host names');
    return 'all';
  }
  for (const name of names) {
    const ipv6 = name.replace(/^\[(.*)\]$/, '$1');
    if (name === '' || ((name.length > 253 || !HOST_NAME.test(name)) && !ipaddr.IPv6.isValid(ipv6)))
      throw new UsageError(
        `--allowed-hosts takes host names separated by commas (e.g. mail.test,.dev.test), got "${name}"`,
      );
  }
  return [...new Set(names.map((name) => name.toLowerCase()))];
}

function parseDeliveryDelay(raw: string): number {
  if (!/^\d{1,7}$/.test(raw) || Number(raw) > MAX_DELIVERY_DELAY_MS) {
    throw new UsageError(
      `--delivery-delay-ms must be an integer from 0 to ${MAX_DELIVERY_DELAY_MS}, got "${raw}"`,
    );
  }
  return Number(raw);
}

const WINDOW_UNIT_MS = { s: 1_000, m: 60_000, h: 3_600_000 } as const;

/**
 * `<n>/<window>`: n a whole number of requests, the window a whole number of seconds, minutes
 * or hours (`100/1m`, `10/1s`, `5000/1h`). Whole seconds only, because `Retry-After` is in
 * whole seconds. Nothing else is accepted: no spaces, no leading zeros, no bare unit.
 */
export function parseRateLimit(raw: string): RateLimit {
  const match = /^([1-9]\d*)\/([1-9]\d*)([smh])$/.exec(raw);
  if (match === null) {
    throw new UsageError(
      `--rate-limit must be <requests>/<window>, the window a number and s, m or h (e.g. 100/1m, 10/1s, 5000/1h), got "${raw}"`,
    );
  }
  const [, requests, amount, unit] = match as unknown as [string, string, string, 's' | 'm' | 'h'];
  if (requests.length > 7 || Number(requests) > RATE_LIMIT_BOUNDS.maxRequests) {
    throw new UsageError(
      `--rate-limit allows 1 to ${RATE_LIMIT_BOUNDS.maxRequests} requests per window, got "${raw}"`,
    );
  }
  const windowMs = amount.length > 6 ? Infinity : Number(amount) * WINDOW_UNIT_MS[unit];
  if (windowMs > RATE_LIMIT_BOUNDS.maxWindowMs) {
    throw new UsageError(`--rate-limit windows are 1s to 24h, got "${raw}"`);
  }
  return { requests: Number(requests), windowMs };
}

function parseByteCount(raw: string): number {
  if (!/^\d{1,12}$/.test(raw) || Number(raw) < 1024) {
    throw new UsageError(`--max-request-bytes must be an integer of at least 1024, got "${raw}"`);
  }
  return Number(raw);
}

function parseLogFormat(raw: string): 'text' | 'json' {
  if (raw !== 'text' && raw !== 'json') {
    throw new UsageError(`--log must be text or json, got "${raw}"`);
  }
  return raw;
}

function describeParseError(error: Error & { code?: string }): string {
  if (error.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
    const option = /'([^']+)'/.exec(error.message)?.[1];
    if (option !== undefined) return `unknown option ${option} (see mailtwin serve --help)`;
  }
  return error.message.replace(/\s+/g, ' ').trim();
}

function parsePort(raw: string, flag = '--port'): number {
  if (!/^\d{1,5}$/.test(raw) || Number(raw) > 65535) {
    throw new UsageError(`${flag} must be an integer from 0 to 65535, got "${raw}"`);
  }
  return Number(raw);
}

function requireValue(flag: string, raw: string): string {
  if (raw.trim() === '') throw new UsageError(`${flag} needs a value`);
  return raw;
}

/** RFC 6750 b64token, so the token can be sent as `Authorization: Bearer <token>` unchanged. */
function parseToken(raw: string): string {
  if (!/^[A-Za-z0-9._~+/-]+=*$/.test(raw)) {
    throw new UsageError(
      '--control-token must be letters, digits and . _ ~ + / - (it is sent as a Bearer token)',
    );
  }
  return raw;
}

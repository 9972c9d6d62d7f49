/**
 * The target a run checks, from the flags: the in-process emulator when no `--base-url` is
 * given, else a live deployment with its keys by role, the mailboxes it may send to, the
 * addresses it has suppressed, its webhook receiver and its control plane (docs/suite-options.md).
 */
import {
  DEFAULT_DELIVERY_TIMEOUT_MS,
  KEY_ROLES,
  type KeyRole,
  type TargetConfig,
} from '../run/config.ts';
import { ConfigurationError, integer, nonEmpty, plainAddress } from './flag-values.ts';

/** The target of the run; throws ConfigurationError for flags that do not make one. */
export function parseTarget(
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

import { parseArgs } from 'node:util';
import type { RunConfig } from './config.ts';

export const CONFORMANCE_HELP = `Usage: mailtwin-conformance [options]

Checks a deployment of the Email Service API against its contract (spec/openapi.yaml) and the
rules of the service document (conformance/rules.yaml), and prints pass / fail / skip per rule.
Without --base-url it checks the mailtwin emulator, started in this process.

Target:
  --base-url <url>     The deployment's full versioned endpoint, e.g. https://mail.example.com/openapi/v1
  --api-key <key>      An API key of that deployment (or set MAILTWIN_API_KEY)
  --mailbox <address>  A mailbox the suite may use (repeatable); it touches no other address
  --destructive        Allow checks that modify or delete email in those mailboxes
  --control-url <url>  A control plane like the emulator's (ending in /_mailtwin/v1); unlocks the
                       checks that set up their own owners, mailboxes, keys and mail
  --control-token <t>  Its bearer token (or set MAILTWIN_CONTROL_TOKEN)

Run:
  --seed <n>           Seed for generated cases (default: random, printed so the run can be replayed)
  --num-runs <n>       Cases per property (default 50)
  --filter <text>      Only checks whose name contains this text
  --strict             Treat failed decided rules (spec/DECISIONS.md) as failures, not warnings
  -h, --help           Show this help

Exit status: 0 every checked rule passed, 1 a rule failed, 2 bad configuration.
`;

export class ConfigurationError extends Error {
  override name = 'ConfigurationError';
}

export interface CliRun extends RunConfig {
  filter: string | undefined;
  strict: boolean;
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
        'api-key': { type: 'string' },
        mailbox: { type: 'string', multiple: true },
        destructive: { type: 'boolean' },
        'control-url': { type: 'string' },
        'control-token': { type: 'string' },
        seed: { type: 'string' },
        'num-runs': { type: 'string' },
        filter: { type: 'string' },
        strict: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (error) {
    throw new ConfigurationError((error as Error).message);
  }
  if (values.help) return 'help';
  const seed =
    values.seed === undefined
      ? randomSeed()
      : integer('--seed', values.seed, -(2 ** 31), 2 ** 31 - 1);
  const numRuns =
    values['num-runs'] === undefined ? 50 : integer('--num-runs', values['num-runs'], 1, 100_000);
  const common = { seed, numRuns, filter: values.filter, strict: values.strict ?? false };
  const baseUrl = values['base-url'];
  if (baseUrl === undefined) {
    if (values['api-key'] !== undefined) throw new ConfigurationError('--api-key needs --base-url');
    if (values['control-url'] !== undefined)
      throw new ConfigurationError('--control-url needs --base-url');
    return { ...common, target: { kind: 'emulator' } };
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
  if (!/\/openapi\/v1\/?$/.test(url.pathname)) {
    throw new ConfigurationError(
      `--base-url must be the full versioned endpoint ending in /openapi/v1 (§5 rule 5), got ${baseUrl}`,
    );
  }
  const apiKey = values['api-key'] ?? env.MAILTWIN_API_KEY;
  if (apiKey === undefined || apiKey === '') {
    throw new ConfigurationError('a live target needs --api-key (or MAILTWIN_API_KEY)');
  }
  const control = parseControl(
    values['control-url'],
    values['control-token'] ?? env.MAILTWIN_CONTROL_TOKEN,
  );
  return {
    ...common,
    target: {
      kind: 'live',
      ...(control === undefined ? {} : { control }),
      baseUrl: `${url.origin}${url.pathname.replace(/\/+$/, '')}`,
      apiKey,
      mailboxes: values.mailbox ?? [],
      destructive: values.destructive ?? false,
    },
  };
}

function integer(flag: string, raw: string, min: number, max: number): number {
  if (!/^-?\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new ConfigurationError(`${flag} must be an integer from ${min} to ${max}, got "${raw}"`);
  }
  return Number(raw);
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

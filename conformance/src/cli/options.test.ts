import { describe, expect, it } from 'vitest';
import { ConfigurationError } from './flag-values.ts';
import { CONFORMANCE_HELP, parseConformanceArgs } from './options.ts';

const BASE = 'https://mail.example.com/openapi/v1';
const seed = () => 1234;

/** The run options every parse returns when no flag sets them. */
const RUN_DEFAULTS = {
  profile: 'full',
  reports: ['console'],
  reportDir: 'conformance-report',
  shard: undefined,
  dryRun: false,
  quiet: false,
  bindingFile: undefined,
  printBinding: false,
} as const;

/** The ConfigurationError the arguments are refused with. */
function refusal(argv: string[], env: NodeJS.ProcessEnv = {}): ConfigurationError {
  try {
    parseConformanceArgs(argv, env, seed);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigurationError);
    return error as ConfigurationError;
  }
  throw new Error(`expected ${JSON.stringify(argv)} to be refused`);
}

describe('parseConformanceArgs', () => {
  it('defaults to the emulator, the supplied random seed and 50 runs', () => {
    expect(parseConformanceArgs([], {}, seed)).toStrictEqual({
      ...RUN_DEFAULTS,
      seed: 1234,
      numRuns: 50,
      filter: undefined,
      strict: false,
      maxRps: null,
      workerMaxRps: null,
      requestTimeoutMs: 20_000,
      target: { kind: 'emulator' },
    });
  });

  it('does not draw a random seed when --seed is given, negative ones included', () => {
    // A value starting with a dash must be attached (`--seed=-7`): node:util parseArgs refuses
    // `--seed -7` as ambiguous.
    const result = parseConformanceArgs(['--seed=-7'], {}, () => {
      throw new Error('random seed drawn');
    });
    expect(result).not.toBe('help');
    expect(result !== 'help' && result.seed).toBe(-7);
  });

  it('returns help for --help and -h', () => {
    expect(parseConformanceArgs(['--help'], {}, seed)).toBe('help');
    expect(parseConformanceArgs(['-h', '--base-url', 'ftp://x'], {}, seed)).toBe('help');
  });

  it('takes the run options --seed, --num-runs, --filter and --strict', () => {
    expect(
      parseConformanceArgs(
        ['--seed', '99', '--num-runs', '100000', '--filter', 'mailboxes', '--strict'],
        {},
        seed,
      ),
    ).toStrictEqual({
      ...RUN_DEFAULTS,
      seed: 99,
      numRuns: 100_000,
      filter: 'mailboxes',
      strict: true,
      maxRps: null,
      workerMaxRps: null,
      requestTimeoutMs: 20_000,
      target: { kind: 'emulator' },
    });
  });

  it('builds a live target from --base-url and --api-key', () => {
    expect(
      parseConformanceArgs(['--base-url', BASE, '--api-key', 'sk-flag'], {}, seed),
    ).toStrictEqual({
      ...RUN_DEFAULTS,
      seed: 1234,
      numRuns: 50,
      filter: undefined,
      strict: false,
      maxRps: 20,
      workerMaxRps: 20,
      requestTimeoutMs: 20_000,
      target: {
        kind: 'live',
        baseUrl: BASE,
        apiKey: 'sk-flag',
        keys: { 'follow-owner': 'sk-flag' },
        deliveryTimeoutMs: 60_000,
        mailboxes: [],
        destructive: false,
      },
    });
  });

  it('takes the api key from MAILTWIN_API_KEY when no flag gives one', () => {
    const result = parseConformanceArgs(['--base-url', BASE], { MAILTWIN_API_KEY: 'sk-env' }, seed);
    expect(result !== 'help' && result.target).toMatchObject({ kind: 'live', apiKey: 'sk-env' });
  });

  it('prefers the --api-key flag over MAILTWIN_API_KEY', () => {
    const result = parseConformanceArgs(
      ['--base-url', BASE, '--api-key', 'sk-flag'],
      { MAILTWIN_API_KEY: 'sk-env' },
      seed,
    );
    expect(result !== 'help' && result.target).toMatchObject({ apiKey: 'sk-flag' });
  });

  it('collects every --mailbox and the --destructive flag', () => {
    const result = parseConformanceArgs(
      [
        '--base-url',
        BASE,
        '--api-key',
        'sk-x',
        '--mailbox',
        'a@acme.test',
        '--mailbox',
        'b@acme.test',
        '--destructive',
      ],
      {},
      seed,
    );
    expect(result !== 'help' && result.target).toMatchObject({
      mailboxes: ['a@acme.test', 'b@acme.test'],
      destructive: true,
    });
  });

  it('removes the trailing slash of the base URL', () => {
    const result = parseConformanceArgs(['--base-url', `${BASE}/`, '--api-key', 'sk-x'], {}, seed);
    expect(result !== 'help' && result.target).toMatchObject({ baseUrl: BASE });
  });

  it('refuses an origin-only base URL, pointing to /openapi/v1', () => {
    const error = refusal(['--base-url', 'https://mail.example.com', '--api-key', 'sk-x']);
    expect(error.message).toBe(
      '--base-url must be the full versioned endpoint ending in /openapi/v1 (§5 rule 5), got https://mail.example.com',
    );
  });

  it('takes a base URL at the root of a proxy with --unversioned-base-url', () => {
    const result = parseConformanceArgs(
      ['--base-url', 'http://127.0.0.1:4010/', '--unversioned-base-url', '--api-key', 'sk-x'],
      {},
      seed,
    );
    expect(result !== 'help' && result.target).toStrictEqual({
      kind: 'live',
      baseUrl: 'http://127.0.0.1:4010',
      apiKey: 'sk-x',
      keys: { 'follow-owner': 'sk-x' },
      deliveryTimeoutMs: 60_000,
      mailboxes: [],
      destructive: false,
    });
  });

  it('keeps a versioned base URL as it is with --unversioned-base-url', () => {
    const result = parseConformanceArgs(
      ['--base-url', BASE, '--unversioned-base-url', '--api-key', 'sk-x'],
      {},
      seed,
    );
    expect(result !== 'help' && result.target).toMatchObject({ baseUrl: BASE });
  });

  it('refuses --unversioned-base-url without --base-url', () => {
    expect(refusal(['--unversioned-base-url']).message).toBe(
      '--unversioned-base-url needs --base-url',
    );
  });

  it('still checks the URL itself with --unversioned-base-url', () => {
    expect(
      refusal(['--base-url', 'ftp://127.0.0.1:4010', '--unversioned-base-url', '--api-key', 'k'])
        .message,
    ).toBe('--base-url must be an http or https URL');
  });

  it('refuses a base URL with another version', () => {
    expect(
      refusal(['--base-url', 'https://mail.example.com/openapi/v2', '--api-key', 'k']).message,
    ).toContain('/openapi/v1');
  });

  it('refuses a live target without an api key', () => {
    expect(refusal(['--base-url', BASE]).message).toBe(
      'a live target needs --api-key or --key follow-owner=<key> (or MAILTWIN_API_KEY)',
    );
  });

  it('refuses an empty MAILTWIN_API_KEY as no key', () => {
    expect(refusal(['--base-url', BASE], { MAILTWIN_API_KEY: '' }).message).toBe(
      'a live target needs --api-key or --key follow-owner=<key> (or MAILTWIN_API_KEY)',
    );
  });

  it('refuses an ftp: base URL', () => {
    expect(
      refusal(['--base-url', 'ftp://mail.example.com/openapi/v1', '--api-key', 'k']).message,
    ).toBe('--base-url must be an http or https URL');
  });

  it('refuses a base URL that is not a URL', () => {
    expect(refusal(['--base-url', 'mail.example.com/openapi/v1', '--api-key', 'k']).message).toBe(
      '--base-url is not a URL: mail.example.com/openapi/v1',
    );
  });

  it('refuses --api-key without --base-url', () => {
    expect(refusal(['--api-key', 'sk-x']).message).toBe('--api-key needs --base-url');
  });

  it('refuses a seed that is not an integer', () => {
    expect(refusal(['--seed', 'abc']).message).toBe(
      '--seed must be an integer from -2147483648 to 2147483647, got "abc"',
    );
  });

  it('refuses a seed outside 32 bits', () => {
    expect(refusal(['--seed', '2147483648']).message).toContain('--seed must be an integer');
  });

  it('refuses zero runs per property', () => {
    expect(refusal(['--num-runs', '0']).message).toBe(
      '--num-runs must be an integer from 1 to 100000, got "0"',
    );
  });

  it('refuses a fractional number of runs', () => {
    expect(refusal(['--num-runs', '1.5']).message).toContain('--num-runs must be an integer');
  });

  it('refuses an unknown flag', () => {
    expect(refusal(['--frobnicate']).message).toContain('--frobnicate');
  });

  it('refuses a positional argument', () => {
    expect(refusal(['extra']).message).toContain('extra');
  });

  it('refuses a string flag given without its value', () => {
    expect(refusal(['--seed']).message).toContain('--seed');
  });
});

describe('parseConformanceArgs: profiles, safety, reports and shards', () => {
  const parse = (argv: string[], env: NodeJS.ProcessEnv = {}) => {
    const result = parseConformanceArgs(argv, env, seed);
    if (result === 'help') throw new Error('unexpected help');
    return result;
  };
  const live = ['--base-url', BASE, '--api-key', 'sk-one'];

  it('takes --profile quick with 10 runs per property, unless --num-runs says otherwise', () => {
    expect(parse(['--profile', 'quick'])).toMatchObject({ profile: 'quick', numRuns: 10 });
    expect(parse(['--profile', 'quick', '--num-runs', '7'])).toMatchObject({ numRuns: 7 });
  });

  it('leaves --profile certify non-strict (decided rules warn) unless --strict is given', () => {
    expect(parse(['--profile', 'certify'])).toMatchObject({ profile: 'certify', strict: false });
    expect(parse(['--profile', 'certify', '--strict'])).toMatchObject({
      profile: 'certify',
      strict: true,
    });
  });

  it('refuses an unknown profile, naming the known ones', () => {
    expect(refusal(['--profile', 'thorough']).message).toBe(
      '--profile must be one of full, quick, certify, read-only, got "thorough"',
    );
  });

  it('refuses --filter with --profile certify, which must run every check', () => {
    expect(refusal(['--profile', 'certify', '--filter', 'x']).message).toContain('--filter');
  });

  it('refuses --destructive with --profile read-only', () => {
    expect(refusal([...live, '--profile', 'read-only', '--destructive']).message).toContain(
      'read-only',
    );
  });

  it('takes a second key from --second-api-key or MAILTWIN_SECOND_API_KEY', () => {
    expect(parse([...live, '--second-api-key', 'sk-two']).target).toMatchObject({
      secondApiKey: 'sk-two',
    });
    expect(parse(live, { MAILTWIN_SECOND_API_KEY: 'sk-env2' }).target).toMatchObject({
      secondApiKey: 'sk-env2',
    });
    expect(parse(live).target).not.toHaveProperty('secondApiKey');
  });

  it('refuses a second key equal to the first', () => {
    expect(refusal([...live, '--second-api-key', 'sk-one']).message).toBe(
      'the follow-owner and other-owner keys are the same key: give each its own',
    );
  });

  it('takes keys by role, --api-key and --second-api-key as the follow-owner and other-owner keys', () => {
    const result = parseConformanceArgs(
      [
        ...live,
        '--second-api-key',
        'sk-two',
        '--key',
        'one-domain=sk-dom',
        '--key',
        'selected-mailbox=sk-sel=with=equals',
        '--key',
        'disabled=sk-off',
      ],
      {},
      seed,
    );
    expect(result !== 'help' && result.target).toMatchObject({
      apiKey: 'sk-one',
      secondApiKey: 'sk-two',
      keys: {
        'follow-owner': 'sk-one',
        'other-owner': 'sk-two',
        'one-domain': 'sk-dom',
        'selected-mailbox': 'sk-sel=with=equals',
        disabled: 'sk-off',
      },
    });
    const byRoleOnly = parseConformanceArgs(
      ['--base-url', BASE, '--key', 'follow-owner=sk-a', '--key', 'other-owner=sk-b'],
      {},
      seed,
    );
    expect(byRoleOnly !== 'help' && byRoleOnly.target).toMatchObject({
      apiKey: 'sk-a',
      secondApiKey: 'sk-b',
    });
  });

  it('refuses an unknown role, a role given twice, a key without a role, and two names for one role', () => {
    expect(refusal([...live, '--key', 'admin=sk-x']).message).toBe(
      '--key role must be one of follow-owner, one-domain, selected-mailbox, other-owner, disabled, disabled-owner, got "admin"',
    );
    expect(refusal([...live, '--key', 'disabled=sk-a', '--key', 'disabled=sk-b']).message).toBe(
      '--key disabled= is given twice',
    );
    expect(refusal([...live, '--key', 'sk-no-role']).message).toMatch(/^--key takes <role>=<key>/);
    expect(refusal([...live, '--key', 'follow-owner=sk-other']).message).toBe(
      '--api-key and --key follow-owner= name different keys: give one',
    );
  });

  it('takes --suppressed addresses, the --webhook-* receiver and --delivery-timeout', () => {
    const result = parseConformanceArgs(
      [
        ...live,
        '--suppressed',
        'gone@example.com',
        '--webhook-listen',
        '127.0.0.1:8787',
        '--webhook-public-url',
        'https://hooks.example.com/in',
        '--webhook-id',
        'wh_1',
        '--delivery-timeout',
        '1500',
      ],
      { MAILTWIN_WEBHOOK_SECRET: 'whsec_abc' },
      seed,
    );
    expect(result !== 'help' && result.target).toMatchObject({
      suppressed: ['gone@example.com'],
      webhook: {
        listen: { host: '127.0.0.1', port: 8787 },
        publicUrl: 'https://hooks.example.com/in',
        secret: 'whsec_abc',
        id: 'wh_1',
      },
      deliveryTimeoutMs: 1500,
    });
  });

  it('refuses a webhook receiver given in part, or with a malformed address or secret', () => {
    const hook = [
      '--webhook-listen',
      '127.0.0.1:8787',
      '--webhook-public-url',
      'https://h.test/in',
    ];
    expect(refusal([...live, ...hook]).message).toBe(
      'a webhook receiver needs --webhook-listen, --webhook-public-url and --webhook-secret together',
    );
    expect(refusal([...live, hook[0]!, hook[1]!, '--webhook-secret', 'whsec_a']).message).toBe(
      'a webhook receiver needs --webhook-listen, --webhook-public-url and --webhook-secret together',
    );
    expect(
      refusal([
        ...live,
        '--webhook-listen',
        '8787',
        hook[2]!,
        hook[3]!,
        '--webhook-secret',
        'whsec_a',
      ]).message,
    ).toMatch(/^--webhook-listen must be <host>:<port>/);
    expect(refusal([...live, ...hook, '--webhook-secret', 'secret']).message).toBe(
      "--webhook-secret must be the webhook's whsec_… signing secret",
    );
    expect(refusal([...live, '--suppressed', 'not an address']).message).toMatch(
      /^--suppressed must be a plain address/,
    );
    expect(refusal(['--key', 'disabled=sk-x']).message).toBe('--key needs --base-url');
  });

  it.each(['--second-api-key', '--mailbox'])('refuses %s without --base-url', (flag) => {
    expect(refusal([flag, 'a@acme.test']).message).toBe(`${flag} needs --base-url`);
  });

  it('refuses --destructive without --base-url', () => {
    expect(refusal(['--destructive']).message).toBe('--destructive needs --base-url');
  });

  it('refuses a --mailbox that is not a plain address', () => {
    expect(refusal([...live, '--mailbox', 'Ann <a@acme.test>']).message).toContain(
      '--mailbox must be a plain address',
    );
  });

  it('limits a live target to 20 requests per second and the emulator not at all', () => {
    expect(parse(live)).toMatchObject({ maxRps: 20 });
    expect(parse([])).toMatchObject({ maxRps: null });
  });

  it('takes --max-rps as a number, 0 meaning no limit', () => {
    expect(parse([...live, '--max-rps', '2.5'])).toMatchObject({ maxRps: 2.5 });
    expect(parse([...live, '--max-rps', '0'])).toMatchObject({ maxRps: null });
    expect(parse(['--max-rps', '100'])).toMatchObject({ maxRps: 100 });
  });

  it.each(['-1', 'fast', '1e3', ''])('refuses --max-rps %j', (raw) => {
    expect(refusal([`--max-rps=${raw}`]).message).toContain('--max-rps must be a number');
  });

  it('gives each request 20 s by default, or --request-timeout milliseconds', () => {
    expect(parse(live)).toMatchObject({ requestTimeoutMs: 20_000 });
    expect(parse(['--request-timeout', '1500'])).toMatchObject({ requestTimeoutMs: 1500 });
    expect(refusal(['--request-timeout', '0']).message).toContain('--request-timeout');
    expect(refusal(['--request-timeout', 'soon']).message).toContain('--request-timeout');
  });

  it('takes --report as a comma list, without repeats, and --report-dir', () => {
    expect(
      parse(['--report', 'junit, json,html,junit', '--report-dir', 'out/reports']),
    ).toMatchObject({ reports: ['junit', 'json', 'html'], reportDir: 'out/reports' });
  });

  it('refuses an unknown report format', () => {
    expect(refusal(['--report', 'console,xml']).message).toBe(
      '--report takes a comma list of console, junit, json, html, certificate, got "console,xml"',
    );
  });

  it('refuses an empty --report-dir', () => {
    expect(refusal(['--report-dir', ' ']).message).toBe('--report-dir must not be empty');
  });

  it('takes --shard index/count', () => {
    expect(parse(['--shard', '2/4'])).toMatchObject({ shard: '2/4' });
    expect(parse(['--shard', '1/1'])).toMatchObject({ shard: '1/1' });
  });

  it.each(['0/2', '3/2', '1/0', '1', 'a/b', '1/2/3'])('refuses --shard %s', (raw) => {
    expect(refusal(['--shard', raw]).message).toContain('--shard must be <index>/<count>');
  });

  it('takes --dry-run', () => {
    expect(parse(['--dry-run'])).toMatchObject({ dryRun: true });
  });

  it('shows progress unless --quiet', () => {
    expect(parse([])).toMatchObject({ quiet: false });
    expect(parse(['--quiet'])).toMatchObject({ quiet: true });
  });

  it('lists every flag and profile in --help', () => {
    for (const flag of [
      '--base-url',
      '--unversioned-base-url',
      '--api-key',
      '--second-api-key',
      '--mailbox',
      '--destructive',
      '--control-url',
      '--control-token',
      '--max-rps',
      '--profile',
      '--seed',
      '--num-runs',
      '--filter',
      '--strict',
      '--shard',
      '--dry-run',
      '--report',
      '--report-dir',
      '--quiet',
      'full',
      'quick',
      'certify',
      'read-only',
    ])
      expect(CONFORMANCE_HELP).toContain(flag);
  });

  it('takes --binding and --print-binding, and --emulator-binding only for the in-process emulator', () => {
    expect(parse(['--binding', 'b.yaml', '--print-binding'])).toMatchObject({
      bindingFile: 'b.yaml',
      printBinding: true,
    });
    expect(parse(['--emulator-binding', 'v.yaml']).target).toEqual({
      kind: 'emulator',
      binding: 'v.yaml',
    });
    expect(refusal(['--binding', ' ']).message).toMatch(/--binding must name a file/);
    expect(
      refusal([
        '--emulator-binding',
        'v.yaml',
        '--base-url',
        'https://x.test/openapi/v1',
        '--api-key',
        'sk-1',
      ]).message,
    ).toMatch(/--emulator-binding is for the in-process emulator/);
  });
});

import { describe, expect, it } from 'vitest';
import { ConfigurationError, parseConformanceArgs } from './cli-options.ts';

const BASE = 'https://mail.example.com/openapi/v1';
const seed = () => 1234;

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
      seed: 1234,
      numRuns: 50,
      filter: undefined,
      strict: false,
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
      seed: 99,
      numRuns: 100_000,
      filter: 'mailboxes',
      strict: true,
      target: { kind: 'emulator' },
    });
  });

  it('builds a live target from --base-url and --api-key', () => {
    expect(
      parseConformanceArgs(['--base-url', BASE, '--api-key', 'sk-flag'], {}, seed),
    ).toStrictEqual({
      seed: 1234,
      numRuns: 50,
      filter: undefined,
      strict: false,
      target: {
        kind: 'live',
        baseUrl: BASE,
        apiKey: 'sk-flag',
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

  it('refuses a base URL with another version', () => {
    expect(
      refusal(['--base-url', 'https://mail.example.com/openapi/v2', '--api-key', 'k']).message,
    ).toContain('/openapi/v1');
  });

  it('refuses a live target without an api key', () => {
    expect(refusal(['--base-url', BASE]).message).toBe(
      'a live target needs --api-key (or MAILTWIN_API_KEY)',
    );
  });

  it('refuses an empty MAILTWIN_API_KEY as no key', () => {
    expect(refusal(['--base-url', BASE], { MAILTWIN_API_KEY: '' }).message).toBe(
      'a live target needs --api-key (or MAILTWIN_API_KEY)',
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

import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_FIXTURES,
  SERVE_HELP,
  UsageError,
  parseServeOptions,
  type ServeOptions,
} from './cli-options.ts';

/** Parses arguments that are not a request for help. */
function options(argv: string[], cwd?: string): ServeOptions {
  const parsed = parseServeOptions(argv, cwd);
  if (parsed === 'help') throw new Error('unexpected help');
  return parsed;
}

const DEFAULTS = {
  port: 4025,
  host: '127.0.0.1',
  allowedHosts: [],
  db: null,
  readyFile: null,
  fixtures: DEFAULT_FIXTURES,
  controlToken: undefined,
  allowLoopbackWebhooks: false,
  maxRequestBytes: 26214400,
  webhookTimeoutMs: 10000,
  rateLimit: null,
  deliveryDelayMs: 0,
  log: 'text',
  smtpPort: 2525,
  smtpLimits: { maxClients: 20, dataTimeoutMs: 60_000, sessionTimeoutMs: 600_000 },
  binding: null,
  contract: null,
  responseCache: true,
};

describe('mailtwin serve options', () => {
  it('defaults to 127.0.0.1:4025, an in-memory store and the bundled demo', () => {
    expect(parseServeOptions([])).toEqual(DEFAULTS);
  });

  it('takes SMTP on 2525, on a free port with --port 0 or --smtp-port 0, and none with --no-smtp', () => {
    expect(options([]).smtpPort).toBe(2525);
    expect(options(['--smtp-port', '2626']).smtpPort).toBe(2626);
    expect(options(['--port', '0']).smtpPort).toBe(0);
    expect(options(['--port', '0', '--smtp-port', '2626']).smtpPort).toBe(2626);
    expect(options(['--smtp-port', '0']).smtpPort).toBe(0);
    expect(options(['--no-smtp']).smtpPort).toBeNull();
    expect(() => options(['--no-smtp', '--smtp-port', '1'])).toThrow(
      '--no-smtp and --smtp-port cannot be used together',
    );
    expect(() => options(['--smtp-port', '70000'])).toThrow(
      '--smtp-port must be an integer from 0 to 65535, got "70000"',
    );
  });

  it('serves repeated GETs from the response cache unless told --no-response-cache', () => {
    expect(options([]).responseCache).toBe(true);
    expect(options(['--no-response-cache']).responseCache).toBe(false);
    expect(SERVE_HELP).toContain('--no-response-cache');
  });

  it('takes the SMTP limits: connections at once, DATA and session deadlines (issue 27)', () => {
    expect(
      options([
        '--smtp-max-clients',
        '5',
        '--smtp-data-timeout-ms',
        '300',
        '--smtp-session-timeout-ms',
        '2000',
      ]).smtpLimits,
    ).toEqual({ maxClients: 5, dataTimeoutMs: 300, sessionTimeoutMs: 2000 });
    expect(() => options(['--smtp-max-clients', '0'])).toThrow(
      '--smtp-max-clients must be an integer from 1 to 10000, got "0"',
    );
    expect(() => options(['--smtp-data-timeout-ms', '1e3'])).toThrow(
      '--smtp-data-timeout-ms must be an integer from 1 to 86400000, got "1e3"',
    );
    expect(() => options(['--smtp-session-timeout-ms', '86400001'])).toThrow(
      '--smtp-session-timeout-ms must be an integer from 1 to 86400000',
    );
    expect(() => options(['--no-smtp', '--smtp-max-clients', '5'])).toThrow(
      '--no-smtp and --smtp-max-clients cannot be used together',
    );
  });

  it('finds the bundled demo fixture from the package root, whatever the working directory', () => {
    expect(DEFAULT_FIXTURES).toMatch(/[/\\]fixtures[/\\]demo\.json$/);
    expect(existsSync(DEFAULT_FIXTURES)).toBe(true);
    expect(parseServeOptions([], '/somewhere/else')).toEqual(DEFAULTS);
  });

  it('accepts --port 0 (a free port) and --host', () => {
    expect(parseServeOptions(['--port', '0', '--host', '0.0.0.0'])).toMatchObject({
      port: 0,
      host: '0.0.0.0',
    });
  });

  it.each([['-1'], ['65536'], ['4x'], ['abc'], ['']])('refuses --port=%j with a reason', (port) => {
    expect(() => parseServeOptions([`--port=${port}`])).toThrow(UsageError);
    expect(() => parseServeOptions([`--port=${port}`])).toThrow(
      /--port must be an integer from 0 to 65535/,
    );
  });

  it('resolves --db against the working directory; :memory: is the default', () => {
    expect(options(['--db', 'data/mail.db'], '/srv/app').db).toBe('/srv/app/data/mail.db');
    expect(options(['--db', '/var/lib/mailtwin.db']).db).toBe('/var/lib/mailtwin.db');
    expect(options(['--db', ':memory:']).db).toBeNull();
  });

  it('resolves --fixtures against the working directory', () => {
    expect(options(['--fixtures', 'test/data.json'], '/srv/app').fixtures).toBe(
      '/srv/app/test/data.json',
    );
  });

  it('starts empty with --no-demo, and refuses it together with --fixtures', () => {
    expect(options(['--no-demo']).fixtures).toBeNull();
    expect(() => parseServeOptions(['--no-demo', '--fixtures', 'x.json'])).toThrow(
      '--no-demo and --fixtures cannot be used together',
    );
  });

  it('takes a --control-token usable as a Bearer token, and refuses one that is not', () => {
    expect(options(['--control-token', 'mt_local-test.token']).controlToken).toBe(
      'mt_local-test.token',
    );
    expect(() => parseServeOptions(['--control-token', 'has space'])).toThrow(/--control-token/);
    expect(() => parseServeOptions(['--control-token='])).toThrow(UsageError);
  });

  it('records --allow-loopback-webhooks', () => {
    expect(options(['--allow-loopback-webhooks']).allowLoopbackWebhooks).toBe(true);
  });

  it.each([['--db'], ['--fixtures'], ['--control-token'], ['--port']])(
    'refuses %s without a value',
    (flag) => {
      expect(() => parseServeOptions([flag])).toThrow(UsageError);
    },
  );

  it('refuses unknown flags and positional arguments with a one-line reason', () => {
    expect(() => parseServeOptions(['--prot', '1'])).toThrow(
      'unknown option --prot (see mailtwin serve --help)',
    );
    expect(() => parseServeOptions(['--demo=false'])).toThrow(UsageError);
    expect(() => parseServeOptions(['extra'])).toThrow(UsageError);
    try {
      parseServeOptions(['extra']);
    } catch (error) {
      expect((error as Error).message).not.toContain('\n');
    }
  });

  it('returns help for --help and -h, and the help documents every flag', () => {
    expect(parseServeOptions(['--help'])).toBe('help');
    expect(parseServeOptions(['-h'])).toBe('help');
    for (const flag of [
      '--port',
      '--host',
      '--allowed-hosts',
      '--db',
      '--fixtures',
      '--no-demo',
      '--control-token',
      '--allow-loopback-webhooks',
      '--max-request-bytes',
      '--webhook-timeout-ms',
      '--rate-limit',
      '--delivery-delay-ms',
      '--smtp-port',
      '--smtp-max-clients',
      '--smtp-data-timeout-ms',
      '--smtp-session-timeout-ms',
      '--no-smtp',
      '--binding',
      '--contract',
      '--help',
    ]) {
      expect(SERVE_HELP).toContain(flag);
    }
  });
});

describe('--allowed-hosts (D-66)', () => {
  it('serves no extra name by default; takes names comma-separated or repeated, lower case, once each', () => {
    expect(options([]).allowedHosts).toEqual([]);
    expect(
      options(['--allowed-hosts', 'Mail.test,.dev.test', '--allowed-hosts', 'mail.test,[::1]'])
        .allowedHosts,
    ).toEqual(['mail.test', '.dev.test', '[::1]']);
  });

  it.each(['all', 'true'])('turns the check off with %s, alone', (value) => {
    expect(options(['--allowed-hosts', value]).allowedHosts).toBe('all');
    expect(() => options(['--allowed-hosts', `${value},mail.test`])).toThrow(
      '--allowed-hosts all (or true) cannot be combined with host names',
    );
  });

  it.each(['', 'a b.test', 'http://mail.test', 'mail.test:4025', 'a..test', 'user@mail.test'])(
    'refuses %j with a reason',
    (value) => {
      expect(() => options([`--allowed-hosts=${value}`])).toThrow(
        /^--allowed-hosts takes host names separated by commas/,
      );
    },
  );
});

describe('--max-request-bytes (D-27)', () => {
  it('models the platform request limit, 25 MiB by default', () => {
    expect((parseServeOptions([]) as { maxRequestBytes: number }).maxRequestBytes).toBe(26_214_400);
    expect(
      (parseServeOptions(['--max-request-bytes', '1048576']) as { maxRequestBytes: number })
        .maxRequestBytes,
    ).toBe(1_048_576);
  });

  it.each(['0', '1023', '12x', '-5'])('refuses %j with a reason', (value) => {
    expect(() => parseServeOptions([`--max-request-bytes=${value}`])).toThrow(
      /--max-request-bytes must be an integer of at least 1024/,
    );
  });
});

describe('--rate-limit <n>/<window> (D-38)', () => {
  it('sets no limit by default', () => {
    expect(options([]).rateLimit).toBeNull();
  });

  it.each([
    ['100/1m', 100, 60_000],
    ['10/1s', 10, 1_000],
    ['5000/1h', 5000, 3_600_000],
    ['1/30s', 1, 30_000],
    ['1000000/24h', 1_000_000, 86_400_000],
    ['3/1440m', 3, 86_400_000],
  ])('reads %s as %i requests per %i ms', (value, requests, windowMs) => {
    expect(options(['--rate-limit', value]).rateLimit).toEqual({ requests, windowMs });
    expect(options([`--rate-limit=${value}`]).rateLimit).toEqual({ requests, windowMs });
  });

  it.each([
    [''],
    ['100'],
    ['100/'],
    ['/1m'],
    ['100/m'],
    ['100/1'],
    ['100/1ms'],
    ['100/1d'],
    ['100/1M'],
    ['100 / 1m'],
    ['100/1m '],
    ['0/1m'],
    ['100/0s'],
    ['010/1m'],
    ['100/01m'],
    ['-1/1m'],
    ['1.5/1m'],
    ['100/1.5m'],
    ['1e3/1m'],
    ['100per1m'],
  ])('refuses %j with the expected form in the reason', (value) => {
    expect(() => parseServeOptions([`--rate-limit=${value}`])).toThrow(UsageError);
    expect(() => parseServeOptions([`--rate-limit=${value}`])).toThrow(
      `--rate-limit must be <requests>/<window>, the window a number and s, m or h (e.g. 100/1m, 10/1s, 5000/1h), got "${value}"`,
    );
  });

  it.each([['1000001/1m'], ['99999999/1s']])('refuses %s: more than 1000000 requests', (value) => {
    expect(() => parseServeOptions(['--rate-limit', value])).toThrow(
      `--rate-limit allows 1 to 1000000 requests per window, got "${value}"`,
    );
  });

  it.each([['1/25h'], ['1/86401s'], ['1/1441m'], ['1/99999999999h']])(
    'refuses %s: a window longer than 24h',
    (value) => {
      expect(() => parseServeOptions(['--rate-limit', value])).toThrow(
        `--rate-limit windows are 1s to 24h, got "${value}"`,
      );
    },
  );

  it('refuses --rate-limit without a value', () => {
    expect(() => parseServeOptions(['--rate-limit'])).toThrow(UsageError);
  });
});

describe('--delivery-delay-ms <n>', () => {
  it('delivers at once (0) by default', () => {
    expect(options([]).deliveryDelayMs).toBe(0);
  });

  it.each([
    ['0', 0],
    ['1', 1],
    ['2500', 2500],
    ['3600000', 3_600_000],
  ])('reads %s as %i ms', (value, ms) => {
    expect(options(['--delivery-delay-ms', value]).deliveryDelayMs).toBe(ms);
    expect(options([`--delivery-delay-ms=${value}`]).deliveryDelayMs).toBe(ms);
  });

  it.each([['3600001'], ['99999999'], ['-1'], ['1.5'], ['1e3'], ['5s'], [' 5'], ['']])(
    'refuses %j with a one-line reason',
    (value) => {
      const parse = () => parseServeOptions([`--delivery-delay-ms=${value}`]);
      expect(parse).toThrow(UsageError);
      expect(parse).toThrow(
        `--delivery-delay-ms must be an integer from 0 to 3600000, got "${value}"`,
      );
    },
  );

  it('refuses --delivery-delay-ms without a value', () => {
    expect(() => parseServeOptions(['--delivery-delay-ms'])).toThrow(UsageError);
  });

  it('says in the help that mail on its way is lost when mailtwin stops', () => {
    expect(SERVE_HELP).toMatch(/--delivery-delay-ms <n>[\s\S]*still on its way[\s\S]*is lost/);
  });
});

describe('--log and --quiet (the request log)', () => {
  it('logs text by default, JSON lines with --log json, nothing with --quiet', () => {
    expect(options([]).log).toBe('text');
    expect(options(['--log', 'json']).log).toBe('json');
    expect(options(['--log', 'text']).log).toBe('text');
    expect(options(['--quiet']).log).toBeNull();
  });

  it('refuses another format, and --quiet with --log', () => {
    expect(() => options(['--log', 'xml'])).toThrow('--log must be text or json, got "xml"');
    expect(() => options(['--quiet', '--log', 'json'])).toThrow(
      '--quiet and --log cannot be used together',
    );
  });
});

describe('--binding and --contract (issue 26)', () => {
  it('speaks no binding by default; resolves a --binding file against the working directory', () => {
    expect(parseServeOptions([])).toMatchObject({ binding: null, contract: null });
    expect(parseServeOptions(['--binding', 'b.yaml'], '/work')).toMatchObject({
      binding: '/work/b.yaml',
    });
  });

  it('takes --contract as a URL as given, or a file against the working directory', () => {
    const url = 'https://mail.example.com/openapi/openapi.json';
    expect(parseServeOptions(['--contract', url])).toMatchObject({ contract: url });
    expect(parseServeOptions(['--contract', 'doc.json'], '/work')).toMatchObject({
      contract: '/work/doc.json',
    });
  });

  it('refuses both at once, and an empty value', () => {
    expect(() => parseServeOptions(['--binding', 'b.yaml', '--contract', 'd.json'])).toThrow(
      '--binding and --contract cannot be used together',
    );
    expect(() => parseServeOptions(['--binding', ' '])).toThrow('--binding needs a value');
  });
});

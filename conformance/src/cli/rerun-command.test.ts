import { describe, expect, it } from 'vitest';
import { parseConformanceArgs, type CliRun } from './options.ts';
import { rerunCommand } from './rerun-command.ts';

const seed = () => 1234;

const SECRETS = {
  MAILTWIN_API_KEY: 'sk-follow-owner-0123456789abcdef',
  MAILTWIN_SECOND_API_KEY: 'sk-other-owner-0123456789abcdef',
  MAILTWIN_WEBHOOK_SECRET: 'whsec_0123456789abcdefghijklmnop',
  MAILTWIN_CONTROL_TOKEN: 'mt_control-0123456789abcdef',
};
const ROLE_SECRETS: Record<string, string> = {
  'one-domain': 'sk-one-domain-0123456789abcdef',
  'selected-mailbox': 'sk-selected-0123456789abcdef',
  disabled: 'sk-disabled-0123456789abcdef',
  'disabled-owner': 'sk-disabled-owner-0123456789ab',
};

/**
 * The words a POSIX shell makes of `command` with `env` set: single quotes literal, double
 * quotes expanding `$NAME`, a backslash escaping the next character outside quotes.
 */
function shellWords(command: string, env: Record<string, string>): string[] {
  const words: string[] = [];
  let word: string | undefined;
  for (let i = 0; i < command.length; i++) {
    const c = command[i]!;
    if (c === ' ') {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else if (c === "'") {
      const end = command.indexOf("'", i + 1);
      word = (word ?? '') + command.slice(i + 1, end);
      i = end;
    } else if (c === '"') {
      const end = command.indexOf('"', i + 1);
      word =
        (word ?? '') +
        command.slice(i + 1, end).replace(/\$([A-Z_]+)/g, (_, name: string) => env[name] ?? '');
      i = end;
    } else if (c === '\\') {
      word = (word ?? '') + command[++i];
    } else {
      word = (word ?? '') + c;
    }
  }
  if (word !== undefined) words.push(word);
  return words;
}

/** Runs the printed command again, as a person would: the variables set, each key in place. */
function rerun(run: CliRun): CliRun {
  const command = rerunCommand(run);
  const filled = command.replace(
    /<secret of --key ([a-z-]+)>/g,
    (_, role: string) => ROLE_SECRETS[role]!,
  );
  const [npx, bin, ...argv] = shellWords(filled, SECRETS);
  expect(`${npx} ${bin}`).toBe('npx mailtwin-conformance');
  return parseConformanceArgs(argv, {}, () => 999) as CliRun;
}

const API_WORLD = [
  '--base-url',
  'https://mail.example.com/openapi/v1',
  '--api-key',
  SECRETS.MAILTWIN_API_KEY,
  '--second-api-key',
  SECRETS.MAILTWIN_SECOND_API_KEY,
  ...Object.entries(ROLE_SECRETS).flatMap(([role, key]) => ['--key', `${role}=${key}`]),
  '--mailbox',
  'a@example.com',
  '--mailbox',
  'b@example.com',
  '--destructive',
  '--suppressed',
  'bounced@example.com',
  '--webhook-listen',
  '[::1]:8787',
  '--webhook-public-url',
  'https://tunnel.example.net/hook?from=mailtwin&x=1',
  '--webhook-secret',
  SECRETS.MAILTWIN_WEBHOOK_SECRET,
  '--webhook-id',
  'wh_123',
  '--delivery-timeout',
  '90000',
  '--max-rps',
  '0',
  '--request-timeout',
  '30000',
  '--profile',
  'certify',
  '--seed=-5',
  '--num-runs',
  '7',
  '--strict',
  '--report',
  'certificate,json',
  '--report-dir',
  "out dir/vendor's run",
];

describe('rerunCommand', () => {
  it('prints a command that parses back to the same run, every flag of an API world kept', () => {
    const run = parseConformanceArgs(API_WORLD, {}, seed) as CliRun;
    expect(rerun(run)).toStrictEqual(run);
  });

  it('puts a placeholder in place of every secret', () => {
    const command = rerunCommand(parseConformanceArgs(API_WORLD, {}, seed) as CliRun);
    for (const secret of [...Object.values(SECRETS), ...Object.values(ROLE_SECRETS)])
      expect(command).not.toContain(secret);
    expect(command).toContain('--api-key "$MAILTWIN_API_KEY"');
    expect(command).toContain('--second-api-key "$MAILTWIN_SECOND_API_KEY"');
    expect(command).toContain("--key 'one-domain=<secret of --key one-domain>'");
    expect(command).toContain('--webhook-secret "$MAILTWIN_WEBHOOK_SECRET"');
  });

  it('keeps a control plane, an unversioned base URL and a filter, its token a placeholder', () => {
    const run = parseConformanceArgs(
      [
        '--base-url',
        'http://127.0.0.1:4010',
        '--unversioned-base-url',
        '--api-key',
        SECRETS.MAILTWIN_API_KEY,
        '--control-url',
        'http://127.0.0.1:4011/_mailtwin/v1',
        '--control-token',
        SECRETS.MAILTWIN_CONTROL_TOKEN,
        '--filter',
        `agrees with a "model"`,
        '--max-rps',
        '5',
        '--seed',
        '3',
      ],
      {},
      seed,
    ) as CliRun;
    const command = rerunCommand(run);
    expect(command).not.toContain(SECRETS.MAILTWIN_CONTROL_TOKEN);
    expect(command).toContain('--control-token "$MAILTWIN_CONTROL_TOKEN"');
    expect(rerun(run)).toStrictEqual(run);
  });

  it('gives the in-process run with its defaults left out', () => {
    const run = parseConformanceArgs(
      ['--profile', 'certify', '--seed', '1', '--report', 'certificate', '--report-dir', '/tmp/c'],
      {},
      seed,
    ) as CliRun;
    expect(rerunCommand(run)).toBe(
      'npx mailtwin-conformance --profile certify --seed 1 --report certificate --report-dir /tmp/c',
    );
    expect(rerun(run)).toStrictEqual(run);
  });
});

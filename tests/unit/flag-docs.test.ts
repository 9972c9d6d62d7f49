// Issue 29 item 4: each command's flags are defined once (a table of name, type, default and
// description) and the parser, `--help` and the tables of docs/ are made from it. This holds
// them together: a docs table edited by hand (or not regenerated with `npm run docs:flags`), a
// help text that lists another flag, or a parser that takes another default fails here.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SERVE_FLAGS, SERVE_HELP, parseServeOptions } from '../../emulator/src/cli-options.ts';
import {
  BINDING_FLAGS,
  BINDING_HELP,
  parseBindingOptions,
} from '../../emulator/src/commands/binding.ts';
import {
  LISTEN_FLAGS,
  LISTEN_HELP,
  parseListenOptions,
} from '../../emulator/src/commands/listen.ts';
import {
  TRIGGER_FLAGS,
  TRIGGER_HELP,
  parseTriggerOptions,
} from '../../emulator/src/commands/trigger.ts';
import { flagUsage, helpOptions, type Flag } from '../../shared/flag-table.ts';
import {
  CONFORMANCE_FLAGS,
  CONFORMANCE_HELP,
  parseConformanceArgs,
} from '../../conformance/src/cli/options.ts';
import { FLAG_TABLES, ROOT, flagTable, regenerated } from '../docs/flag-docs.ts';

const CONTROL = ['--url', 'http://127.0.0.1:4025', '--token', 'tok'];
const NOW = () => new Date('2026-01-01T00:00:00Z');

/** Each command: its table, its help, and its parser from a command line that it accepts. */
const COMMANDS: {
  command: string;
  flags: readonly Flag[];
  help: string;
  base: string[];
  parse: (argv: string[]) => unknown;
}[] = [
  {
    command: 'serve',
    flags: SERVE_FLAGS,
    help: SERVE_HELP,
    base: [],
    parse: (argv) => parseServeOptions(argv, ROOT),
  },
  {
    command: 'binding',
    flags: BINDING_FLAGS,
    help: BINDING_HELP,
    base: ['--from', 'https://mail.example.test/openapi/openapi.json'],
    parse: (argv) => parseBindingOptions(argv, ROOT),
  },
  {
    command: 'listen',
    flags: LISTEN_FLAGS,
    help: LISTEN_HELP,
    base: ['--forward-to', 'http://localhost:3000/hooks', ...CONTROL],
    parse: (argv) => parseListenOptions(argv, {}),
  },
  {
    command: 'trigger',
    flags: TRIGGER_FLAGS,
    help: TRIGGER_HELP,
    base: ['email.received', '--mailbox', 'hello@acme.test', ...CONTROL],
    parse: (argv) => parseTriggerOptions(argv, {}, NOW),
  },
  {
    command: 'mailtwin-conformance',
    flags: CONFORMANCE_FLAGS,
    help: CONFORMANCE_HELP,
    base: ['--base-url', 'https://mail.example.test/openapi/v1', '--api-key', 'sk-1'],
    parse: (argv) => parseConformanceArgs(argv, {}, () => 7),
  },
];

/** The flags a help text lists: every `--name` that starts an option line. */
function helpFlags(help: string): string[] {
  return [...help.matchAll(/^ {2}(?:-\w, )?--([\w-]+)/gm)].map((match) => match[1]!);
}

describe.each(COMMANDS)('$command', ({ command, flags, help, base, parse }) => {
  it('--help lists every flag of its table, with its default, and no other', () => {
    expect(helpFlags(help)).toEqual(
      flags
        .map((flag) => flag.name)
        .filter((n) => n !== 'help')
        .concat('help'),
    );
    expect(help).toContain(helpOptions(flags));
  });

  it('the parser takes every flag of the table, and only those', () => {
    for (const flag of flags.filter((f) => f.name !== 'help')) {
      const argv = [...base, `--${flag.name}`, ...(flag.type === 'boolean' ? [] : ['x'])];
      let refusal = '';
      try {
        parse(argv);
      } catch (error) {
        refusal = (error as Error).message;
      }
      expect(refusal, flagUsage(flag)).not.toMatch(/unknown option|Unknown option/i);
    }
    expect(() => parse([...base, '--no-such-flag'])).toThrow(/no-such-flag/);
    expect(parse([...base, '--help'])).toBe('help');
  });

  it('giving a flag the default its table names changes nothing', () => {
    const defaults = flags.filter((flag) => flag.default !== undefined);
    const plain = parse(base);
    for (const flag of defaults) {
      expect(parse([...base, `--${flag.name}`, flag.default!]), flagUsage(flag)).toEqual(plain);
    }
  });

  it('its table in docs/ is the one the definition makes (npm run docs:flags)', () => {
    const { page } = FLAG_TABLES.find((table) => table.command === command)!;
    const text = readFileSync(join(ROOT, page), 'utf8');
    expect(text).toContain(
      `<!-- flags: ${command} -->\n\n${flagTable(flags)}\n\n<!-- /flags: ${command} -->`,
    );
  });
});

describe('npm run docs:flags', () => {
  it('would change no page of docs/', () => {
    for (const [page, { now, made }] of regenerated()) expect(now, page).toBe(made);
  });

  it('writes a table each row of which names a flag, its default and its meaning', () => {
    const table = flagTable([
      { name: 'port', type: 'string', value: '<n>', default: '4025', description: 'TCP port' },
      { name: 'log', type: 'string', value: '<text|json>', unset: 'text', description: 'Format' },
      { name: 'quiet', type: 'boolean', description: 'No log' },
    ]).split('\n');
    expect(table.map((row) => row.replace(/ +/g, ' '))).toEqual([
      '| Flag | Default | Meaning |',
      expect.stringMatching(/^\| -+ \| -+ \| -+ \|$/),
      '| `--port <n>` | `4025` | TCP port |',
      '| `--log <text\\|json>` | text | Format |',
      '| `--quiet` | off | No log |',
    ]);
  });
});

describe('the parsers', () => {
  it.each([
    ['emulator/src/cli-options.ts', 'SERVE_FLAGS'],
    ['emulator/src/commands/binding.ts', 'BINDING_FLAGS'],
    ['emulator/src/commands/listen.ts', 'LISTEN_FLAGS'],
    ['emulator/src/commands/trigger.ts', 'TRIGGER_FLAGS'],
    ['conformance/src/cli/options.ts', 'CONFORMANCE_FLAGS'],
  ])('%s hands parseArgs the options of %s and nothing else', (path, table) => {
    const source = readFileSync(join(ROOT, path), 'utf8');
    expect(source.match(/\bparseArgs\(/g)).toHaveLength(1);
    expect(source).toMatch(
      new RegExp(`parseArgs\\(\\{[^}]*options: parseArgsOptions\\(${table}\\),[^}]*\\}\\)`),
    );
  });
});

describe('shared/flag-table.ts', () => {
  it('is the one flag table: no source of either program declares a Flag of its own', () => {
    const declaring = ['emulator/src', 'conformance/src', 'shared'].flatMap((dir) =>
      (readdirSync(join(ROOT, dir), { recursive: true }) as string[])
        .filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts'))
        .map((file) => `${dir}/${file}`)
        .filter((path) => /\binterface Flag\b/.test(readFileSync(join(ROOT, path), 'utf8'))),
    );
    expect(declaring).toEqual(['shared/flag-table.ts']);
  });

  it.each([
    'emulator/src/cli-options.ts',
    'emulator/src/commands/binding.ts',
    'emulator/src/commands/listen.ts',
    'emulator/src/commands/trigger.ts',
    'conformance/src/cli/options.ts',
  ])('%s parses with it', (path) => {
    expect(readFileSync(join(ROOT, path), 'utf8')).toMatch(
      /import \{[^}]*\bparseArgsOptions\b[^}]*\} from '(\.\.\/)+shared\/flag-table\.ts';/,
    );
  });
});

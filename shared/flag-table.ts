import type { ParseArgsConfig } from 'node:util';

/**
 * One command-line flag, written once (issue 29 item 4): the parser's options
 * (`parseArgsOptions`), `--help` (`helpOptions`) and the tables of docs/ (`npm run docs:flags`)
 * are all made from it, and tests/unit/flag-docs.test.ts fails when any of them disagrees.
 * Both programs' commands use this one table machinery: shared/ is neutral ground that imports
 * nothing of the emulator or the suite (.dependency-cruiser.cjs), so the suite still imports
 * nothing of the emulator but its in-process entry point.
 */
export interface Flag {
  /** The long name, without `--`. */
  name: string;
  /** `boolean` takes no value; `string` one; `string[]` one each time it is repeated. */
  type: 'boolean' | 'string' | 'string[]';
  /** What the value stands for, shown after the name (`<n>`, `<url or file>`). */
  value?: string;
  /** A one-letter alias (`h` for help). */
  short?: string;
  /**
   * The value the command takes when the flag is absent, written as one would type it: giving
   * the flag this value changes nothing (a unit test holds each command to that). Absent for a
   * flag whose default is no value (see `unset`) and for booleans (off unless given).
   */
  default?: string;
  /** Why the default is what it is, or when it differs (`25 MiB`, `0 with --port 0`). */
  defaultNote?: string;
  /** What the command does without the flag, where that is no value one could type. */
  unset?: string;
  /** The command refuses to run without it. */
  required?: true;
  /** What the flag does: plain text, one paragraph, the same in `--help` and in docs/. */
  description: string;
  /** A heading of `--help` the flag is listed under, for commands with many. */
  group?: string;
}

/** node:util `parseArgs`'s option for one flag, typed so its value is typed too. */
type OptionOf<F extends Flag> = F['type'] extends 'boolean'
  ? { type: 'boolean'; short?: string }
  : F['type'] extends 'string[]'
    ? { type: 'string'; multiple: true; short?: string }
    : { type: 'string'; short?: string };

/** The options a table declares, by name (the table written `as const`). */
export type OptionsOf<T extends readonly Flag[]> = { [F in T[number] as F['name']]: OptionOf<F> };

/** The options of node:util `parseArgs` the table declares, `--help` included. */
export function parseArgsOptions<const T extends readonly Flag[]>(flags: T): OptionsOf<T> {
  const options: NonNullable<ParseArgsConfig['options']> = Object.fromEntries(
    flags.map((flag) => [
      flag.name,
      {
        type: flag.type === 'boolean' ? 'boolean' : 'string',
        ...(flag.type === 'string[]' ? { multiple: true } : {}),
        ...(flag.short === undefined ? {} : { short: flag.short }),
      },
    ]),
  );
  return options as OptionsOf<T>;
}

/** The table's default of a flag that has one, for the parser to fall back on. */
export function defaultOf<const T extends readonly Flag[]>(
  flags: T,
  name: T[number]['name'],
): string {
  const value = flags.find((flag) => flag.name === name)?.default;
  if (value === undefined) throw new Error(`--${name} has no default in its table`);
  return value;
}

/** `--port <n>`, as help and docs name a flag. */
export function flagUsage(flag: Flag): string {
  return `--${flag.name}${flag.value === undefined ? '' : ` ${flag.value}`}`;
}

/** The default as help and docs print it: `4025`, `26214400 (25 MiB)`, `in memory`, `off`. */
export function defaultText(flag: Flag): string {
  if (flag.required) return 'required';
  const value = flag.default ?? flag.unset ?? (flag.type === 'boolean' ? 'off' : 'none');
  return flag.defaultNote === undefined ? value : `${value} (${flag.defaultNote})`;
}

const HELP_WIDTH = 100;
const NAME_WIDTH = 27;

/** ` (default: 4025)`, ` (default: 50; 10 with --profile quick)`, or nothing when none. */
function helpDefault(flag: Flag): string {
  if (flag.required) return ' (required)';
  const value = flag.default ?? flag.unset;
  if (value === undefined) return '';
  return ` (default: ${value}${flag.defaultNote === undefined ? '' : `; ${flag.defaultNote}`})`;
}

/** Words wrapped to `width` columns. */
export function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter((w) => w !== '')) {
    if (line !== '' && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line === '' ? word : `${line} ${word}`;
  }
  if (line !== '') lines.push(line);
  return lines;
}

/**
 * The options part of `--help`: each flag, its description and its default, wrapped to 100
 * columns; the table's groups as headings (in the order they first appear); `-h, --help` last.
 */
export function helpOptions(flags: readonly Flag[]): string {
  const out: string[] = [];
  const listed = flags.filter((flag) => flag.name !== 'help');
  const groups = [...new Set(listed.map((flag) => flag.group))];
  for (const group of groups) {
    out.push(group === undefined ? 'Options:' : `${group}:`);
    for (const flag of listed.filter((f) => f.group === group)) {
      const usage = `  ${flagUsage(flag)}`;
      const body = wrap(`${flag.description}${helpDefault(flag)}`, HELP_WIDTH - NAME_WIDTH);
      if (usage.length > NAME_WIDTH - 2) out.push(usage);
      else out.push(`${usage.padEnd(NAME_WIDTH)}${body.shift() ?? ''}`);
      for (const line of body) out.push(`${' '.repeat(NAME_WIDTH)}${line}`);
    }
    if (group !== groups.at(-1)) out.push('');
  }
  out.push(`${'  -h, --help'.padEnd(NAME_WIDTH)}Show this help`);
  return `${out.join('\n')}\n`;
}

/** The `help` flag every command takes, so parsers and tables list it alike. */
export const HELP_FLAG = {
  name: 'help',
  type: 'boolean',
  short: 'h',
  description: 'Show this help',
} as const satisfies Flag;

// `npm run docs:flags`: writes each command's flag table into docs/ between its markers,
// `<!-- flags: <command> -->` and `<!-- /flags: <command> -->`, from the one definition of its
// flags (issue 29 item 4). `--check` changes nothing and exits 1 naming a table that differs.
// tests/unit/flag-docs.test.ts fails when a table, `--help` or a parser disagrees with it.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SERVE_FLAGS } from '../../emulator/src/serve-flags.ts';
import { BINDING_FLAGS } from '../../emulator/src/commands/binding.ts';
import { LISTEN_FLAGS } from '../../emulator/src/commands/listen.ts';
import { TRIGGER_FLAGS } from '../../emulator/src/commands/trigger.ts';
import { defaultText, flagUsage, type Flag } from '../../shared/flag-table.ts';
import { CONFORMANCE_FLAGS } from '../../conformance/src/cli/flags.ts';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Each command whose flags docs/ lists, and the page that lists them. */
export const FLAG_TABLES: readonly { command: string; flags: readonly Flag[]; page: string }[] = [
  { command: 'serve', flags: SERVE_FLAGS, page: 'docs/serve.md' },
  { command: 'binding', flags: BINDING_FLAGS, page: 'docs/serve.md' },
  { command: 'listen', flags: LISTEN_FLAGS, page: 'docs/webhooks.md' },
  { command: 'trigger', flags: TRIGGER_FLAGS, page: 'docs/webhooks.md' },
  { command: 'mailtwin-conformance', flags: CONFORMANCE_FLAGS, page: 'docs/suite-options.md' },
];

/** Text in a table cell: a `|` would end the cell. */
const cell = (text: string) => text.replace(/\|/g, '\\|');

/**
 * The Markdown table of a command's flags (help aside), its columns padded as Prettier pads
 * them, so `npm run format` leaves it as written.
 */
export function flagTable(flags: readonly Flag[]): string {
  const rows = flags
    .filter((flag) => flag.name !== 'help')
    .map((flag) => [
      cell(`\`${flagUsage(flag)}\``),
      cell(
        flag.default === undefined
          ? defaultText(flag)
          : `\`${flag.default}\`${flag.defaultNote === undefined ? '' : ` (${flag.defaultNote})`}`,
      ),
      cell(flag.description),
    ]);
  const header = ['Flag', 'Default', 'Meaning'];
  const widths = header.map((title, i) =>
    Math.max(title.length, ...rows.map((row) => [...row[i]!].length)),
  );
  const line = (row: string[]) =>
    `| ${row.map((text, i) => text + ' '.repeat(widths[i]! - [...text].length)).join(' | ')} |`;
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

const markers = (command: string) =>
  [`<!-- flags: ${command} -->`, `<!-- /flags: ${command} -->`] as const;

/** The page with the command's table written between its markers; throws if they are missing. */
export function withTable(page: string, command: string, flags: readonly Flag[]): string {
  const [open, close] = markers(command);
  const start = page.indexOf(open);
  const end = page.indexOf(close);
  if (start < 0 || end < start) throw new Error(`no ${open} … ${close} markers`);
  return `${page.slice(0, start)}${open}\n\n${flagTable(flags)}\n\n${page.slice(end)}`;
}

/** Every page of docs/ with its tables as the definitions make them, by path. */
export function regenerated(): Map<string, { now: string; made: string }> {
  const pages = new Map<string, { now: string; made: string }>();
  for (const { command, flags, page } of FLAG_TABLES) {
    const entry = pages.get(page) ?? {
      now: readFileSync(join(ROOT, page), 'utf8'),
      made: readFileSync(join(ROOT, page), 'utf8'),
    };
    entry.made = withTable(entry.made, command, flags);
    pages.set(page, entry);
  }
  return pages;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const check = process.argv.includes('--check');
  let stale = 0;
  for (const [page, { now, made }] of regenerated()) {
    if (now === made) continue;
    stale += 1;
    if (check) process.stderr.write(`${page}: a flag table differs from its definition\n`);
    else {
      writeFileSync(join(ROOT, page), made);
      process.stdout.write(`${page}: flag tables rewritten\n`);
    }
  }
  if (stale === 0) process.stdout.write('docs/: every flag table matches its definition\n');
  process.exitCode = check && stale > 0 ? 1 : 0;
}

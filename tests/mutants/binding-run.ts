/**
 * `npm run can-fail -- --binding <file>` (issue 26 item 7: the suite's power survives renaming):
 * which binding the emulator speaks while the named mutants run, and the suite's flags that
 * make it check the emulator through that binding.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { basename, extname, join, resolve } from 'node:path';
import { parse } from 'yaml';
import type { NamedMutant } from './named-mutant.ts';

/** The binding the emulator speaks in a `--binding` run, and how the suite is told about it. */
export interface BindingRun {
  /** Absolute path: every copy of the repository reads the same file. */
  file: string;
  /** The file's name without its extension: names the report. */
  name: string;
  /**
   * Entries the document the emulator publishes under it leaves ambiguous (an error table with
   * one code for several conditions), as the suite lists them; when any, the suite is given
   * `--binding <file>` besides inferring.
   */
  ambiguous: string[];
  /** The file's entries, as written (the default's fill the rest). */
  entries: unknown;
  /** The binding the suite inferred from the published document, when it was not ambiguous. */
  inferred?: unknown;
}

/**
 * Reads `path` (relative to `cwd`) as a `--binding` run: asks the suite in `root` to infer the
 * binding back from the in-process emulator speaking it (`--emulator-binding <file>
 * --print-binding`; the served document is the same in process and as a separate server).
 * Throws with the suite's reason when the emulator refuses the file or inference fails
 * otherwise than by ambiguity.
 */
export function probeBinding(path: string, cwd: string, root: string): BindingRun {
  const file = resolve(cwd, path);
  if (!existsSync(file)) throw new Error(`--binding ${path}: no such file (${file})`);
  const name = basename(file, extname(file));
  const entries: unknown = parse(readFileSync(file, 'utf8'));
  const probe = spawnSync(
    process.execPath,
    [join(root, 'bin/mailtwin-conformance.js'), '--emulator-binding', file, '--print-binding'],
    { cwd: root, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } },
  );
  if (probe.status === 0)
    return { file, name, ambiguous: [], entries, inferred: parse(probe.stdout) as unknown };
  if (probe.status === 2 && /ambiguous/.test(probe.stderr)) {
    const ambiguous = probe.stderr.match(/^ {2}\/\S+(?=:)/gm)?.map((entry) => entry.trim()) ?? [];
    return { file, name, ambiguous, entries };
  }
  throw new Error(
    `--binding ${path}: the suite could not read the binding back from the emulator speaking it (exit ${probe.status}):\n${probe.stderr.trim()}`,
  );
}

/**
 * The suite's flags for a run against the emulator speaking `binding`: in process the suite
 * starts it with `--emulator-binding` (in an API world the server was started with `mailtwin
 * serve --binding`); the suite infers the binding from what the emulator publishes, and is
 * given the file too where that is ambiguous.
 */
export function suiteBindingFlags(binding: BindingRun | undefined, apiWorld: boolean): string[] {
  if (binding === undefined) return [];
  return [
    ...(apiWorld ? [] : ['--emulator-binding', binding.file]),
    ...(binding.ambiguous.length > 0 ? ['--binding', binding.file] : []),
  ];
}

/** `mailtwin serve` arguments for the server of an API-world run under `binding`. */
export function serveBindingArgs(binding: BindingRun | undefined): string[] {
  return binding === undefined ? [] : ['--binding', binding.file];
}

/**
 * Why `mutant`'s fault cannot be seen under `binding` (its `hiddenBy`, when the binding's entry
 * there differs from the default binding's, `defaults`), or undefined when it can be.
 */
export function hiddenUnder(
  mutant: Pick<NamedMutant, 'hiddenBy'>,
  binding: BindingRun | undefined,
  defaults: unknown,
): string | undefined {
  if (binding === undefined || mutant.hiddenBy === undefined) return undefined;
  const { entry, reason } = mutant.hiddenBy;
  const value = at(binding.entries, entry);
  if (value === undefined || JSON.stringify(value) === JSON.stringify(at(defaults, entry)))
    return undefined;
  return `${reason} (${entry}: ${JSON.stringify(value)})`;
}

/** The default binding's entries (spec/bindings/decisions.yaml). */
export function defaultEntries(root: string): unknown {
  return parse(readFileSync(join(root, 'spec/bindings/decisions.yaml'), 'utf8'));
}

/** The value at a JSON pointer, or undefined. */
function at(document: unknown, pointer: string): unknown {
  let node = document;
  for (const raw of pointer.split('/').slice(1)) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (typeof node !== 'object' || node === null) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

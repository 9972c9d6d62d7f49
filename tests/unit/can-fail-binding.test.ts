/**
 * `npm run can-fail -- --binding <file>` (issue 26 item 7): the named mutants run with the
 * emulator speaking a renaming binding, and the suite is told about it the way a vendor's run
 * would be: it infers the binding from the document the emulator publishes, and gets the file
 * only where that document is ambiguous. The mutant runs themselves are can-fail's job.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import {
  defaultEntries,
  hiddenUnder,
  probeBinding,
  serveBindingArgs,
  suiteBindingFlags,
  type BindingRun,
} from '../mutants/binding-run.ts';
import { CATALOGUE } from '../mutants/catalogue.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const VARIANTS = join(ROOT, 'tests/variants/bindings');

describe('can-fail --binding', () => {
  it('reads all-renames.yaml back from the emulator speaking it, with no ambiguous entry', () => {
    const run = probeBinding('tests/variants/bindings/all-renames.yaml', ROOT, ROOT);
    expect(run).toMatchObject({
      file: join(VARIANTS, 'all-renames.yaml'),
      name: 'all-renames',
      ambiguous: [],
      entries: { list: { array: 'data' } },
    });
    // Every entry the file writes is what the suite reads back (none silently the default's).
    const leaves = (node: unknown, path: string): [string, unknown][] =>
      typeof node === 'object' && node !== null && !Array.isArray(node)
        ? Object.entries(node).flatMap(([key, value]) => leaves(value, `${path}/${key}`))
        : [[path, node]];
    const read = new Map(leaves(run.inferred, ''));
    for (const [pointer, value] of leaves(run.entries, ''))
      if (pointer !== '/name') expect(read.get(pointer), pointer).toEqual(value);
    expect(suiteBindingFlags(run, false)).toEqual(['--emulator-binding', run.file]);
    expect(suiteBindingFlags(run, true)).toEqual([]);
    expect(serveBindingArgs(run)).toEqual(['--binding', run.file]);
  });

  it('gives the suite the error table too, whose published document is ambiguous', () => {
    const run = probeBinding(join(VARIANTS, 'error-table.yaml'), tmpdir(), ROOT);
    expect(run.name).toBe('error-table');
    expect(run.ambiguous).toEqual(['/errors/too_many_recipients', '/errors/recipient_suppressed']);
    expect(suiteBindingFlags(run, false)).toEqual([
      '--emulator-binding',
      run.file,
      '--binding',
      run.file,
    ]);
    expect(suiteBindingFlags(run, true)).toEqual(['--binding', run.file]);
  });

  it('stops on a binding the emulator refuses, with the reason', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mailtwin-can-fail-binding-'));
    writeFileSync(join(dir, 'bad.yaml'), 'binding: 1\nname: bad\nlist: { array: 3 }\n');
    expect(() => probeBinding('bad.yaml', dir, ROOT)).toThrow(/could not read the binding back/);
    expect(() => probeBinding('missing.yaml', dir, ROOT)).toThrow(/no such file/);
  });

  it('passes nothing in the default dialect', () => {
    expect(suiteBindingFlags(undefined, false)).toEqual([]);
    expect(serveBindingArgs(undefined)).toEqual([]);
  });

  it('counts a mutant whose fault the binding makes invisible as not checkable under it, only there', () => {
    const defaults = defaultEntries(ROOT);
    const under = (name: string): BindingRun => ({
      file: join(VARIANTS, `${name}.yaml`),
      name,
      ambiguous: [],
      entries: parse(readFileSync(join(VARIANTS, `${name}.yaml`), 'utf8')),
    });
    const m8 = CATALOGUE.find((m) => m.id === 'M-8')!;
    expect(hiddenUnder(m8, under('send-202-reference'), defaults)).toMatch(
      /a send answered with a reference carries no copy.*\/operations\/sendEmail\/answer: "reference"/,
    );
    expect(hiddenUnder(m8, under('all-renames'), defaults)).toBeDefined();
    expect(hiddenUnder(m8, under('sender'), defaults)).toBeUndefined();
    expect(hiddenUnder(m8, undefined, defaults)).toBeUndefined();
    const m61 = CATALOGUE.find((m) => m.id === 'M-61')!;
    expect(hiddenUnder(m61, under('mailbox-record'), defaults)).toMatch(
      /\/mailboxes\/array: "items"/,
    );
    expect(hiddenUnder(m61, under('list-array'), defaults)).toBeUndefined();
    // A binding that writes out the default's own value hides nothing.
    const same = {
      ...under('sender'),
      entries: { operations: { sendEmail: { answer: 'email' } } },
    };
    expect(hiddenUnder(m8, same, defaults)).toBeUndefined();
  });

  it('names, in each hiddenBy, an entry the default binding has', () => {
    const defaults = defaultEntries(ROOT);
    for (const mutant of CATALOGUE.filter((m) => m.hiddenBy !== undefined)) {
      const probe = { file: '', name: 'probe', ambiguous: [], entries: { x: 1 } };
      const pointer = mutant.hiddenBy!.entry.split('/').slice(1);
      let node: unknown = defaults;
      for (const key of pointer) node = (node as Record<string, unknown> | undefined)?.[key];
      expect(node, `${mutant.id}: ${mutant.hiddenBy!.entry}`).toBeDefined();
      expect(hiddenUnder(mutant, probe, defaults)).toBeUndefined();
    }
  });
});

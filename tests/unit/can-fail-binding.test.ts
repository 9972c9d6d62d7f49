/**
 * `npm run can-fail -- --binding <file>` (issue 26 item 7): the named mutants run with the
 * emulator speaking a renaming binding, and the suite is told about it the way a vendor's run
 * would be: it infers the binding from the document the emulator publishes, and gets the file
 * only where that document is ambiguous. The mutant runs themselves are can-fail's job.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { probeBinding, serveBindingArgs, suiteBindingFlags } from '../mutants/binding-run.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const VARIANTS = join(ROOT, 'tests/variants/bindings');

describe('can-fail --binding', () => {
  it('reads all-renames.yaml back from the emulator speaking it, with no ambiguous entry', () => {
    const run = probeBinding('tests/variants/bindings/all-renames.yaml', ROOT, ROOT);
    expect(run).toEqual({
      file: join(VARIANTS, 'all-renames.yaml'),
      name: 'all-renames',
      ambiguous: [],
    });
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
});

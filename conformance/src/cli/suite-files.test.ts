import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../../../emulator/src/package-root.ts';
import {
  CHECKS_DIR,
  CHECK_FILE_SUFFIX,
  SETUP_FILE,
  sourceNameOf,
  suiteFiles,
  watchSuiteFolders,
} from './suite-files.ts';

describe('suite files, run from the sources', () => {
  it('are the TypeScript check files of conformance/checks and run/setup.ts', () => {
    expect(CHECKS_DIR).toBe(join(PACKAGE_ROOT, 'conformance', 'checks'));
    expect(CHECK_FILE_SUFFIX).toBe('.check.ts');
    expect(SETUP_FILE).toBe(join(PACKAGE_ROOT, 'conformance', 'src', 'run', 'setup.ts'));
    expect(existsSync(SETUP_FILE)).toBe(true);
  });

  it('are given to vitest relative to its root, the package root', () => {
    expect(suiteFiles(PACKAGE_ROOT)).toEqual({
      include: ['conformance/checks/**/*.check.ts'],
      setupFiles: ['conformance/src/run/setup.ts'],
    });
  });
});

describe('a suite file as reports name it', () => {
  it('is its source name however it ran: compiled check files are named by their .check.ts', () => {
    expect(sourceNameOf('dist/conformance/checks/reading.check.js')).toBe(
      'conformance/checks/reading.check.ts',
    );
    expect(sourceNameOf('dist/conformance/checks/api/sending.check.js')).toBe(
      'conformance/checks/api/sending.check.ts',
    );
    expect(sourceNameOf('dist/conformance/src/run/setup.js')).toBe('conformance/src/run/setup.ts');
  });

  it('leaves source names, and files outside the compiled suite, as they are', () => {
    expect(sourceNameOf('conformance/checks/reading.check.ts')).toBe(
      'conformance/checks/reading.check.ts',
    );
    expect(sourceNameOf('dist/emulator/src/main.js')).toBe('dist/emulator/src/main.js');
    expect(sourceNameOf('vendor/dist/conformance/checks/x.check.js')).toBe(
      'vendor/dist/conformance/checks/x.check.js',
    );
    expect(sourceNameOf('dist\\conformance\\checks\\reading.check.js')).toBe(
      'conformance/checks/reading.check.ts',
    );
  });
});

describe('the suite folders a run watches', () => {
  const root = mkdtempSync(join(tmpdir(), 'mailtwin-suite-folders-'));
  const checks = join(root, 'dist', 'conformance', 'checks');
  const setup = join(root, 'dist', 'conformance', 'src', 'run');

  it('says a folder removed and written again during the run, as npm run build does to dist/', () => {
    for (const folder of [checks, setup]) mkdirSync(folder, { recursive: true });
    const replaced = watchSuiteFolders(root, [checks, setup]);
    rmSync(join(root, 'dist'), { recursive: true });
    mkdirSync(checks, { recursive: true });
    writeFileSync(join(checks, 'a.check.js'), '');
    expect(replaced()).toBe(
      'dist/conformance/checks, dist/conformance/src/run was removed or written again while the run went on (as `npm run build` does to dist/): vitest ran what it found of the suite then, which may be some check files or none',
    );
  });

  it('says nothing of folders left in place, whatever their files went through', () => {
    for (const folder of [checks, setup]) mkdirSync(folder, { recursive: true });
    const replaced = watchSuiteFolders(root, [checks, setup]);
    writeFileSync(join(checks, 'b.check.js'), 'edited');
    rmSync(join(checks, 'a.check.js'), { force: true });
    expect(replaced()).toBeUndefined();
    rmSync(root, { recursive: true, force: true });
  });
});

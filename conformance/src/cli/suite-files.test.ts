import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../../../emulator/src/package-root.ts';
import {
  CHECKS_DIR,
  CHECK_FILE_SUFFIX,
  SETUP_FILE,
  sourceNameOf,
  suiteFiles,
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

import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../../../emulator/src/package-root.ts';
import { CHECKS_DIR, CHECK_FILE_SUFFIX, SETUP_FILE, suiteFiles } from './suite-files.ts';

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

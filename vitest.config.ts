import { availableParallelism } from 'node:os';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { defineConfig } from 'vitest/config';

/**
 * Unit test files that spend minutes waiting rather than computing: the API-world run waits
 * for mail that takes 1.5 s to arrive, again and again (about 250 s). Started first, beside at
 * least one more worker that takes every other file, it no longer adds its whole length to the
 * run. (Vitest takes the sequencer from the root config only; it reorders nothing else.)
 */
const WAITING_FILES = ['tests/unit/api-world.test.ts'];

class WaitingFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const waits = (file: TestSpecification) =>
      WAITING_FILES.some((name) => file.moduleId.endsWith(name));
    return [...sorted.filter(waits), ...sorted.filter((file) => !waits(file))];
  }
}

// Five projects: fast unit tests, the browser check of the docs page, the npm package as
// installed (tests/package), the README's recipes (tests/readme), and the suite run through
// Prism (tests/prism). The conformance checks run through `mailtwin-conformance`,
// which adds its own reporter and target settings.
export default defineConfig({
  test: {
    sequence: { sequencer: WaitingFirst },
    projects: [
      {
        test: {
          name: 'unit',
          include: [
            'tests/unit/**/*.test.ts',
            'emulator/**/*.test.ts',
            'conformance/src/**/*.test.ts',
          ],
          environment: 'node',
          // A guard against hangs, not a speed check: CPU-bound property tests that take 1 s on
          // an idle machine took over 5 s (vitest's default) on a loaded one.
          testTimeout: 120_000,
          hookTimeout: 120_000,
          // At least two files at a time, even on two cores where vitest's default (cores - 1)
          // is one: see WAITING_FILES. A worker count of its own needs a group of its own, which
          // a plain `vitest run` of every project runs after the others.
          maxWorkers: Math.max(2, availableParallelism() - 1),
          sequence: { groupOrder: 1 },
        },
      },
      {
        test: {
          name: 'browser',
          include: ['tests/browser/**/*.test.ts'],
          environment: 'node',
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
      {
        test: {
          // The npm package installed offline into an empty folder and run from there.
          name: 'package',
          include: ['tests/package/**/*.test.ts'],
          environment: 'node',
          testTimeout: 120_000,
          hookTimeout: 240_000,
        },
      },
      {
        test: {
          // The README's recipes, run as printed (tests/readme).
          name: 'readme',
          include: ['tests/readme/**/*.test.ts'],
          environment: 'node',
          testTimeout: 600_000,
          fileParallelism: false,
        },
      },
      {
        test: {
          name: 'prism',
          include: ['tests/prism/**/*.test.ts'],
          environment: 'node',
          testTimeout: 180_000,
          hookTimeout: 60_000,
          fileParallelism: false,
        },
      },
    ],
  },
});

import { defineConfig } from 'vitest/config';

// The fast test set Stryker runs against each mutant (`npm run mutation`): the domain's unit
// tests, the dispatcher's and routes' tests, the signer's, and every conformance check against the in-process emulator with a
// fixed seed and few runs per property. No Prism, no browser.
//
// MAILTWIN_MUTATION_TESTS narrows the set to its comma-separated globs (say the domain's own
// emulator/src/domain/**/*.test.ts): a mutant a subset kills, the full set kills too, so such a
// run's score is a lower bound of the full one, reached in minutes where the full set takes over
// an hour on a loaded machine.
const narrowedTo = process.env.MAILTWIN_MUTATION_TESTS?.split(',');

export default defineConfig({
  test: {
    include: narrowedTo ?? [
      'emulator/src/domain/**/*.test.ts',
      'emulator/src/services/**/*.test.ts',
      'emulator/src/webhook-delivery/**/*.test.ts',
      'emulator/src/routes/**/*.test.ts',
      'tests/unit/webhook-verifier.test.ts',
      'tests/unit/example-receiver.test.ts',
      'conformance/checks/**/*.check.ts',
    ],
    setupFiles: ['conformance/src/run/setup.ts'],
    environment: 'node',
    testTimeout: 60_000,
    env: {
      MAILTWIN_CONFORMANCE_CONFIG: JSON.stringify({
        target: { kind: 'emulator' },
        seed: 7,
        numRuns: 5,
      }),
    },
  },
});

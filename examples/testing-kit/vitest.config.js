// The vitest recipe (docs/testing-kit.md): one emulator for the run, started by the global
// setup; eight test files run in parallel worker processes, each with its own tenant.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    root: import.meta.dirname,
    include: ['vitest/*.test.js'],
    globalSetup: ['vitest/global-setup.js'],
    pool: 'forks',
    maxWorkers: 8,
    testTimeout: 60_000,
  },
});

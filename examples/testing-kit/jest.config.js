// The jest recipe (docs/testing-kit.md): one emulator for the run, started by the global setup;
// eight test files run in parallel worker processes, each with its own tenant. Native ES
// modules, so no transform; run with NODE_OPTIONS=--experimental-vm-modules.
export default {
  rootDir: import.meta.dirname,
  testMatch: ['<rootDir>/jest/*.test.js'],
  globalSetup: '<rootDir>/jest/global-setup.js',
  globalTeardown: '<rootDir>/jest/global-teardown.js',
  transform: {},
  maxWorkers: 8,
  testTimeout: 60_000,
};

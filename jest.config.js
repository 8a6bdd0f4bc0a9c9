// Tests run from TypeScript source through esbuild (type-checking is `npm run typecheck`).
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.ts$': '<rootDir>/test/support/esbuild-transform.js' },
  testTimeout: 30000,
  // One real kube API server per run, started by the first kube test file that asks (test/support/kube-shared.ts).
  globalSetup: '<rootDir>/test/support/kube-global-setup.ts',
  globalTeardown: '<rootDir>/test/support/kube-global-teardown.ts',
  ...(process.env.HOMELAB_TEST_ORDER === 'smallest-first'
    ? { testSequencer: '<rootDir>/test/support/smallest-first-sequencer.js' }
    : {}),
};

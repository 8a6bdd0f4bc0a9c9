// Tests run from TypeScript source through esbuild (type-checking is `npm run typecheck`).
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.ts$': '<rootDir>/test/support/esbuild-transform.js' },
  testTimeout: 30000,
  // Two files at a time, also on 2 cores (jest's default there is one): most of a heavy file's time is spent waiting
  // on terraform, systemd or the API server, and each file has fixtures of its own or shares them by run-shared.ts.
  // Not more: test/contract/linux and test/unit at 4 took 340 s wall against 356 s at 2 (226 files, 1346 against 708
  // file-seconds; vmstat at 4: the cores busy, about half in the kernel, idle 0-1% once the files started; measured
  // 2026-12-06 on this 2-core machine). The suite is CPU-bound here: only less work makes CI faster.
  maxWorkers: 2,
  testSequencer: '<rootDir>/test/support/longest-first-sequencer.js',
  // Every file's time, slowest first, at the end of the log.
  reporters: ['default', '<rootDir>/test/support/file-timings-reporter.js'],
  // The run directory through which files share the kube API server and the packed library (run-shared.ts).
  globalSetup: '<rootDir>/test/support/run-global-setup.ts',
  globalTeardown: '<rootDir>/test/support/run-global-teardown.ts',
};

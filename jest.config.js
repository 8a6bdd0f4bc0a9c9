// Tests run from TypeScript source through esbuild (type-checking is `npm run typecheck`).
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.ts$': '<rootDir>/test/support/esbuild-transform.js' },
  testTimeout: 30000,
  // Three files at a time, also on 2 cores (jest's default there is one): much of a heavy file's time is spent waiting
  // on terraform, systemd or the API server, and each file has fixtures of its own or shares them by run-shared.ts.
  // CI on a fresh clone, quiet machine, back to back on 2026-12-07 at 9cc5caa: 754 s at two a pass, 682 s at three
  // (every file passed; the cores 0-1% idle for the first 400 s, /proc/stat every 5 s). Not four for the unit and
  // contract files alone: 340 s wall against 356 s at two (226 files; vmstat: the cores busy, about half in the
  // kernel; 2026-12-06). Past three the suite is CPU-bound here: only less work makes CI faster.
  maxWorkers: 3,
  testSequencer: '<rootDir>/test/support/longest-first-sequencer.js',
  // Every file's time, slowest first, at the end of the log.
  reporters: ['default', '<rootDir>/test/support/file-timings-reporter.js'],
  // The run directory through which files share the kube API server and the packed library (run-shared.ts).
  globalSetup: '<rootDir>/test/support/run-global-setup.ts',
  globalTeardown: '<rootDir>/test/support/run-global-teardown.ts',
};

/** The CI log's per-file timings: every file once, slowest first, failures marked, with the total. */
import { timingLines } from '../../support/file-timings-reporter';

test('files are listed slowest first with the total, a failed one marked', () => {
  const lines = timingLines([
    ['test/unit/a.test.ts', 1.25, false],
    ['test/e2e/probes.test.ts', 161.04, true],
    ['test/e2e/kube.test.ts', 58.6, false],
  ]);
  expect(lines).toEqual([
    '[timings] 3 test files, 220.9 s of file time, slowest first:',
    '[timings]   161.0 s  test/e2e/probes.test.ts  FAILED',
    '[timings]    58.6 s  test/e2e/kube.test.ts',
    '[timings]     1.3 s  test/unit/a.test.ts',
  ]);
});

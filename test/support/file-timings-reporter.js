// A jest reporter that ends every run with each test file's wall time, slowest first, so a CI log shows where the
// minutes went (issue 20 item 5) without a second run; jest's default reporter prints a time only beside slow files,
// scattered through the output.
const { relative } = require('node:path');

/** Lines of `[file, seconds, failed]` rows, slowest first, with the total of the files' times. */
const timingLines = (rows) => {
  const sorted = [...rows].sort((a, b) => b[1] - a[1]);
  const total = sorted.reduce((sum, [, seconds]) => sum + seconds, 0);
  return [
    `[timings] ${sorted.length} test files, ${total.toFixed(1)} s of file time, slowest first:`,
    ...sorted.map(
      ([file, seconds, failed]) => `[timings] ${seconds.toFixed(1).padStart(7)} s  ${file}${failed ? '  FAILED' : ''}`,
    ),
  ];
};

class FileTimingsReporter {
  constructor(globalConfig) {
    this.rootDir = globalConfig.rootDir;
  }

  onRunComplete(_contexts, results) {
    const rows = results.testResults.map((file) => [
      relative(this.rootDir, file.testFilePath),
      (file.perfStats.end - file.perfStats.start) / 1000,
      file.numFailingTests > 0 || file.testExecError !== undefined,
    ]);
    process.stderr.write(`${timingLines(rows).join('\n')}\n`);
  }
}

module.exports = FileTimingsReporter;
module.exports.timingLines = timingLines;

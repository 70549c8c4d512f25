const path = require('node:path');

/** How many of the slowest files the summary names. */
const SLOWEST = 15;

const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;

/**
 * After jest's own summary: the 15 slowest files with their times, the run's wall time (and the sum of
 * every file's time, which is larger when files run at once), then one plain closing line,
 * `tests: N passed, N failed[, N skipped]`, so any CI can read the result without knowing jest's
 * format and the next slowdown is visible in every log.
 */
class SummaryReporter {
  constructor(globalConfig) {
    this.rootDir = globalConfig.rootDir;
  }

  onRunComplete(_contexts, results) {
    const files = results.testResults
      .map((file) => ({ file: path.relative(this.rootDir, file.testFilePath), ms: Math.max(0, file.perfStats.end - file.perfStats.start) }))
      .sort((a, b) => b.ms - a.ms);
    const width = Math.max(0, ...files.slice(0, SLOWEST).map((f) => f.file.length));
    const lines = [`slowest ${Math.min(SLOWEST, files.length)} of ${files.length} files:`];
    for (const { file, ms } of files.slice(0, SLOWEST)) lines.push(`  ${seconds(ms).padStart(8)}  ${file.padEnd(width)}`);
    const fileSum = files.reduce((sum, f) => sum + f.ms, 0);
    lines.push(`total: ${seconds(Date.now() - results.startTime)} wall, ${seconds(fileSum)} summed over files`);
    const skipped = results.numPendingTests + results.numTodoTests;
    const failed = results.numFailedTests + results.numRuntimeErrorTestSuites;
    lines.push(`tests: ${results.numPassedTests} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
    process.stdout.write(`${lines.join('\n')}\n`);
  }
}
module.exports = SummaryReporter;

/**
 * Prints one plain closing line, `tests: N passed, N failed[, N skipped]`, after jest's own summary,
 * so any CI can read the result without knowing jest's format.
 */
class SummaryReporter {
  onRunComplete(_contexts, results) {
    const skipped = results.numPendingTests + results.numTodoTests;
    const failed = results.numFailedTests + results.numRuntimeErrorTestSuites;
    process.stdout.write(`tests: ${results.numPassedTests} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}\n`);
  }
}
module.exports = SummaryReporter;

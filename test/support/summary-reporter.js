const path = require('node:path');
const { writeDurations, committedDurations, budgetProblems, renewalProblems, TIERS } = require('./test-budget');

/** How many of the slowest files the summary names. */
const SLOWEST = 15;

const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;

/**
 * Whether this run is a whole tier (`TEST_TIER` set by `npm test` and `npm run test:system`, no file,
 * test-name, changed-only or failed-only filter): only such a run writes the tier's durations and is
 * held to its budget.
 */
function wholeTier(globalConfig) {
  const tier = process.env.TEST_TIER;
  if (!TIERS.includes(tier)) return undefined;
  const patterns = globalConfig.testPathPatterns;
  const filtered = Array.isArray(patterns) ? patterns.length > 0 : !!patterns?.isSet?.();
  if (filtered || globalConfig.testNamePattern || globalConfig.onlyChanged || globalConfig.onlyFailures || globalConfig.findRelatedTests) return undefined;
  return tier;
}

/**
 * After jest's own summary: the 15 slowest files with their times, the run's wall time (and the sum of
 * every file's time, which is larger when files run at once); on a whole tier, the durations written
 * to test/durations/<tier>.json and the budget's verdict (test/support/test-budget.js; a breach fails
 * the run through getLastError); then one plain closing line, `tests: N passed, N failed[, N skipped]`,
 * so any CI can read the result without knowing jest's format.
 */
class SummaryReporter {
  constructor(globalConfig) {
    this.globalConfig = globalConfig;
    this.rootDir = globalConfig.rootDir;
    this.error = undefined;
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
    const tier = wholeTier(this.globalConfig);
    if (tier) lines.push(...this.budget(tier, files));
    const skipped = results.numPendingTests + results.numTodoTests;
    const failed = results.numFailedTests + results.numRuntimeErrorTestSuites + (this.error ? 1 : 0);
    lines.push(`tests: ${results.numPassedTests} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}${this.error ? ' (1: the time budget)' : ''}`);
    process.stdout.write(`${lines.join('\n')}\n`);
  }

  /** Writes the tier's durations and checks them; returns the lines to print. */
  budget(tier, files) {
    const run = Object.fromEntries(files.map(({ file, ms }) => [file, ms / 1000]));
    const committed = committedDurations(this.rootDir, tier);
    writeDurations(this.rootDir, tier, run);
    const problems = [...budgetProblems({ tier, run, committed }), ...(tier === 'fast' ? renewalProblems(this.rootDir, tier) : [])];
    const lines = [`durations: written to test/durations/${tier}.json${committed ? '' : ' (no figures committed at HEAD yet)'}`];
    if (problems.length === 0) {
      lines.push(`budget: ${tier === 'fast' ? 'within (no file over 60 s; summed time within 10 % of the committed figures)' : 'not checked for this tier (figures written for the sequencer)'}`);
    } else {
      lines.push(`budget: BREACHED`, ...problems.map((p) => `  - ${p}`));
      this.error = new Error(`the test time budget is breached:\n${problems.join('\n')}`);
    }
    return lines;
  }

  getLastError() {
    return this.error;
  }
}
module.exports = SummaryReporter;

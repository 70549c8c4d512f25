const fs = require('node:fs');
const path = require('node:path');
const { PER_FILE_LIMIT_S, REFERENCE_MACHINE_SECONDS, writeDurations, committedDurations, committedMachine, slowdownOf, budgetProblems, renewalProblems, TIERS } = require('./test-budget');
const { machineSeconds } = require('./machine-speed');

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
    this.machine = undefined;
  }

  /** A whole tier measures its machine before and after the files (the less of the two: the quieter moment). */
  onRunStart() {
    if (wholeTier(this.globalConfig)) this.machine = machineSeconds();
  }

  onRunComplete(_contexts, results) {
    const files = results.testResults
      .map((file) => ({ file: path.relative(this.rootDir, file.testFilePath), ms: Math.max(0, file.perfStats.end - file.perfStats.start) }))
      .sort((a, b) => b.ms - a.ms);
    const width = Math.max(0, ...files.slice(0, SLOWEST).map((f) => f.file.length));
    const lines = [`slowest ${Math.min(SLOWEST, files.length)} of ${files.length} files:`];
    for (const { file, ms } of files.slice(0, SLOWEST)) lines.push(`  ${seconds(ms).padStart(8)}  ${file.padEnd(width)}`);
    const fileSum = files.reduce((sum, f) => sum + f.ms, 0);
    const cpu = cpuOfFiles(process.env.TEST_CPU_DIR, files);
    const cpuSum = cpu ? Object.values(cpu).reduce((sum, s) => sum + s, 0) : undefined;
    lines.push(`total: ${seconds(Date.now() - results.startTime)} wall, ${seconds(fileSum)} summed over files${cpuSum === undefined ? '' : `, ${cpuSum.toFixed(1)} CPU-s summed over files`}`);
    const tier = wholeTier(this.globalConfig);
    if (tier) lines.push(...this.budget(tier, files, cpu));
    const skipped = results.numPendingTests + results.numTodoTests;
    const failed = results.numFailedTests + results.numRuntimeErrorTestSuites + (this.error ? 1 : 0);
    lines.push(`tests: ${results.numPassedTests} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}${this.error ? ' (1: the time budget)' : ''}`);
    process.stdout.write(`${lines.join('\n')}\n`);
  }

  /** Writes the tier's durations and checks them; returns the lines to print. */
  budget(tier, files, cpu) {
    const run = Object.fromEntries(files.map(({ file, ms }) => [file, ms / 1000]));
    const committed = committedDurations(this.rootDir, tier);
    const committedCpu = committedDurations(this.rootDir, tier, 'HEAD', 'cpu_files');
    const runMachine = Math.min(this.machine ?? Infinity, machineSeconds());
    const committedMachineSeconds = committedMachine(this.rootDir, tier);
    writeDurations(this.rootDir, tier, run, cpu, runMachine);
    const problems = [
      ...budgetProblems({ tier, run, committed, runCpu: cpu, committedCpu, runMachine, committedMachine: committedMachineSeconds }),
      ...(tier === 'fast' ? renewalProblems(this.rootDir, tier) : []),
    ];
    const slowdown = slowdownOf(runMachine, committedMachineSeconds);
    const lines = [
      `durations: written to test/durations/${tier}.json${committed ? '' : ' (no figures committed at HEAD yet)'}`,
      `machine: the calibration cost ${runMachine.toFixed(3)} CPU-s here${committedMachineSeconds ? `, ${committedMachineSeconds.toFixed(3)} on the committed figures' machine: ${slowdown.toFixed(2)} times` : ' (the committed figures have none: the growth rule reads them as they are)'}; ${(runMachine / REFERENCE_MACHINE_SECONDS).toFixed(2)} times the reference machine's ${REFERENCE_MACHINE_SECONDS.toFixed(3)} (the per-file limit: ${(PER_FILE_LIMIT_S * Math.max(1, runMachine / REFERENCE_MACHINE_SECONDS)).toFixed(0)} s)`,
    ];
    if (problems.length === 0) {
      const growth = cpu && committedCpu ? 'summed CPU time' : 'summed time';
      const limit = (PER_FILE_LIMIT_S * Math.max(1, runMachine / REFERENCE_MACHINE_SECONDS)).toFixed(0);
      lines.push(`budget: ${tier === 'fast' ? `within (no file over ${limit} s; ${growth} within 10 % of the committed figures${slowdown === 1 ? '' : ', in their machine\'s seconds'})` : 'not checked for this tier (figures written for the sequencer)'}`);
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
/**
 * `{ file: CPU seconds }` of the files of this run, from the CPU meter's notes in `dir`
 * (test/support/cpu-metered-environment.js); undefined when the meter wrote none, or not for every file
 * (a file that crashed its worker): a partial sum would read as shrinkage.
 */
function cpuOfFiles(dir, files) {
  if (!dir || !fs.existsSync(dir)) return undefined;
  const cpu = {};
  for (const name of fs.readdirSync(dir)) {
    try {
      const note = JSON.parse(fs.readFileSync(path.join(dir, name), 'utf8'));
      if (typeof note.file === 'string' && typeof note.cpuSeconds === 'number') cpu[note.file] = note.cpuSeconds;
    } catch {
      // a note being written as the run ends: the check below finds the file missing
    }
  }
  return files.every(({ file }) => file in cpu) ? Object.fromEntries(files.map(({ file }) => [file, cpu[file]])) : undefined;
}

module.exports = SummaryReporter;

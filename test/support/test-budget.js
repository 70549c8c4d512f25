const fs = require('node:fs');
const path = require('node:path');
const { execFileSync } = require('node:child_process');

/**
 * The suite's time budget (docs/testing.md, "The budget"). Every full run of a tier (`npm test`: the
 * fast tier; `npm run test:system`) writes each file's time to the committed
 * `test/durations/<tier>.json` (test/support/summary-reporter.js); the sequencer starts the longest
 * files first from those figures (test/support/sequencer.js). A full run of the fast tier then fails
 * when:
 * - a file took over PER_FILE_LIMIT_S of wall time (make it faster or move it to test/system/);
 * - the summed file time is more than GROWTH over the figures committed at HEAD (make it faster, move
 *   files to the system tier, or commit the renewed figures this run wrote, with a `Test-budget:` line
 *   in the commit message saying why);
 * - a commit renewed the figures with more than GROWTH of growth and no `Test-budget:` line.
 * The summed time compared is CPU time when both sides have it (`cpu_files`: what each file cost its
 * jest process, test/support/cpu-metered-environment.js), else wall time. Wall time summed over files
 * that run four at once on two cores measures the machine's load as much as the suite: identical runs
 * differed by 15-18 % (docs/testing.md, "The budget"), more than GROWTH, so it failed runs that grew
 * nothing.
 * Both limits are in seconds of the machine the committed figures were recorded on: every run measures
 * its machine (`machine_seconds`, test/support/machine-speed.js), and when both sides have that figure
 * the run's CPU seconds are divided by the ratio before the growth rule compares them. The same suite
 * cost 2.7 times the committed CPU seconds on the machines of 2026-11-30 and failed on growth alone.
 * The 60 s per-file limit is stretched on a machine slower than REFERENCE_MACHINE_SECONDS's.
 */
const PER_FILE_LIMIT_S = 60;
/**
 * The machine the 60 s per-file limit was set on, as its calibration would read (machine_seconds):
 * the figures of the morning of 2026-11-30 cost 1 / 2.7 of the CPU the same files cost on the machines
 * of that afternoon, whose calibration reads 0.125 (docs/testing.md, "The budget"). The per-file limit
 * is stretched by a run's machine against this one, not against the machine that last renewed the
 * figures: renewed on a slower machine, the figures would otherwise carry that machine's slowness
 * into the 60 s (files of 33 CPU-s took 120-146 s of wall time in whole runs there, and failed).
 */
const REFERENCE_MACHINE_SECONDS = 0.125 / 2.7;
const GROWTH = 0.1;
const REASON_LINE = /^Test-budget:\s*\S/m;
const TIERS = ['fast', 'system'];

const relativePath = (tier) => `test/durations/${tier}.json`;

/** `{ file: seconds }` under `key` (files: wall; cpu_files: CPU) of a durations document, or undefined when there is none or it is not one. */
function filesOf(text, key = 'files') {
  if (text === undefined) return undefined;
  try {
    const doc = JSON.parse(text);
    return doc && typeof doc[key] === 'object' && doc[key] !== null ? doc[key] : undefined;
  } catch {
    return undefined;
  }
}

const sumOf = (files) => Object.values(files).reduce((sum, s) => sum + s, 0);
const round = (s) => Math.round(s * 10) / 10;

/** The working copy's figures of `tier` (what the last full run wrote): wall seconds, or CPU seconds with key 'cpu_files'. */
function readDurations(root, tier, key = 'files') {
  const file = path.join(root, relativePath(tier));
  return fs.existsSync(file) ? filesOf(fs.readFileSync(file, 'utf8'), key) : undefined;
}

const sortedRounded = (files) => Object.fromEntries(Object.entries(files).sort(([a], [b]) => (a < b ? -1 : 1)).map(([f, s]) => [f, round(s)]));

/** The machine calibration (test/support/machine-speed.js) in a durations document, or undefined. */
function machineOf(text) {
  if (text === undefined) return undefined;
  try {
    const value = JSON.parse(text)?.machine_seconds;
    return typeof value === 'number' && value > 0 ? value : undefined;
  } catch {
    return undefined;
  }
}

/** The calibration of the figures of `tier` in commit `rev` (undefined when they have none). */
function committedMachine(root, tier, rev = 'HEAD') {
  try {
    return machineOf(git(root, ['show', `${rev}:${relativePath(tier)}`]));
  } catch {
    return undefined;
  }
}

/**
 * How many times slower the run's machine is than the committed figures' (1 when either side has no
 * calibration).
 */
function slowdownOf(runMachine, committedMachineSeconds) {
  return runMachine && committedMachineSeconds ? runMachine / committedMachineSeconds : 1;
}

/** Writes a run's figures (wall seconds per file; CPU seconds per file when given; the machine calibration when given): one line per file, sorted by path, so a renewal's diff reads file by file. */
function writeDurations(root, tier, files, cpu, machine) {
  const sorted = sortedRounded(files);
  const doc = {
    tier,
    about: 'Seconds per test file in the last full run of this tier, written by test/support/summary-reporter.js: files, wall time (the sequencer starts the longest first); cpu_files, the CPU time each file cost its jest process; machine_seconds, what a fixed piece of work cost on the machine of the run (test/support/machine-speed.js). The budget (test/support/test-budget.js) compares a run with the figures committed at HEAD. Renew them by committing this file with a "Test-budget: <reason>" line in the message.',
    ...(machine ? { machine_seconds: machine } : {}),
    summed_seconds: round(sumOf(sorted)),
    ...(cpu ? { summed_cpu_seconds: round(sumOf(cpu)) } : {}),
    files: sorted,
    ...(cpu ? { cpu_files: sortedRounded(cpu) } : {}),
  };
  const body = JSON.stringify(doc, null, 2).replace(/\n {4}"/g, '\n    "');
  fs.mkdirSync(path.dirname(path.join(root, relativePath(tier))), { recursive: true });
  fs.writeFileSync(path.join(root, relativePath(tier)), `${body}\n`);
}

function git(root, args) {
  return execFileSync('git', args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 * 1024 * 1024 });
}

/** The figures of `tier` in commit `rev` (undefined when that commit has none): wall seconds, or CPU seconds with key 'cpu_files'. */
function committedDurations(root, tier, rev = 'HEAD', key = 'files') {
  try {
    return filesOf(git(root, ['show', `${rev}:${relativePath(tier)}`]), key);
  } catch {
    return undefined;
  }
}

/** The pair of figures the growth rule compares: CPU when both sides have it, else wall. */
function compared(run, committed, runCpu, committedCpu) {
  return runCpu && committedCpu ? { now: runCpu, before: committedCpu, kind: 'CPU time' } : { now: run, before: committed, kind: 'time' };
}

/** CPU figures divided by a slowdown: what they would have cost on the committed figures' machine. */
const scaled = (files, slowdown) => (slowdown === 1 ? files : Object.fromEntries(Object.entries(files).map(([f, s]) => [f, s / slowdown])));

/**
 * What is wrong with a run's figures against the committed ones (empty: within the budget). `run` and
 * `committed` are wall seconds per file; `runCpu` and `committedCpu`, when both are given, CPU seconds
 * per file, and then the growth rule compares those; `runMachine` and `committedMachine`, when both
 * are given, the machines' calibrations, and then the run's CPU seconds are read in the committed
 * machine's seconds; the per-file limit is stretched on a machine slower than `referenceMachine`
 * (never shrunk).
 */
function budgetProblems({ tier, run, committed, runCpu, committedCpu, runMachine, committedMachine: committedMachineSeconds, referenceMachine = REFERENCE_MACHINE_SECONDS }) {
  const problems = [];
  if (tier !== 'fast') return problems;
  const slowdown = slowdownOf(runMachine, committedMachineSeconds);
  const slowerThanReference = slowdownOf(runMachine, referenceMachine);
  const perFileLimit = PER_FILE_LIMIT_S * Math.max(1, slowerThanReference);
  const stretched = perFileLimit === PER_FILE_LIMIT_S ? '' : ` (${PER_FILE_LIMIT_S} s on the reference machine; this one is ${slowerThanReference.toFixed(2)} times slower)`;
  for (const [file, s] of Object.entries(run).sort((a, b) => b[1] - a[1])) {
    if (s > perFileLimit) problems.push(`${file} took ${s.toFixed(1)} s, over the fast tier's ${perFileLimit.toFixed(0)} s per file${stretched}: make it faster, or move it to test/system/ (npm run test:system)`);
  }
  if (committed) {
    const cpuNow = runCpu && committedCpu ? scaled(runCpu, slowdown) : runCpu;
    const { now: nowFiles, before: beforeFiles, kind: plainKind } = compared(run, committed, cpuNow, committedCpu);
    const kind = plainKind === 'CPU time' && slowdown !== 1 ? `CPU time in the committed machine's seconds (this machine's divided by ${slowdown.toFixed(2)})` : plainKind;
    const now = sumOf(nowFiles);
    const before = sumOf(beforeFiles);
    if (now > before * (1 + GROWTH)) {
      const grown = Object.entries(nowFiles)
        .map(([file, s]) => [file, s - (beforeFiles[file] ?? 0)])
        .filter(([, d]) => d > 0)
        .sort((a, b) => b[1] - a[1])
        .slice(0, 5)
        .map(([file, d]) => `${file} +${d.toFixed(1)} s`);
      problems.push(
        `the files' summed ${kind} is ${now.toFixed(0)} s, ${(((now - before) / before) * 100).toFixed(0)} % over the ${before.toFixed(0)} s committed in ${relativePath(tier)} (the limit is ${GROWTH * 100} %); most grown: ${grown.join(', ')}. ` +
          `Make them faster, move whole-deployment files to test/system/, or commit the figures this run wrote to ${relativePath(tier)} with a "Test-budget: <reason>" line in the commit message.`,
      );
    }
  }
  return problems;
}

/**
 * Commits that renewed `tier`'s figures with more than GROWTH of growth over their parent's and say
 * no `Test-budget:` reason. Needs the history: a shallow clone is refused, never passed.
 */
function renewalProblems(root, tier) {
  if (git(root, ['rev-parse', '--is-shallow-repository']).trim() === 'true') {
    return [`the clone is shallow, so the renewals of ${relativePath(tier)} cannot be checked: run git fetch --unshallow`];
  }
  const problems = [];
  const log = git(root, ['log', '--format=%H%x00%B%x01', '--', relativePath(tier)]);
  for (const entry of log.split('\x01')) {
    const [hash, message = ''] = entry.trim().split('\x00');
    if (!hash) continue;
    const after = committedDurations(root, tier, hash);
    const before = committedDurations(root, tier, `${hash}^`);
    if (!after || !before) continue; // the file's first figures: nothing to grow from
    const slowdown = slowdownOf(committedMachine(root, tier, hash), committedMachine(root, tier, `${hash}^`));
    const afterCpu = committedDurations(root, tier, hash, 'cpu_files');
    const beforeCpu = committedDurations(root, tier, `${hash}^`, 'cpu_files');
    const { now, before: was, kind } = compared(after, before, afterCpu && beforeCpu ? scaled(afterCpu, slowdown) : afterCpu, beforeCpu);
    const grew = sumOf(now) > sumOf(was) * (1 + GROWTH);
    if (grew && !REASON_LINE.test(message)) {
      const what = kind === 'time' ? '' : ` ${kind}`;
      problems.push(`commit ${hash.slice(0, 10)} renewed ${relativePath(tier)}${what} from ${sumOf(was).toFixed(0)} s to ${sumOf(now).toFixed(0)} s (over ${GROWTH * 100} % more) without a "Test-budget: <reason>" line in its message`);
    }
  }
  return problems;
}

/** All durations committed in the working copy, every tier merged: the sequencer's input. */
function allDurations(root) {
  return Object.assign({}, ...TIERS.map((tier) => readDurations(root, tier) ?? {}));
}

module.exports = { PER_FILE_LIMIT_S, REFERENCE_MACHINE_SECONDS, GROWTH, TIERS, relativePath, readDurations, writeDurations, committedDurations, committedMachine, slowdownOf, budgetProblems, renewalProblems, allDurations, sumOf };

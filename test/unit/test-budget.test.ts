/**
 * The suite's time budget (issue 42; test/support/test-budget.js): a fast-tier file over 60 s, or the
 * summed time more than 10 % over the committed figures, fails a whole run; a renewal of the figures
 * with more growth than that needs a `Test-budget:` reason in its commit; the sequencer starts the
 * longest files first.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const budget = require('../support/test-budget.js') as {
  PER_FILE_LIMIT_S: number;
  budgetProblems(a: {
    tier: string;
    run: Record<string, number>;
    committed?: Record<string, number>;
    runCpu?: Record<string, number>;
    committedCpu?: Record<string, number>;
    runMachine?: number;
    committedMachine?: number;
    referenceMachine?: number;
  }): string[];
  REFERENCE_MACHINE_SECONDS: number;
  renewalProblems(root: string, tier: string): string[];
  writeDurations(root: string, tier: string, files: Record<string, number>, cpu?: Record<string, number>, machine?: number): void;
  committedMachine(root: string, tier: string, rev?: string): number | undefined;
  readDurations(root: string, tier: string, key?: string): Record<string, number> | undefined;
  committedDurations(root: string, tier: string, rev?: string, key?: string): Record<string, number> | undefined;
};
// eslint-disable-next-line @typescript-eslint/no-require-imports
const Sequencer = require('../support/sequencer.js') as new (options: unknown) => { sort(tests: Array<{ path: string; context: { config: { rootDir: string } } }>): Array<{ path: string }> };

const ROOT = path.resolve(__dirname, '../..');

describe('budgetProblems', () => {
  const committed = { 'test/a.test.ts': 30, 'test/b.test.ts': 70 };

  test('within: no file over 60 s and the sum within 10 % of the committed figures', () => {
    expect(budget.budgetProblems({ tier: 'fast', run: { 'test/a.test.ts': 40, 'test/b.test.ts': 59.9 }, committed: { 'test/a.test.ts': 40, 'test/b.test.ts': 55 } })).toEqual([]);
  });

  test('a fast-tier file over 60 s is named, with the way out', () => {
    const problems = budget.budgetProblems({ tier: 'fast', run: { 'test/a.test.ts': 10, 'test/b.test.ts': 61 }, committed });
    expect(problems).toEqual([expect.stringContaining('test/b.test.ts took 61.0 s, over the fast tier\'s 60 s per file')]);
    expect(problems[0]).toContain('test/system/');
  });

  test('a sum more than 10 % over the committed figures fails, naming the files that grew', () => {
    const problems = budget.budgetProblems({ tier: 'fast', run: { 'test/a.test.ts': 30, 'test/b.test.ts': 50, 'test/new.test.ts': 31 }, committed: { 'test/a.test.ts': 30, 'test/b.test.ts': 70 } });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/summed time is 111 s, 11 % over the 100 s committed/);
    expect(problems[0]).toContain('test/new.test.ts +31.0 s');
    expect(problems[0]).toContain('Test-budget: <reason>');
  });

  test('exactly 10 % over passes; the system tier is not held to these limits', () => {
    expect(budget.budgetProblems({ tier: 'fast', run: { 'test/a.test.ts': 55, 'test/b.test.ts': 55 }, committed: { 'test/a.test.ts': 50, 'test/b.test.ts': 50 } })).toEqual([]);
    expect(budget.budgetProblems({ tier: 'system', run: { 'test/system/x.test.ts': 300 }, committed: { 'test/system/x.test.ts': 10 } })).toEqual([]);
  });

  test('with CPU figures on both sides the growth rule compares CPU time: wall time grown by load alone passes, CPU grown fails', () => {
    const wall = { 'test/a.test.ts': 30, 'test/b.test.ts': 40 };
    const loaded = { 'test/a.test.ts': 40, 'test/b.test.ts': 50 };
    expect(budget.budgetProblems({ tier: 'fast', run: loaded, committed: wall, runCpu: { 'test/a.test.ts': 10, 'test/b.test.ts': 20 }, committedCpu: { 'test/a.test.ts': 10, 'test/b.test.ts': 19 } })).toEqual([]);
    const problems = budget.budgetProblems({ tier: 'fast', run: wall, committed: wall, runCpu: { 'test/a.test.ts': 10, 'test/b.test.ts': 24 }, committedCpu: { 'test/a.test.ts': 10, 'test/b.test.ts': 20 } });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/summed CPU time is 34 s, 13 % over the 30 s committed/);
    expect(problems[0]).toContain('test/b.test.ts +4.0 s');
    // CPU on one side only: wall time, as before the meter
    expect(budget.budgetProblems({ tier: 'fast', run: loaded, committed: wall, runCpu: { 'test/a.test.ts': 1, 'test/b.test.ts': 1 } })).toEqual([expect.stringMatching(/summed time is 90 s, 29 % over/)]);
  });

  test('the per-file limit is on wall time, whatever the CPU', () => {
    expect(budget.budgetProblems({ tier: 'fast', run: { 'test/a.test.ts': 61 }, committed: { 'test/a.test.ts': 61 }, runCpu: { 'test/a.test.ts': 5 }, committedCpu: { 'test/a.test.ts': 5 } })).toEqual([expect.stringContaining('test/a.test.ts took 61.0 s')]);
  });

  test('on a slower machine the CPU is read in the committed machine\'s seconds and the per-file limit stretches; the same growth still fails', () => {
    const committedCpu = { 'test/a.test.ts': 10, 'test/b.test.ts': 20 };
    const sameSuiteSlowMachine = { 'test/a.test.ts': 27, 'test/b.test.ts': 54 };
    const wall = { 'test/a.test.ts': 150, 'test/b.test.ts': 40 };
    // 2.7 times the CPU on a machine whose calibration is 2.7 times: the suite did not grow, and 150 s is under 60 s × 2.7.
    expect(budget.budgetProblems({ tier: 'fast', run: wall, committed: wall, runCpu: sameSuiteSlowMachine, committedCpu, runMachine: 0.27, committedMachine: 0.1, referenceMachine: 0.1 })).toEqual([]);
    // Without the calibration, the same figures breach both rules.
    expect(budget.budgetProblems({ tier: 'fast', run: wall, committed: wall, runCpu: sameSuiteSlowMachine, committedCpu })).toEqual([
      expect.stringContaining('test/a.test.ts took 150.0 s, over the fast tier\'s 60 s per file'),
      expect.stringMatching(/summed CPU time is 81 s, 170 % over the 30 s committed/),
    ]);
    // A file that grew by 20 % in the committed machine's seconds still fails, and the message says how it was read.
    const grown = budget.budgetProblems({ tier: 'fast', run: wall, committed: wall, runCpu: { 'test/a.test.ts': 27, 'test/b.test.ts': 70.2 }, committedCpu, runMachine: 0.27, committedMachine: 0.1, referenceMachine: 0.1 });
    expect(grown).toEqual([expect.stringMatching(/summed CPU time in the committed machine's seconds \(this machine's divided by 2\.70\) is 36 s, 20 % over the 30 s committed/)]);
    expect(grown[0]).toContain('test/b.test.ts +6.0 s');
    // A file over the stretched limit is named with both limits.
    expect(budget.budgetProblems({ tier: 'fast', run: { 'test/a.test.ts': 170 }, runMachine: 0.27, committedMachine: 0.1, referenceMachine: 0.1 })).toEqual([
      expect.stringContaining("took 170.0 s, over the fast tier's 162 s per file (60 s on the reference machine; this one is 2.70 times slower)"),
    ]);
  });

  test('on a faster machine the per-file limit stays 60 s; the CPU is still read in the committed machine\'s seconds', () => {
    expect(budget.budgetProblems({ tier: 'fast', run: { 'test/a.test.ts': 61 }, runMachine: 0.05, committedMachine: 0.1, referenceMachine: 0.1 })).toEqual([expect.stringContaining("took 61.0 s, over the fast tier's 60 s per file: ")]);
    const committedCpu = { 'test/a.test.ts': 10 };
    expect(budget.budgetProblems({ tier: 'fast', run: { 'test/a.test.ts': 5 }, committed: { 'test/a.test.ts': 5 }, runCpu: { 'test/a.test.ts': 6 }, committedCpu, runMachine: 0.05, committedMachine: 0.1, referenceMachine: 0.1 })).toEqual([
      expect.stringMatching(/is 12 s, 20 % over the 10 s committed/),
    ]);
  });

  test('the per-file limit is stretched against the reference machine, not the machine that renewed the figures: renewed on a slow machine, a slow machine still gets its stretch', () => {
    // Figures renewed on a 2.7 times slower machine (calibration 0.125), a run on the same class: 1.03 times the figures' machine, 2.8 times the reference.
    const run = { 'test/a.test.ts': 145, 'test/b.test.ts': 30 };
    expect(budget.budgetProblems({ tier: 'fast', run, committed: run, runMachine: 0.129, committedMachine: 0.125 })).toEqual([]);
    expect(budget.budgetProblems({ tier: 'fast', run: { 'test/a.test.ts': 170 }, runMachine: 0.129, committedMachine: 0.125 })).toEqual([
      expect.stringContaining("test/a.test.ts took 170.0 s, over the fast tier's 167 s per file (60 s on the reference machine; this one is 2.79 times slower)"),
    ]);
    // On the reference machine itself, 60 s.
    expect(budget.budgetProblems({ tier: 'fast', run: { 'test/a.test.ts': 61 }, runMachine: budget.REFERENCE_MACHINE_SECONDS })).toEqual([expect.stringContaining("took 61.0 s, over the fast tier's 60 s per file: ")]);
  });

  test('no committed figures yet: only the per-file limit applies', () => {
    expect(budget.budgetProblems({ tier: 'fast', run: { 'test/a.test.ts': 59 } })).toEqual([]);
  });
});

describe('renewals in the history', () => {
  let repo: string;
  const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, encoding: 'utf8', env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.com', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.com' } });
  const renew = (files: Record<string, number>, message: string, cpu?: Record<string, number>, machine?: number) => {
    budget.writeDurations(repo, 'fast', files, cpu, machine);
    git('add', 'test/durations/fast.json');
    git('commit', '-q', '-m', message);
  };

  beforeEach(() => {
    repo = fs.mkdtempSync(path.join(os.tmpdir(), 'test-budget-'));
    git('init', '-q');
  });
  afterEach(() => fs.rmSync(repo, { recursive: true, force: true }));

  test('the figures round-trip through the file and HEAD', () => {
    renew({ 'test/a.test.ts': 12.34, 'test/b.test.ts': 1 }, 'figures');
    expect(budget.readDurations(repo, 'fast')).toEqual({ 'test/a.test.ts': 12.3, 'test/b.test.ts': 1 });
    expect(budget.committedDurations(repo, 'fast')).toEqual({ 'test/a.test.ts': 12.3, 'test/b.test.ts': 1 });
  });

  test('growth over 10 % with a Test-budget line passes; without one, the commit is named', () => {
    renew({ 'test/a.test.ts': 100 }, 'first figures');
    renew({ 'test/a.test.ts': 105 }, 'renewed, 5 % more: no reason needed');
    expect(budget.renewalProblems(repo, 'fast')).toEqual([]);
    renew({ 'test/a.test.ts': 130 }, 'more tests\n\nTest-budget: the live refund tests, 25 s');
    expect(budget.renewalProblems(repo, 'fast')).toEqual([]);
    renew({ 'test/a.test.ts': 200 }, 'quietly slower');
    const head = git('rev-parse', 'HEAD').trim();
    expect(budget.renewalProblems(repo, 'fast')).toEqual([`commit ${head.slice(0, 10)} renewed test/durations/fast.json from 130 s to 200 s (over 10 % more) without a "Test-budget: <reason>" line in its message`]);
  });

  test('CPU figures round-trip beside the wall figures; renewals with CPU on both sides are judged by CPU', () => {
    renew({ 'test/a.test.ts': 100 }, 'first figures', { 'test/a.test.ts': 40.04 });
    expect(budget.committedDurations(repo, 'fast', 'HEAD', 'cpu_files')).toEqual({ 'test/a.test.ts': 40 });
    expect(JSON.parse(fs.readFileSync(path.join(repo, 'test/durations/fast.json'), 'utf8')).summed_cpu_seconds).toBe(40);
    renew({ 'test/a.test.ts': 150 }, 'a loaded run: wall 50 % more, CPU the same', { 'test/a.test.ts': 41 });
    expect(budget.renewalProblems(repo, 'fast')).toEqual([]);
    renew({ 'test/a.test.ts': 150 }, 'more CPU, no reason', { 'test/a.test.ts': 50 });
    const head = git('rev-parse', 'HEAD').trim();
    expect(budget.renewalProblems(repo, 'fast')).toEqual([`commit ${head.slice(0, 10)} renewed test/durations/fast.json CPU time from 41 s to 50 s (over 10 % more) without a "Test-budget: <reason>" line in its message`]);
  });

  test('figures renewed on a slower machine are judged in the earlier machine\'s seconds; a renewal from uncalibrated figures is judged as it is', () => {
    renew({ 'test/a.test.ts': 100 }, 'first figures, no calibration', { 'test/a.test.ts': 40 });
    renew({ 'test/a.test.ts': 250 }, 'calibrated, on a machine 2.7 times slower\n\nTest-budget: the first calibrated figures', { 'test/a.test.ts': 108 }, 0.27);
    expect(budget.committedMachine(repo, 'fast')).toBe(0.27);
    renew({ 'test/a.test.ts': 100 }, 'back on a fast machine, the suite unchanged', { 'test/a.test.ts': 41 }, 0.1);
    expect(budget.renewalProblems(repo, 'fast')).toEqual([]);
    renew({ 'test/a.test.ts': 260 }, 'a slow machine again, and 20 % more work', { 'test/a.test.ts': 132.8 }, 0.27);
    const head = git('rev-parse', 'HEAD').trim();
    expect(budget.renewalProblems(repo, 'fast')).toEqual([expect.stringContaining(`commit ${head.slice(0, 10)} renewed test/durations/fast.json CPU time from 41 s to 49 s`)]);
  });

  test('a shallow clone is refused with the command that fixes it, never passed', () => {
    renew({ 'test/a.test.ts': 100 }, 'one');
    renew({ 'test/a.test.ts': 101 }, 'two');
    const shallow = fs.mkdtempSync(path.join(os.tmpdir(), 'test-budget-shallow-'));
    try {
      execFileSync('git', ['clone', '-q', '--depth', '1', `file://${repo}`, shallow]);
      expect(budget.renewalProblems(shallow, 'fast')).toEqual([expect.stringContaining('git fetch --unshallow')]);
    } finally {
      fs.rmSync(shallow, { recursive: true, force: true });
    }
  });
});

test('the sequencer starts the longest committed files first, files with no figure before them', () => {
  const committed = budget.readDurations(ROOT, 'fast');
  expect(committed).toBeDefined();
  const [longest, shortest] = Object.entries(committed!).sort((a, b) => b[1] - a[1]).filter((_, i, all) => i === 0 || i === all.length - 1);
  const test = (rel: string) => ({ path: path.join(ROOT, rel), context: { config: { rootDir: ROOT } } });
  const sequencer = new Sequencer({ contexts: [], globalConfig: { cacheDirectory: os.tmpdir() } });
  const order = sequencer.sort([test(shortest![0]), test('test/unit/not-yet-measured.test.ts'), test(longest![0])]).map((t) => path.relative(ROOT, t.path));
  expect(order).toEqual(['test/unit/not-yet-measured.test.ts', longest![0], shortest![0]]);
});

/**
 * The simulation's reproduction files (src/simulation/repro-file.ts, issue 33): the text is a jest
 * file that TypeScript parses without a diagnostic, carries the shrunk plan exactly, replays it on an
 * engine with every invariant, and fails while an invariant fails.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import ts from 'typescript';
import { reproFileName, reproFileText, writeReproFile, type Reproduction } from '../../src/simulation/repro-file';

const repro: Reproduction = {
  plan: {
    seed: 1234,
    steps: [
      { n: 0, kind: 'create_merchant', params: { name: 'm0 */ not a comment end' } },
      { n: 4, kind: 'sandbox_charge', refs: [{ kind: 'merchant', index: 0 }], params: { amount: 1500, outcome: 'succeeded', note: null, live: false } },
    ],
  },
  step: { n: 4, kind: 'sandbox_charge', refs: [{ kind: 'merchant', index: 0 }], params: { amount: 1500, outcome: 'succeeded', note: null, live: false } },
  violation: { invariant: 'balances', lines: ['merchant m_1 sandbox available 0 but its succeeded charges say 1455', 'a second */ line\nwith a break'] },
  originalSteps: 200,
};

function transpile(text: string) {
  return ts.transpileModule(text, { fileName: 'simulation-repro.test.ts', reportDiagnostics: true, compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, strict: true } });
}

/** Loads the file's compiled text with a fake engine and runner; answers the test it declares. */
function load(text: string, failure: unknown) {
  const calls: string[] = [];
  const tests: Array<{ name: string; fn: () => Promise<void>; timeout: number }> = [];
  const fakes: Record<string, unknown> = {
    '../../src/simulation/engine': {
      startEngine: async (options: { seed: number }) => {
        calls.push(`start ${options.seed}`);
        return { close: async () => void calls.push('close') };
      },
    },
    '../../src/simulation/invariants': { ALL_INVARIANTS: ['every invariant'] },
    '../../src/simulation/run': {
      runPlan: async (_engine: unknown, plan: unknown, invariants: unknown) => {
        calls.push(`run ${JSON.stringify(plan)} ${JSON.stringify(invariants)}`);
        return { failure };
      },
    },
  };
  const module = { exports: {} };
  const fakeRequire = (spec: string) => {
    if (!(spec in fakes)) throw new Error(`unexpected import ${spec}`);
    return fakes[spec];
  };
  const fakeTest = (name: string, fn: () => Promise<void>, timeout: number) => tests.push({ name, fn, timeout });
  new Function('require', 'module', 'exports', 'test', 'expect', transpile(text).outputText)(fakeRequire, module, module.exports, fakeTest, expect);
  return { calls, tests };
}

test('the file parses without a diagnostic and is named after the seed and the failing step', () => {
  const text = reproFileText(repro);
  expect(transpile(text).diagnostics).toEqual([]);
  expect(reproFileName(1234, 4)).toBe('simulation-repro-1234-4.test.ts');
  // The failure is told in the comment; a `*/` in a line cannot end it early.
  expect(text).toContain('the invariant\n * "balances" failed:');
  expect(text).toContain('merchant m_1 sandbox available 0 but its succeeded charges say 1455');
  expect(text).toContain('cut the plan from 200 steps to the 2 below');
  // Re-run before it was written (issue 44): the flake rate is in the comment.
  const rerun = reproFileText({ ...repro, reruns: { runs: 3, failed: 2 } });
  expect(transpile(rerun).diagnostics).toEqual([]);
  expect(rerun).toContain('run again before this file was written, it failed 2 of 3 re-runs (flake rate 33 %)');
});

test('it replays exactly the shrunk plan with every invariant, and closes the engine', async () => {
  const { calls, tests } = load(reproFileText(repro), null);
  expect(tests).toHaveLength(1);
  expect(tests[0]!.name).toBe('simulation seed 1234 (2 of 200 steps): balances holds after every step');
  expect(tests[0]!.timeout).toBeGreaterThanOrEqual(120_000);
  await tests[0]!.fn();
  expect(calls).toEqual(['start 1234', `run ${JSON.stringify(repro.plan)} ["every invariant"]`, 'close']);
});

test('it fails while an invariant fails (and still closes the engine)', async () => {
  const failure = { step: repro.step, violations: [repro.violation] };
  const { calls, tests } = load(reproFileText(repro), failure);
  await expect(tests[0]!.fn()).rejects.toThrow(/balances/);
  expect(calls.at(-1)).toBe('close');
});

test('writeReproFile writes it into the folder given and answers its path', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sim-repro-'));
  try {
    const file = writeReproFile(path.join(dir, 'nested'), repro);
    expect(file).toBe(path.join(dir, 'nested', 'simulation-repro-1234-4.test.ts'));
    expect(fs.readFileSync(file, 'utf8')).toBe(reproFileText(repro));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

/**
 * The repro's text, kept as a file that `tsc` type-checks with the whole project (npm test's checks,
 * instead of a second program built here: 5 CPU-s). Its imports are relative to test/integration/,
 * which test/support/ mirrors. `UPDATE_GOLDEN=1` rewrites it after a deliberate change of the text.
 */
const GOLDEN = path.resolve(__dirname, '../support/simulation-repro.golden.ts');

test('the file type-checks against the real engine, runner and invariants, as if in test/integration/ (the golden copy, checked by tsc)', () => {
  const text = reproFileText(repro);
  if (process.env.UPDATE_GOLDEN === '1') fs.writeFileSync(GOLDEN, text);
  expect(path.relative(path.resolve(__dirname, '../integration'), path.resolve(__dirname, '../../src'))).toBe(path.relative(path.dirname(GOLDEN), path.resolve(__dirname, '../../src')));
  expect(fs.readFileSync(GOLDEN, 'utf8')).toBe(text);
});

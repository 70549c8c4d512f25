import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { omesErrors, omesInstall, parseGoDuration, parseOmesRun, runOmesBaseline, runScenarioArgs, runWorkerArgs } from '../../scripts/bench/omes/omes';

// Lines as omes 9d9e345 prints them (zap console encoder: time, level, caller, message, tab-separated).
const CONNECTED = '2026-11-27T04:46:22.764Z\tINFO\tclioptions/client.go:120\tClient connected to localhost:17233, namespace: default';
const COOLDOWN = '2026-11-27T04:46:41.131Z\tINFO\tloadgen/generic_executor.go:209\tRun cooldown: stopped starting new iterations and waiting for 20 iterations to complete';

describe('the omes baseline (issue 34)', () => {
  test('reads Go durations as omes prints them', () => {
    expect(parseGoDuration('19.104508016s')).toBeCloseTo(19.104508016, 9);
    expect(parseGoDuration('1m2.5s')).toBeCloseTo(62.5, 9);
    expect(parseGoDuration('1h0m3s')).toBe(3603);
    expect(parseGoDuration('850ms')).toBeCloseTo(0.85, 9);
    expect(() => parseGoDuration('19 s')).toThrow('not a Go duration');
    expect(() => parseGoDuration('')).toThrow('not a Go duration');
  });

  test('a completed iterations run: every iteration succeeded, over omes\'s own wall time', () => {
    const out = [CONNECTED, COOLDOWN, '2026-11-27T04:46:41.871Z\tINFO\tloadgen/generic_executor.go:231\tRun completed in 19.104508016s', ''].join('\n');
    expect(parseOmesRun(out, 200)).toEqual({ wallS: 19.104508016, succeeded: 200, failed: 0 });
    expect(omesErrors(out)).toEqual([]);
  });

  test('a run with failed iterations gives both counts, and its error lines', () => {
    const out = [
      CONNECTED,
      '2026-11-27T05:00:00.000Z\tINFO\tloadgen/generic_executor.go:227\tRun completed in 1m2.5s: 990 iterations succeeded, 10 failed',
      '2026-11-27T05:00:00.001Z\tFATAL\tomes/main.go:40\tscenario failed: run completed with 10 of 1000 iterations failed',
    ].join('\n');
    expect(parseOmesRun(out, 1000)).toEqual({ wallS: 62.5, succeeded: 990, failed: 10 });
    expect(omesErrors(out)).toHaveLength(1);
    expect(omesErrors(out)[0]).toContain('10 of 1000 iterations failed');
  });

  test('a duration run counts the iterations it started (debug lines); a run that stopped on an error has no summary', () => {
    const debug = [0, 1, 2].map((i) => `2026-11-27T05:00:0${i}.000Z\tDEBUG\tloadgen/generic_executor.go:129\tRunning iteration ${i}`);
    expect(parseOmesRun([...debug, '2026-11-27T05:00:05.000Z\tINFO\tloadgen/generic_executor.go:231\tRun completed in 5s'].join('\n'), undefined)).toEqual({ wallS: 5, succeeded: 3, failed: 0 });
    expect(() => parseOmesRun('x\tINFO\ty\tRun completed in 5s', undefined)).toThrow('--log-level debug');
    expect(parseOmesRun([CONNECTED, 'x\tFATAL\ty\tscenario failed: run finished with error after 3s: iteration 4 failed'].join('\n'), 100)).toBeUndefined();
  });

  test('the commands: the TypeScript worker and the scenario on one run id, closed or open loop', () => {
    const o = { temporalAddress: '127.0.0.1:7233', namespace: 'default', iterations: 500, maxConcurrent: 20 };
    expect(runWorkerArgs('bench-x', o)).toEqual(['run-worker', '--language', 'ts', '--dir-name', 'prepared', '--run-id', 'bench-x', '--server-address', '127.0.0.1:7233', '--namespace', 'default']);
    expect(runScenarioArgs('bench-x', o).join(' ')).toBe('run-scenario --scenario workflow_with_single_noop_activity --run-id bench-x --server-address 127.0.0.1:7233 --namespace default --iterations 500 --max-concurrent 20');
    expect(runScenarioArgs('bench-x', { ...o, iterations: undefined, durationS: 30, ratePerSecond: 5 }).join(' ')).toContain('--duration 30s --log-level debug --max-concurrent 20 --max-iterations-per-second 5');
    expect(() => runScenarioArgs('bench-x', { ...o, durationS: 30 })).toThrow('iterations or durationS, not both');
  });

  test('without omes built it fails, naming scripts/install-omes.sh, before starting anything', async () => {
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'omes-missing-'));
    try {
      expect(() => omesInstall(home)).toThrow(/^omes is not installed \(missing .*bin\/omes.*\): run bash scripts\/install-omes\.sh$/);
      await expect(runOmesBaseline({ temporalAddress: '127.0.0.1:1', home })).rejects.toThrow('run bash scripts/install-omes.sh');
      // Half an install (the CLI without the prepared TypeScript worker) is not an install either.
      fs.mkdirSync(path.join(home, 'bin'));
      fs.writeFileSync(path.join(home, 'bin/omes'), '');
      expect(() => omesInstall(home)).toThrow(/missing .*workers\/typescript\/prepared\/package\.json/);
    } finally {
      fs.rmSync(home, { recursive: true, force: true });
    }
  });
});

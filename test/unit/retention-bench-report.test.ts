/**
 * The retention bench's pure parts (scripts/bench/retention/retention-report.ts): the p99 ratio during/before,
 * the 1.2× verdict, what fails a run (a failed request, a kept row deleted, a row past its window
 * left, a count that does not match the seed), and that the report carries the figures.
 */
import { disturbed, failures, p99Ratio, renderRun, splitByOverlap, verdict, type RetentionBenchRun, type Sample, type WindowRun } from '../../scripts/bench/retention/retention-report';

const samples = (kind: string, values: number[]): Sample[] => values.map((ms) => ({ kind, ms }));
const hundred = (base: number, tail: number) => [...Array.from({ length: 98 }, () => base), tail, tail];
const cpu = { postgres: 1, worker: 2, temporal: 3, api: 4, machine: 10 };
const win = (name: WindowRun['name'], open: Sample[], closed: Sample[] = open, errors: string[] = []): WindowRun => ({ name, wallMs: 10_000, open, closed, errors, cpu });

function run(overrides: Partial<RetentionBenchRun> = {}): RetentionBenchRun {
  return {
    variant: 'deployed',
    windows: [win('before', samples('balances', hundred(10, 100))), win('during', samples('balances', hundred(10, 110))), win('after', samples('balances', hundred(10, 90)))],
    job: { workflowId: 'retention-run-x', ms: 42_000, batches: 7, continuations: 0, deleted: { webhook_deliveries: 3 }, plan: { batch: 1000, pauseMs: 100 } },
    groups: [
      { table: 'webhook_deliveries', label: 'dlv_rdx_', where: '', seeded: 3, mustGo: true },
      { table: 'webhook_deliveries', label: 'dlv_rkx_', where: '', seeded: 2, mustGo: false },
    ],
    groupsBefore: [3, 2],
    groupsAfter: [0, 2],
    tablesBefore: { webhook_deliveries: 5 },
    tablesAfter: { webhook_deliveries: 2 },
    rate: 20,
    closedConcurrency: 1,
    ...overrides,
  };
}

test('p99Ratio divides the p99 of the other window by the p99 before (nearest rank), NaN without samples', () => {
  expect(p99Ratio(samples('a', hundred(10, 100)), samples('a', hundred(10, 150)))).toBeCloseTo(1.5);
  expect(p99Ratio([], samples('a', [1]))).toBeNaN();
  expect(p99Ratio(samples('a', [1]), [])).toBeNaN();
});

test('disturbed: the open loop p99 during above 1.2× its p99 before, or no figure at all', () => {
  expect(disturbed(run())).toBe(false);
  const slow = run();
  slow.windows[1] = win('during', samples('balances', hundred(10, 121)));
  expect(disturbed(slow)).toBe(true);
  const empty = run();
  empty.windows[1] = win('during', []);
  expect(disturbed(empty)).toBe(true);
});

test('a clean run has no failures', () => {
  expect(failures(run())).toEqual([]);
});

test('a kept row deleted, a row past its window left, a seed count off, or a failed request each fail the run', () => {
  expect(failures(run({ groupsAfter: [0, 1] }))).toEqual(['deployed: webhook_deliveries dlv_rkx_ must be kept: 1 of 2 deleted']);
  expect(failures(run({ groupsAfter: [1, 2] }))).toEqual(['deployed: webhook_deliveries dlv_rdx_ is past its window: 1 of 3 left after the job']);
  expect(failures(run({ groupsBefore: [3, 1], groupsAfter: [0, 1] }))).toEqual(['deployed: webhook_deliveries dlv_rkx_: 1 rows before the job, 2 seeded']);
  const errored = run();
  errored.windows[1] = win('during', samples('balances', [1]), [], ['GET /v1/balances: 500']);
  expect(failures(errored)).toEqual(['deployed: 1 request(s) failed during the job, first: GET /v1/balances: 500']);
});

test('the report carries the job, each window with its ratio, the rows and the CPU', () => {
  const text = renderRun(run());
  expect(text).toContain('ran 42.0 s, 7 batches');
  expect(text).toContain('| during | open, 20/s offered | 100 | 10.0 | 10.0 | 110.0 | 110.0 | 1.10× | 0 |');
  expect(text).toContain('| after | closed, 1 in flight | 100 | 10.0 | 10.0 | 90.0 | 90.0 | 0.90× | 0 |');
  expect(text).toContain('| webhook_deliveries | dlv_rkx_ | stay | 2 | 2 | 2 |');
  expect(text).toContain('| before | 1.0 (10 %) | 2.0 (20 %) | 3.0 (30 %) | 4.0 (40 %) | 10.0 (100 %) |');
});

test('verdict: met within the goal; not met when only the window during the job is slow; inconclusive when the window after is slow too', () => {
  expect(verdict(run())).toBe('met');
  const slowDuring = run();
  slowDuring.windows[1] = win('during', samples('balances', hundred(10, 300)));
  expect(verdict(slowDuring)).toBe('not met');
  const slowAfter = run();
  slowAfter.windows[1] = win('during', samples('balances', hundred(10, 300)));
  slowAfter.windows[2] = win('after', samples('balances', hundred(10, 250)));
  expect(verdict(slowAfter)).toBe('inconclusive');
});

test('splitByOverlap: a request that was in flight while a batch ran overlaps it; one that ended before or began after is clear; one without times is in neither', () => {
  const at = (start: number, end: number, ms = end - start): Sample => ({ kind: 'balances', ms, start, end });
  const batches = [{ start: 100, end: 200 }, { start: 500, end: 600 }];
  const { overlapping, clear } = splitByOverlap([at(50, 120), at(150, 160), at(190, 250), at(200, 300), at(300, 400), at(0, 1000), at(600, 700), { kind: 'x', ms: 1 }], batches);
  expect(overlapping.map((s) => [s.start, s.end])).toEqual([[50, 120], [150, 160], [190, 250], [0, 1000]]);
  expect(clear.map((s) => [s.start, s.end])).toEqual([[200, 300], [300, 400], [600, 700]]);
});

test('the report splits the window during the job by overlap with its batches', () => {
  const r = run();
  const at = (start: number, ms: number): Sample => ({ kind: 'balances', ms, start, end: start + ms });
  r.windows[1] = win('during', [at(100, 50), at(1000, 10), at(2000, 10)]);
  r.batches = [{ start: 120, end: 130 }];
  expect(renderRun(r)).toContain('| open | 1 | 50.0 | 50.0 | 2 | 10.0 | 10.0 | 5.00× |');
});

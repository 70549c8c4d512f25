import { probeKinds, probeWindows, wholeRun, windowTimeline } from '../../scripts/bench/inflight/inflight-report';
import { caughtUp, type InflightSample } from '../../scripts/bench/inflight/inflight-sampler';
import { metricSum } from '../../scripts/bench/inflight/inflight-sampler';

describe('the in-flight bench (issue 34)', () => {
  test('sums one metric over every label set, and not its namesakes', () => {
    const page = [
      '# HELP temporal_sticky_cache_size Current number of cached workflows',
      'temporal_sticky_cache_size{task_queue="payments-sandbox"} 226',
      'temporal_sticky_cache_size{task_queue="payments-live"} 4',
      'temporal_sticky_cache_size_other{task_queue="x"} 1000',
      'temporal_sticky_cache_total_forced_eviction_total{task_queue="payments-sandbox"} 7',
    ].join('\n');
    expect(metricSum(page, 'temporal_sticky_cache_size')).toBe(230);
    expect(metricSum(page, 'temporal_sticky_cache_total_forced_eviction')).toBe(7);
    expect(metricSum(page, 'temporal_sticky_cache_miss')).toBeNaN();
  });

  test('sums only the label sets that carry every label asked for', () => {
    const page = [
      'payments_http_request_duration_seconds_bucket{le="0.05",method="GET",route="/v1/balances"} 90',
      'payments_http_request_duration_seconds_bucket{le="0.1",method="GET",route="/v1/balances"} 95',
      'payments_http_request_duration_seconds_bucket{le="0.1",method="POST",route="/v1/charges"} 40',
      'payments_http_request_duration_seconds_bucket{le="0.25",method="POST",route="/v1/charges"} 48',
      'payments_http_request_duration_seconds_count{method="POST",route="/v1/charges"} 50',
    ].join('\n');
    expect(metricSum(page, 'payments_http_request_duration_seconds_bucket', ['le="0.1"'])).toBe(135);
    expect(metricSum(page, 'payments_http_request_duration_seconds_bucket', ['le="0.1"', 'method="POST"'])).toBe(40);
    expect(metricSum(page, 'payments_http_request_duration_seconds_bucket', ['le="1"'])).toBeNaN();
  });

  test('cuts a window into slices: where the slow requests were, of which kind, beside the CPU and the APIs\' own count in the same slice', () => {
    const probe = [
      ...Array.from({ length: 60 }, (_, i) => ({ window: 'in flight', atS: 100 + i, kind: i % 2 ? 'GET /v1/balances' : 'POST /v1/charges', ms: 5, ok: true })),
      { window: 'in flight', atS: 135.5, kind: 'POST /v1/charges', ms: 400, ok: true },
      { window: 'in flight', atS: 136.5, kind: 'POST /v1/charges', ms: 300, ok: true },
      { window: 'in flight', atS: 137.5, kind: 'GET /v1/balances', ms: 200, ok: true },
    ];
    const sample = (atS: number, cpu: number, slow: number): InflightSample => ({
      atS, workerRssMiB: 0, largestWorkerRssMiB: 0, stickySize: 0, stickyEvictions: 0, stickyHits: 0, stickyMisses: 0, temporalDiskMiB: 0, postgresDiskMiB: 0, load1: 0,
      cpu: { node: 0, worker: cpu, temporal: 0, postgres: 0, apis: 0, machine: 2 * cpu },
      apiRequests: 0, apiSlowerThan100ms: slow, temporalPersistenceSumS: atS / 1000, temporalPersistenceCount: atS, temporalStartSumS: NaN, temporalStartCount: NaN,
    });
    const samples = [sample(95, 0, 0), sample(125, 3, 0), sample(155, 15, 3)];
    const rows = windowTimeline(probe, samples, 100, 60, 30, 50);
    expect(rows.map((r) => [r.fromS, r.count, r.slowByKind])).toEqual([
      [0, 30, {}],
      [30, 33, { 'POST /v1/charges': 2, 'GET /v1/balances': 1 }],
    ]);
    expect(rows[1].max).toBe(400);
    expect(rows[0].cpuPct?.worker).toBeCloseTo(10);
    expect(rows[1].cpuPct?.worker).toBeCloseTo(40);
    expect(rows[1].cpuPct?.machine).toBeCloseTo(80);
    expect(rows[1].apiSlow).toBe(3);
    expect(rows[1].persistenceMeanMs).toBeCloseTo(1);
    expect(rows[1].startMeanMs).toBeNaN();
    const kinds = probeKinds(probe, 50);
    expect(kinds.map((k) => [k.kind, k.count, k.slow])).toEqual([
      ['POST /v1/charges', 32, 2],
      ['GET /v1/balances', 31, 1],
    ]);
  });

  test("gives each window's p99 and its ratio to the window before the load", () => {
    const samples = [
      ...Array.from({ length: 100 }, (_, i) => ({ window: 'before', atS: i / 10, kind: 'GET', ms: i + 1, ok: true })),
      ...Array.from({ length: 100 }, (_, i) => ({ window: 'in flight', atS: 10 + i / 10, kind: 'GET', ms: 2 * (i + 1), ok: i !== 0 })),
    ];
    const rows = probeWindows(samples);
    expect(rows.map((r) => [r.window, r.count, r.failed, r.p99])).toEqual([
      ['before', 100, 0, 99],
      ['in flight', 100, 1, 198],
    ]);
    expect(rows[1].ratio).toBeCloseTo(2);
  });

  test('judges the whole run from the first create to the end, leaving out the warm-up and the window before', () => {
    const samples = [
      ...Array.from({ length: 50 }, (_, i) => ({ window: 'warm-up', atS: i / 10, kind: 'GET', ms: 1000, ok: true })),
      ...Array.from({ length: 100 }, (_, i) => ({ window: 'before', atS: 5 + i / 10, kind: 'GET', ms: i + 1, ok: true })),
      ...Array.from({ length: 100 }, (_, i) => ({ window: 'creating', atS: 15 + i / 10, kind: 'GET', ms: 3 * (i + 1), ok: true })),
      ...Array.from({ length: 100 }, (_, i) => ({ window: 'rejecting', atS: 25 + i / 10, kind: 'GET', ms: i + 1, ok: true })),
    ];
    const whole = wholeRun(samples);
    expect(whole.count).toBe(200);
    // The 99th of the 200 (creating's 3..300 beside rejecting's 1..100) is creating's 98th, 294 ms.
    expect(whole.p99).toBe(294);
    expect(whole.ratio).toBeCloseTo(294 / 99);
  });

  test('the workers have caught up when the tasks they started since the last reading waited 100 ms or less on average', () => {
    const at = (workflowSumMs: number, workflowCount: number, activitySumMs: number, activityCount: number) => ({ workflowSumMs, workflowCount, activitySumMs, activityCount });
    // 40 workflow tasks that waited 4 s in all (100 ms each) and 10 activity tasks, 50 ms each.
    expect(caughtUp(at(90_000, 100, 1000, 10), at(94_000, 140, 1500, 20), 100)).toBe(true);
    // The same workflow tasks, but the activities waited 2 s each: a backlog of activity tasks.
    expect(caughtUp(at(90_000, 100, 1000, 10), at(94_000, 140, 21_000, 20), 100)).toBe(false);
    // A backlog of workflow tasks.
    expect(caughtUp(at(90_000, 100, 1000, 10), at(190_000, 140, 1000, 10), 100)).toBe(false);
    // Nothing started in between: nothing waits.
    expect(caughtUp(at(90_000, 100, 1000, 10), at(90_000, 100, 1000, 10), 100)).toBe(true);
    // No listener answered: never caught up.
    expect(caughtUp(at(90_000, 100, 1000, 10), at(NaN, NaN, NaN, NaN), 100)).toBe(false);
  });
});

import { probeWindows } from '../../scripts/bench/inflight-report';
import { metricSum } from '../../scripts/bench/inflight-sampler';

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

  test("gives each window's p99 and its ratio to the window before the load", () => {
    const samples = [
      ...Array.from({ length: 100 }, (_, i) => ({ window: 'before', kind: 'GET', ms: i + 1, ok: true })),
      ...Array.from({ length: 100 }, (_, i) => ({ window: 'in flight', kind: 'GET', ms: 2 * (i + 1), ok: i !== 0 })),
    ];
    const rows = probeWindows(samples);
    expect(rows.map((r) => [r.window, r.count, r.failed, r.p99])).toEqual([
      ['before', 100, 0, 99],
      ['in flight', 100, 1, 198],
    ]);
    expect(rows[1].ratio).toBeCloseTo(2);
  });
});

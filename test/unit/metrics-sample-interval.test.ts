import { DEFAULT_SAMPLE_INTERVAL_MS, metricsSampleIntervalMs } from '../../src/config';
import { StartupError } from '../../src/support/startup-error';

/** METRICS_SAMPLE_INTERVAL: how often the API's metrics sampler reads PostgreSQL and Temporal (README, Configuration). */
test.each([
  [undefined, DEFAULT_SAMPLE_INTERVAL_MS],
  ['', DEFAULT_SAMPLE_INTERVAL_MS],
  ['1s', 1_000],
  ['30s', 30_000],
  ['2m', 120_000],
])('METRICS_SAMPLE_INTERVAL=%p is %p ms', (raw, ms) => {
  expect(metricsSampleIntervalMs(raw === undefined ? {} : { METRICS_SAMPLE_INTERVAL: raw })).toBe(ms);
});

test.each(['500ms', '0s', 'often', '15'])('METRICS_SAMPLE_INTERVAL=%p stops the API at start-up with one line naming the setting', (raw) => {
  expect(() => metricsSampleIntervalMs({ METRICS_SAMPLE_INTERVAL: raw })).toThrow(StartupError);
  expect(() => metricsSampleIntervalMs({ METRICS_SAMPLE_INTERVAL: raw })).toThrow(/^METRICS_SAMPLE_INTERVAL must be a duration of at least 1s/);
});

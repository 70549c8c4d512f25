import type { MetricMeter } from '@temporalio/common';
import { BREAKER_STATES } from '../domain/partner-health';
import type { PartnerHealthReport } from './partner-breaker-monitor';

/**
 * The worker's partner gauges (issue 46), on its Prometheus endpoint (WORKER_METRICS_PORT), set by
 * each pass of the breaker loop: `partner_calls_window{partner}`, `partner_success_ratio{partner}`,
 * `partner_error_ratio{partner}`, `partner_latency_seconds{partner,quantile}` (0.5 and 0.95; the
 * ratios and latencies are 0 when the window has no call), and `partner_breaker_state{partner,state}`
 * (1 for the breaker's state, 0 for the others). Every worker reports the same deployment-wide
 * figures (read from PostgreSQL): combine them with `max`.
 */
export function partnerGauges(meter: MetricMeter): (report: PartnerHealthReport) => void {
  const calls = meter.createGauge('partner_calls_window', 'int', '1', 'Calls to each live partner in the health window (PARTNER_HEALTH_WINDOW_MS)');
  const success = meter.createGauge('partner_success_ratio', 'float', '1', 'Share of calls a partner answered (answered or refused for a final reason) in the window; 0 without calls');
  const errors = meter.createGauge('partner_error_ratio', 'float', '1', 'Share of calls that erred (timeout, 5xx, not reached, refused for its own trouble) in the window; 0 without calls');
  const latency = meter.createGauge('partner_latency_seconds', 'float', '', 'Latency of a partner\'s calls in the window, by quantile (0.5, 0.95); 0 without calls');
  const state = meter.createGauge('partner_breaker_state', 'int', '1', 'Each partner\'s circuit breaker: 1 for its state (closed, open, half_open, drained), 0 for the others');
  return ({ health, breakers }) => {
    for (const [partner, h] of Object.entries(health)) {
      calls.set(h.calls, { partner });
      success.set(h.successRate ?? 0, { partner });
      errors.set(h.errorShare ?? 0, { partner });
      latency.set((h.latencyP50Ms ?? 0) / 1000, { partner, quantile: '0.5' });
      latency.set((h.latencyP95Ms ?? 0) / 1000, { partner, quantile: '0.95' });
    }
    for (const breaker of breakers) {
      for (const s of BREAKER_STATES) state.set(s === breaker.state ? 1 : 0, { partner: breaker.partner, state: s });
    }
  };
}

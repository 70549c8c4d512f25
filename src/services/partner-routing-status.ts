import type { BreakerState } from '../domain/partner-health';
import type { PartnerName } from '../domain/rail-routes';
import type { Orm } from '../persistence/orm';
import { partnerStates } from '../persistence/partner/partner-breaker-store';
import { partnerHealthWindow } from '../persistence/partner/partner-health-store';

/**
 * `routing status` (issue 46): each live partner's circuit breaker (state, since when, why) and its
 * health over the window (PARTNER_HEALTH_WINDOW_MS): calls, success rate, error share, latency p50
 * and p95. As JSON (`--json`) or as a table for a person.
 */

export interface PartnerRoutingRow {
  partner: PartnerName;
  state: BreakerState;
  since: string;
  reason: string | null;
  drained_by: string | null;
  calls: number;
  /** null without calls in the window. */
  success_rate: number | null;
  error_share: number | null;
  latency_p50_ms: number | null;
  latency_p95_ms: number | null;
}

export interface PartnerRoutingStatus {
  object: 'list';
  window_ms: number;
  data: PartnerRoutingRow[];
}

export async function partnerRoutingStatus(orm: Orm, windowMs: number): Promise<PartnerRoutingStatus> {
  const em = orm.em.fork();
  const health = await partnerHealthWindow(em, windowMs);
  const data = (await partnerStates(em)).map((b) => {
    const h = health[b.partner];
    return {
      partner: b.partner,
      state: b.state,
      since: b.since,
      reason: b.reason,
      drained_by: b.drained_by,
      calls: h.calls,
      success_rate: h.successRate,
      error_share: h.errorShare,
      latency_p50_ms: h.latencyP50Ms === null ? null : Math.round(h.latencyP50Ms),
      latency_p95_ms: h.latencyP95Ms === null ? null : Math.round(h.latencyP95Ms),
    };
  });
  return { object: 'list', window_ms: windowMs, data };
}

const share = (value: number | null) => (value === null ? '-' : `${(value * 100).toFixed(1)}%`);
const ms = (value: number | null) => (value === null ? '-' : `${value} ms`);

/** The table `routing status` prints without --json: one line per partner, then each breaker's reason. */
export function routingStatusTable(status: PartnerRoutingStatus): string {
  const header = ['PARTNER', 'BREAKER', 'SINCE', 'CALLS', 'SUCCESS', 'ERRORS', 'P50', 'P95'];
  const rows = status.data.map((r) => [r.partner, r.state, r.since, String(r.calls), share(r.success_rate), share(r.error_share), ms(r.latency_p50_ms), ms(r.latency_p95_ms)]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i].length)));
  const line = (cells: string[]) => cells.map((cell, i) => cell.padEnd(widths[i])).join('  ').trimEnd();
  const reasons = status.data.filter((r) => r.reason).map((r) => `${r.partner}: ${r.reason}`);
  return [`window: the last ${Math.round(status.window_ms / 1000)} s`, line(header), ...rows.map(line), ...reasons].join('\n');
}

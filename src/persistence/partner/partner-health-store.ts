import type { EntityManager } from '@mikro-orm/postgresql';
import { healthOf, isPartnerCallOutcome, noCalls, type OutcomeCounts, type PartnerHealth } from '../../domain/partner-health';
import { isPartnerName, PARTNERS, type PartnerName } from '../../domain/rail-routes';

/**
 * What `partner_calls` (migration 20261217000010) says of each partner: its calls by outcome since a
 * moment (what moves its breaker, src/domain/partner-health.ts), its health over a window (`routing
 * status`, the worker's partner_* gauges), and the pruning of rows past a day. Every range is of `at`,
 * through its index; times are the worker's clock, as `at` is.
 */

/** Anything that runs a statement: a forked EntityManager, or the one of the caller's transaction. */
type Executor = Pick<EntityManager, 'execute'>;

/** How long a measured call is kept. */
export const PARTNER_CALLS_KEPT_MS = 86_400_000;
/** Rows deleted by one prune statement at most. */
export const PRUNE_BATCH = 5_000;

/** `partner`'s calls at or after `from`, by outcome. */
export async function callCountsSince(em: Executor, partner: PartnerName, from: Date): Promise<OutcomeCounts> {
  const rows = await em.execute<{ outcome: string; n: number }[]>(
    `select outcome, count(*)::int as n from partner_calls where at >= ? and partner = ? group by outcome`,
    [from.toISOString(), partner],
  );
  const counts = noCalls();
  for (const row of rows) if (isPartnerCallOutcome(row.outcome)) counts[row.outcome] = Number(row.n);
  return counts;
}

/** Every partner's health over the `windowMs` before `now` (a partner without calls: zero calls, nulls). */
export async function partnerHealthWindow(em: Executor, windowMs: number, now: Date = new Date()): Promise<Record<PartnerName, PartnerHealth>> {
  const from = new Date(now.getTime() - windowMs).toISOString();
  const counts = await em.execute<{ partner: string; outcome: string; n: number }[]>(
    `select partner, outcome, count(*)::int as n from partner_calls where at >= ? group by partner, outcome`,
    [from],
  );
  const latencies = await em.execute<{ partner: string; p50: number | null; p95: number | null }[]>(
    `select partner, percentile_cont(0.5) within group (order by latency_ms)::float8 as p50,
            percentile_cont(0.95) within group (order by latency_ms)::float8 as p95
     from partner_calls where at >= ? group by partner`,
    [from],
  );
  const byPartner = Object.fromEntries(PARTNERS.map((p) => [p, noCalls()])) as Record<PartnerName, OutcomeCounts>;
  for (const row of counts) if (isPartnerName(row.partner) && isPartnerCallOutcome(row.outcome)) byPartner[row.partner][row.outcome] = Number(row.n);
  const latency = new Map(latencies.map((row) => [row.partner, { p50Ms: row.p50 === null ? null : Number(row.p50), p95Ms: row.p95 === null ? null : Number(row.p95) }]));
  return Object.fromEntries(PARTNERS.map((p) => [p, healthOf(byPartner[p], latency.get(p) ?? { p50Ms: null, p95Ms: null })])) as Record<PartnerName, PartnerHealth>;
}

/** Deletes at most PRUNE_BATCH calls older than PARTNER_CALLS_KEPT_MS before `now`, oldest first; answers how many. */
export async function prunePartnerCalls(em: Executor, now: Date = new Date()): Promise<number> {
  const [row] = await em.execute<{ n: number }[]>(
    `with doomed as (select id from partner_calls where at < ? order by at limit ${PRUNE_BATCH}),
     deleted as (delete from partner_calls c using doomed where c.id = doomed.id returning 1)
     select count(*)::int as n from deleted`,
    [new Date(now.getTime() - PARTNER_CALLS_KEPT_MS).toISOString()],
  );
  return Number(row.n);
}

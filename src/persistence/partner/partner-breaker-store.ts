import type { EntityManager } from '@mikro-orm/postgresql';
import { breakerAdmits, isBreakerState, PROBE_INTERVAL_MS, type BreakerState } from '../../domain/partner-health';
import { PARTNERS, type PartnerName } from '../../domain/rail-routes';
import { iso } from '../sql-values';

/**
 * The partners' circuit breakers (`partner_breakers`, migration 20261217000011) as the route choice
 * reads them (issue 46): whether a new payment may go to a partner now (partnerAdmits), and every
 * breaker's state (partnerStates). A breaker keeps only new payments, and a failover's choice of
 * another partner, away from its partner: a payment already with a partner is never moved by it.
 * The worker's evaluator moves them (src/persistence/partner/partner-breaker-evaluation.ts), an
 * operator drains and resumes them (src/persistence/partner/partner-drain.ts).
 */

/** Anything that runs a statement: a forked EntityManager, or the one of the caller's transaction. */
type Executor = Pick<EntityManager, 'execute'>;

export interface PartnerBreakerView {
  partner: PartnerName;
  state: BreakerState;
  /** ISO: when it entered its state. */
  since: string;
  reason: string | null;
  /** ISO: the last probe payment a half-open breaker let through. */
  probe_at: string | null;
  drained_by: string | null;
  drained_reason: string | null;
}

/**
 * Whether a new payment (or a failover's second choice) may go to `partner` now: closed, yes; open
 * or drained, no; half-open, yes for one probe payment at most every PROBE_INTERVAL_MS, claimed
 * atomically (of two callers at once, one gets it; the other waits on the row and finds it taken).
 * A partner without a breaker row is closed. Call it with the EntityManager of the transaction that
 * writes the payment's partner, or a fork.
 */
export async function partnerAdmits(em: Executor, partner: PartnerName): Promise<boolean> {
  const [row] = await em.execute<{ state: string | null; claimed: boolean }[]>(
    `with claim as (
       update partner_breakers set probe_at = clock_timestamp()
       where partner = ? and state = 'half_open' and (probe_at is null or probe_at <= clock_timestamp() - make_interval(secs => ?))
       returning 1)
     select (select state from partner_breakers where partner = ?) as state, exists (select 1 from claim) as claimed`,
    [partner, PROBE_INTERVAL_MS / 1000, partner],
  );
  const state = row?.state ?? 'closed';
  return isBreakerState(state) ? breakerAdmits(state, row.claimed === true) : true;
}

interface BreakerRow {
  partner: PartnerName;
  state: BreakerState;
  since: Date | string;
  reason: string | null;
  probe_at: Date | string | null;
  drained_by: string | null;
  drained_reason: string | null;
}

const viewOf = (row: BreakerRow): PartnerBreakerView => ({
  partner: row.partner,
  state: row.state,
  since: iso(row.since),
  reason: row.reason,
  probe_at: row.probe_at === null ? null : iso(row.probe_at),
  drained_by: row.drained_by,
  drained_reason: row.drained_reason,
});

/** Every partner's breaker, in PARTNERS order (one without a row: closed since the epoch). */
export async function partnerStates(em: Executor): Promise<PartnerBreakerView[]> {
  const rows = await em.execute<BreakerRow[]>(`select partner, state, since, reason, probe_at, drained_by, drained_reason from partner_breakers`, []);
  const byPartner = new Map(rows.map((row) => [row.partner, viewOf(row)]));
  return PARTNERS.map(
    (partner) => byPartner.get(partner) ?? { partner, state: 'closed', since: new Date(0).toISOString(), reason: null, probe_at: null, drained_by: null, drained_reason: null },
  );
}

/** Every partner's breaker row, locked for the caller's transaction (made first when missing, closed). */
export async function lockBreakers(em: Executor, now: Date): Promise<PartnerBreakerView[]> {
  await em.execute(
    `insert into partner_breakers (partner, state, since) select p, 'closed', ?::timestamptz from jsonb_array_elements_text(?::jsonb) as p on conflict (partner) do nothing`,
    [now.toISOString(), JSON.stringify(PARTNERS)],
  );
  const rows = await em.execute<BreakerRow[]>(
    `select partner, state, since, reason, probe_at, drained_by, drained_reason from partner_breakers order by partner for update`,
    [],
  );
  return rows.map(viewOf);
}

/** Sets a locked breaker's state (a new state clears its probe), and who drained it when it is drained. */
export async function setBreaker(em: Executor, partner: PartnerName, change: { state: BreakerState; reason: string; at: Date; drainedBy?: string }): Promise<void> {
  const drained = change.state === 'drained';
  await em.execute(
    `update partner_breakers set state = ?, since = ?, reason = ?, probe_at = null, drained_by = ?, drained_reason = ? where partner = ?`,
    [change.state, change.at.toISOString(), change.reason, drained ? (change.drainedBy ?? null) : null, drained ? change.reason : null, partner],
  );
}

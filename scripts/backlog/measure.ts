import { ENVIRONMENTS } from '../../src/domain/environment';
import type { Orm } from '../../src/persistence/orm';
import { claimUndispatchedEvents, FAIR_CLAIM_SQL, fairClaimParams } from '../../src/persistence/webhooks/outbox-claim';
import { CLAIM_OUTBOX_SQL, claimOutboxEvents, finishOutboxEvents } from '../../src/persistence/notifications/notification-fanout-store';
import { findUnstartedCharges, markChargeWorkflowsStarted, UNSTARTED_CHARGES_SQL } from '../../src/persistence/charges/charge-workflow-start-store';
import { findUnstartedPayouts, markPayoutWorkflowsStarted, UNSTARTED_PAYOUTS_SQL } from '../../src/persistence/payouts/payout-workflow-start-store';
import { findUnstartedRefunds, markRefundWorkflowsStarted, UNSTARTED_REFUNDS_SQL } from '../../src/persistence/refunds/refund-workflow-start-store';
import { findUnstartedDisputes, markDisputeWorkflowsStarted, UNSTARTED_DISPUTES_SQL } from '../../src/persistence/disputes/dispute-workflow-start-store';
import { TEXT_ARRAY } from '../../src/persistence/sql-values';
import { summarize, type Summary } from '../bench/shared/stats';

const BATCH = 100;

/** One claim's timings over many claims, each followed by what the relay writes when its pass succeeds. */
export interface ClaimRun {
  name: string;
  claims: Summary;
  /** Rows handled per second of claim plus finish, the database's share of a pass (no Temporal). */
  rowsPerSecond: number;
  rows: number;
}

async function timed<T>(run: () => Promise<T>): Promise<[T, number]> {
  const started = process.hrtime.bigint();
  const result = await run();
  return [result, Number(process.hrtime.bigint() - started) / 1e6];
}

async function repeat(name: string, times: number, pass: () => Promise<{ claimMs: number; rows: number }>): Promise<ClaimRun> {
  const claims: number[] = [];
  let rows = 0;
  const started = Date.now();
  for (let i = 0; i < times; i++) {
    const one = await pass();
    claims.push(one.claimMs);
    rows += one.rows;
    if (one.rows === 0) break;
  }
  return { name, claims: summarize(claims), rows, rowsPerSecond: rows / ((Date.now() - started) / 1000) };
}

/** Fairness of the webhook claims: how many merchant-environment scopes each claim served, and how even the running totals stay. */
export interface Fairness {
  /** Fewest different scopes in one claim of 100 (100: one event each). */
  minScopesPerClaim: number;
  /** Most events one scope took in one claim. */
  maxPerScopeInClaim: number;
  /** Over the whole run: events per scope, fewest and most, among the scopes with a backlog. */
  perScopeMin: number;
  perScopeMax: number;
  /** Jain's index of the per-scope totals (1: perfectly even). */
  jain: number;
}

/**
 * The webhook outbox claim, `times` times: claim (timed), then mark the events dispatched as a
 * successful pass does (the deliveries and starts are left out: this is the claim's own cost).
 */
export async function measureWebhookClaims(orm: Orm, times: number, scopes: number): Promise<{ run: ClaimRun; fairness: Fairness }> {
  const conn = orm.em.getConnection();
  const totals = new Map<string, number>();
  let minScopes = Infinity;
  let maxPerScope = 0;
  const run = await repeat('webhook outbox (fair claim)', times, async () => {
    const [events, claimMs] = await timed(() => claimUndispatchedEvents(orm, 15, ENVIRONMENTS, BATCH));
    const inClaim = new Map<string, number>();
    for (const e of events) inClaim.set(`${e.merchant_id}|${e.environment}`, (inClaim.get(`${e.merchant_id}|${e.environment}`) ?? 0) + 1);
    if (events.length === BATCH) minScopes = Math.min(minScopes, inClaim.size);
    for (const [scope, n] of inClaim) {
      maxPerScope = Math.max(maxPerScope, n);
      totals.set(scope, (totals.get(scope) ?? 0) + n);
    }
    if (events.length > 0) {
      await conn.execute(`update events set dispatched_at = now(), dispatch_lease_until = null where id = any(${TEXT_ARRAY})`, [JSON.stringify(events.map((e) => e.id))]);
    }
    return { claimMs, rows: events.length };
  });
  const counts = [...totals.values()];
  while (counts.length < scopes) counts.push(0);
  const sum = counts.reduce((s, n) => s + n, 0);
  const squares = counts.reduce((s, n) => s + n * n, 0);
  return {
    run,
    fairness: {
      minScopesPerClaim: minScopes,
      maxPerScopeInClaim: maxPerScope,
      perScopeMin: Math.min(...counts),
      perScopeMax: Math.max(...counts),
      jain: squares === 0 ? 1 : (sum * sum) / (counts.length * squares),
    },
  };
}

/** The notification outbox claim, then the successful pass's delete. */
export async function measureNotificationClaims(orm: Orm, times: number): Promise<ClaimRun> {
  return repeat('notification outbox', times, async () => {
    const [claim, claimMs] = await timed(() => claimOutboxEvents(orm, 15, BATCH));
    if (claim.claimed.length > 0) await finishOutboxEvents(orm, claim.claimed, []);
    return { claimMs, rows: claim.claimed.length };
  });
}

/** A start relay's query, then its mark (as if every start answered). */
export async function measureStartRelays(orm: Orm, times: number): Promise<ClaimRun[]> {
  type Find = (orm: Orm, olderThanSeconds: number, limit: number) => Promise<Array<{ id: string }>>;
  const kinds: Array<[string, Find, (orm: Orm, ids: string[]) => Promise<unknown>]> = [
    ['charge-start relay', findUnstartedCharges, markChargeWorkflowsStarted],
    ['payout-start relay', findUnstartedPayouts, markPayoutWorkflowsStarted],
    ['refund-start relay', findUnstartedRefunds, markRefundWorkflowsStarted],
    ['dispute-start relay', findUnstartedDisputes, markDisputeWorkflowsStarted],
  ];
  const runs: ClaimRun[] = [];
  for (const [name, find, mark] of kinds) {
    runs.push(
      await repeat(name, times, async () => {
        const [found, claimMs] = await timed(() => find(orm, 5, BATCH));
        await mark(orm, found.map((r) => r.id));
        return { claimMs, rows: found.length };
      }),
    );
  }
  return runs;
}

/** EXPLAIN (ANALYZE, BUFFERS) of each claim as the relays run it (the ones that write, in a transaction rolled back). */
export async function explainClaims(orm: Orm): Promise<Array<{ name: string; plan: string }>> {
  const claims: Array<[string, string, unknown[]]> = [
    ['webhook outbox: the fair claim (outbox-claim.ts)', FAIR_CLAIM_SQL, fairClaimParams(15, ENVIRONMENTS, BATCH, null)],
    ['notification outbox (claimOutboxEvents)', CLAIM_OUTBOX_SQL, [15, BATCH]],
    ['charge-start relay (findUnstartedCharges)', UNSTARTED_CHARGES_SQL, [5, BATCH]],
    ['payout-start relay (findUnstartedPayouts)', UNSTARTED_PAYOUTS_SQL, [5, BATCH]],
    ['refund-start relay (findUnstartedRefunds)', UNSTARTED_REFUNDS_SQL, [5, BATCH]],
    ['dispute-start relay (findUnstartedDisputes)', UNSTARTED_DISPUTES_SQL, [5, BATCH]],
  ];
  const plans: Array<{ name: string; plan: string }> = [];
  const rollback = new Error('rollback');
  for (const [name, sql, params] of claims) {
    await orm.em
      .fork()
      .transactional(async (em) => {
        const rows = await em.execute<Array<{ 'QUERY PLAN': string }>>(`explain (analyze, buffers) ${sql}`, params);
        plans.push({ name, plan: rows.map((r) => r['QUERY PLAN']).join('\n') });
        throw rollback;
      })
      .catch((error: unknown) => {
        if (error !== rollback) throw error;
      });
  }
  return plans;
}

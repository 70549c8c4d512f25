import type client from 'prom-client';
import { DEFAULT_SAMPLE_INTERVAL_MS } from '../config';
import { readMonitorBacklogs } from '../persistence/monitor-backlogs';
import { openBreakTotals } from '../persistence/reconcile/break-store';
import { openLateMoneyTotals } from '../persistence/partner/late-answer-store';
import { oldestUnpaidReturnAgeSeconds } from '../persistence/partner/late-return-by-hand';
import type { Orm } from '../persistence/orm';
import { countNeedingAttention } from '../temporal/needing-attention-counts';
import type { Logger } from '../support/logger';
import { createMonitorMetrics, type MonitorMetrics, type MonitorSource } from '../support/monitor-metrics';
import { runPeriodically, type PeriodicLoop } from '../support/periodic-loop';
import type { TemporalHandle } from '../temporal/connection';
import { readBuildCoverage } from '../temporal/worker-builds';
import { setBuildGauges } from './build-gauges';

/**
 * The API process's metrics sampler: every METRICS_SAMPLE_INTERVAL (15 s) it reads what the alerts
 * need and neither process counts as it goes (support/monitor-metrics.ts): from PostgreSQL the relay
 * lags and the webhook backlog (one short read-only transaction), from Temporal the payments needing
 * attention (count queries), the pollers of each task queue by build (DescribeTaskQueue) and the open
 * runs pinned to each build (count queries; runtime/build-gauges.ts). A scrape only
 * reads the gauges, so it never waits on a dependency. Each source has its own deadline
 * (SAMPLE_DEADLINE_MS); a source that fails or is too slow gets `payments_monitor_up{source}` 0 and
 * its gauges are cleared (absent, not stale), and the next pass tries again: nothing here throws.
 */

/** Longest wait of one source's sample: PostgreSQL's statement_timeout, Temporal's RPC deadline. */
export const SAMPLE_DEADLINE_MS = 5_000;

export interface MonitorSamplerDeps {
  registry: client.Registry;
  orm: Orm;
  temporal: TemporalHandle;
  /** TEMPORAL_TASK_QUEUE: only this deployment's queues and workflows are counted. */
  taskQueue: string;
  /** WORKER_DEPLOYMENT_NAME, when set: its builds are counted even when none of its workers polls (src/temporal/worker-builds.ts). */
  workerDeploymentName?: string;
  log: Logger;
  deadlineMs?: number;
}

export interface MonitorSampler {
  metrics: MonitorMetrics;
  /** One pass now (both sources); resolves when the gauges are set. Never rejects. */
  sample(): Promise<void>;
  /** Stops the loop, then waits for calls still under way (each bounded by its deadline): close the ORM and the connection after this. */
  stop(): Promise<void>;
}

/**
 * `work`, or a rejection after `ms`, whichever comes first. The work itself is bounded too (PostgreSQL's
 * statement_timeout, the RPC deadline) and is kept in `inflight` until it settles, so stop() can wait
 * for it: the connections it uses may be closed right after.
 */
function within<T>(ms: number, inflight: Set<Promise<unknown>>, work: () => Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  const running = work();
  const settled = running.then(
    () => undefined,
    () => undefined,
  );
  inflight.add(settled);
  void settled.then(() => inflight.delete(settled));
  return Promise.race([running, timeout]).finally(() => clearTimeout(timer));
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error)).slice(0, 300);

/** Creates the gauges on `deps.registry`, samples once at once, then every `intervalMs`. */
export function startMonitorSampler(deps: MonitorSamplerDeps, intervalMs: number = DEFAULT_SAMPLE_INTERVAL_MS): MonitorSampler {
  const metrics = createMonitorMetrics(deps.registry);
  const deadlineMs = deps.deadlineMs ?? SAMPLE_DEADLINE_MS;
  const lastUp: Partial<Record<MonitorSource, boolean>> = {};
  const inflight = new Set<Promise<unknown>>();

  const record = (source: MonitorSource, ok: boolean, error?: unknown) => {
    metrics.up.set({ source }, ok ? 1 : 0);
    if (!ok && lastUp[source] !== false) deps.log.warn({ source, error: messageOf(error) }, 'metrics sampler: source did not answer; its gauges are cleared until it does');
    if (ok && lastUp[source] === false) deps.log.info({ source }, 'metrics sampler: source answers again');
    lastUp[source] = ok;
  };

  const samplePostgres = async () => {
    try {
      // Two statements, each cut off by PostgreSQL at half the deadline, so the connection is back in
      // the pool within about the deadline; the race also bounds the wait for a connection.
      const backlogs = await within(deadlineMs, inflight, () => readMonitorBacklogs(deps.orm, deadlineMs / 2));
      for (const [relay, seconds] of Object.entries(backlogs.relayLagSeconds)) metrics.relayLag.set({ relay }, seconds);
      for (const [environment, backlog] of Object.entries(backlogs.webhooks)) {
        metrics.webhookBacklog.set({ environment }, backlog.pending);
        metrics.webhookOldestPendingAge.set({ environment }, backlog.oldestDueAgeSeconds);
      }
      // Reconciliation (docs/operations.md, "Reconciliation"): open breaks by kind and partner, money in them by currency and partner.
      const breaks = await within(deadlineMs, inflight, () => openBreakTotals(deps.orm));
      for (const [partner, byKind] of Object.entries(breaks.byPartner)) for (const [kind, n] of Object.entries(byKind)) metrics.openBreaks.set({ kind, partner }, n);
      metrics.openBreakAmount.reset();
      for (const [partner, byCurrency] of Object.entries(breaks.moneyByPartner)) for (const [currency, amount] of Object.entries(byCurrency)) metrics.openBreakAmount.set({ currency, partner }, amount);
      // Late money (docs/operations.md, "Late money"): not settled yet, by kind and by currency.
      const late = await within(deadlineMs, inflight, () => openLateMoneyTotals(deps.orm));
      for (const [kind, n] of Object.entries(late.byKind)) metrics.lateMoneyOpen.set({ kind }, n);
      metrics.lateMoneyOpenAmount.reset();
      for (const [currency, amount] of Object.entries(late.amountByCurrency)) metrics.lateMoneyOpenAmount.set({ currency }, amount);
      // Returns of late money not paid yet (issue 43): a failed one waits for payments settle-return.
      metrics.returnsInTransitOldestAge.set(await within(deadlineMs, inflight, () => oldestUnpaidReturnAgeSeconds(deps.orm)));
      record('postgres', true);
    } catch (error) {
      for (const gauge of [metrics.relayLag, metrics.webhookBacklog, metrics.webhookOldestPendingAge, metrics.openBreaks, metrics.openBreakAmount, metrics.lateMoneyOpen, metrics.lateMoneyOpenAmount, metrics.returnsInTransitOldestAge]) gauge.reset();
      record('postgres', false, error);
    }
  };

  const sampleTemporal = async () => {
    try {
      const [attention, pollers] = await within(deadlineMs, inflight, async () => {
        // Both settle before this does (stop() waits for them), then the first failure is thrown.
        const [counted, polled] = await Promise.allSettled([
          countNeedingAttention(deps.temporal.client, deps.taskQueue, deadlineMs),
          readBuildCoverage(deps.temporal, deps.taskQueue, deadlineMs, deps.workerDeploymentName ? [deps.workerDeploymentName] : []),
        ]);
        if (counted.status === 'rejected') throw counted.reason;
        if (polled.status === 'rejected') throw polled.reason;
        return [counted.value, polled.value] as const;
      });
      for (const { type, environment, kind, count } of attention.cells) metrics.needingAttention.set({ type, environment, kind }, count);
      for (const { environment, count } of attention.overdueReviews) metrics.payoutReviewsOverdue.set({ environment }, count);
      setBuildGauges(metrics, pollers);
      record('temporal', true);
    } catch (error) {
      for (const gauge of [metrics.needingAttention, metrics.payoutReviewsOverdue, metrics.pollers, metrics.openRunsByBuild]) gauge.reset();
      record('temporal', false, error);
    }
  };

  const sample = async () => {
    await Promise.all([samplePostgres(), sampleTemporal()]);
  };
  const loop: PeriodicLoop = runPeriodically(intervalMs, sample, (error) => deps.log.error({ error: messageOf(error) }, 'metrics sampler pass failed'));
  return {
    metrics,
    sample,
    async stop() {
      await loop.stop();
      await Promise.all([...inflight]);
    },
  };
}

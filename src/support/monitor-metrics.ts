import client from 'prom-client';

/**
 * The gauges the API's metrics sampler (runtime/monitor-sampler.ts) sets, on the API's registry
 * (support/metrics.ts). Counts and ages only: no id, key, URL or amount is ever a label.
 * monitoring/prometheus/rules.yml alerts on them; docs/operations.md, "Metrics", says what each means.
 */
export type MonitorSource = 'postgres' | 'temporal';

export interface MonitorMetrics {
  /** 1 when the last sample of the source answered within its deadline, else 0 (and its gauges are cleared). */
  up: client.Gauge<'source'>;
  /** kind `trouble`, or `review` (payouts held for review: the normal flow); src/temporal/needing-attention-counts.ts. */
  needingAttention: client.Gauge<'type' | 'environment' | 'kind'>;
  /** Payouts held for review for longer than REVIEW_OVERDUE_AFTER_MS (4 h). */
  payoutReviewsOverdue: client.Gauge<'environment'>;
  webhookBacklog: client.Gauge<'environment'>;
  webhookOldestPendingAge: client.Gauge<'environment'>;
  relayLag: client.Gauge<'relay'>;
  /** By Worker Deployment build (`build_id`; no such label for unversioned workers): issue 31, finding 8. */
  pollers: client.Gauge<'environment' | 'task_queue' | 'task_type' | 'build_id'>;
  /** Running workflows by the build they are pinned to (no `build_id`: pinned to none), per queue. */
  openRunsByBuild: client.Gauge<'environment' | 'task_queue' | 'build_id'>;
  /** Open reconciliation breaks, by kind and partner (issue 45; every kind of every partner exported, zero included). */
  openBreaks: client.Gauge<'kind' | 'partner'>;
  /** Money in open reconciliation breaks, in minor units, by currency and partner. */
  openBreakAmount: client.Gauge<'currency' | 'partner'>;
  /** Late money not settled yet (issue 29), by kind of payment (every kind exported, zero included). */
  lateMoneyOpen: client.Gauge<'kind'>;
  /** Late money not settled yet, in minor units, by currency. */
  lateMoneyOpenAmount: client.Gauge<'currency'>;
  /** Age of the oldest return of late money not paid yet (requested, submitted or failed; 0: none), seconds. */
  returnsInTransitOldestAge: client.Gauge;
}

export function createMonitorMetrics(registry: client.Registry): MonitorMetrics {
  const registers = [registry];
  return {
    up: new client.Gauge({
      name: 'payments_monitor_up',
      help: 'Whether the metrics sampler last reached the source (postgres, temporal) within its deadline: 1 yes, 0 no',
      labelNames: ['source'],
      registers,
    }),
    needingAttention: new client.Gauge({
      name: 'payments_needing_attention',
      help: 'Running payment workflows marked NeedsAttention (waiting for an operator), by payment type, environment and kind: trouble, or review (a payout held for review)',
      labelNames: ['type', 'environment', 'kind'],
      registers,
    }),
    payoutReviewsOverdue: new client.Gauge({
      name: 'payments_payout_reviews_overdue',
      help: 'Payouts held for review for more than 4 hours, still waiting for a decision (PAYOUT_REVIEW_TIMEOUT declines them), by environment',
      labelNames: ['environment'],
      registers,
    }),
    webhookBacklog: new client.Gauge({
      name: 'payments_webhook_backlog',
      help: 'Webhook deliveries pending (waiting for their first attempt or a retry)',
      labelNames: ['environment'],
      registers,
    }),
    webhookOldestPendingAge: new client.Gauge({
      name: 'payments_webhook_oldest_pending_age_seconds',
      help: 'Seconds the longest-waiting due webhook delivery has been due (first attempt: since written; retry: since next_attempt_at); 0 when none is due',
      labelNames: ['environment'],
      registers,
    }),
    relayLag: new client.Gauge({
      name: 'payments_relay_lag_seconds',
      help: 'Age of the oldest record a relay of the worker still has to handle (a payment whose workflow is not started, an event not fanned out, a delivery not started); 0 when none',
      labelNames: ['relay'],
      registers,
    }),
    pollers: new client.Gauge({
      name: 'payments_task_queue_pollers',
      help: 'Worker pollers the Temporal server saw in the last minute on each environment task queue, by task type (workflow, activity) and Worker Deployment build (build_id; none for unversioned workers)',
      labelNames: ['environment', 'task_queue', 'task_type', 'build_id'],
      registers,
    }),
    openRunsByBuild: new client.Gauge({
      name: 'payments_open_runs_by_build',
      help: 'Running workflows on each environment task queue by the Worker Deployment build they are pinned to (build_id; none: pinned to no build)',
      labelNames: ['environment', 'task_queue', 'build_id'],
      registers,
    }),
    openBreaks: new client.Gauge({
      name: 'payments_reconciliation_open_breaks',
      help: "Open breaks between our payments and the partners' statements (reconcile breaks), by kind and partner (momo, aggregator)",
      labelNames: ['kind', 'partner'],
      registers,
    }),
    openBreakAmount: new client.Gauge({
      name: 'payments_reconciliation_open_break_amount',
      help: 'Money in open reconciliation breaks, in minor units of each currency, by partner',
      labelNames: ['currency', 'partner'],
      registers,
    }),
    lateMoneyOpen: new client.Gauge({
      name: 'payments_late_money_open',
      help: 'Payments the partner said SUCCESSFUL for after we had ended them (late money), not settled yet (payments settle-late), by kind: charge, payout, settlement',
      labelNames: ['kind'],
      registers,
    }),
    lateMoneyOpenAmount: new client.Gauge({
      name: 'payments_late_money_open_amount',
      help: 'Late money not settled yet, in minor units of each currency',
      labelNames: ['currency'],
      registers,
    }),
    returnsInTransitOldestAge: new client.Gauge({
      name: 'payments_returns_in_transit_oldest_age_seconds',
      help: 'Age of the oldest return of late money to a payer not paid yet (requested, on its way at the partner, or failed there: payments settle-return), seconds; 0 when none',
      registers,
    }),
  };
}

import type { Environment } from '../domain/environment';
import type { Orm } from './orm';

/**
 * What the API's metrics sampler (runtime/monitor-sampler.ts) reads from PostgreSQL: how far behind
 * each relay is and how many webhook deliveries wait. Read only, one short transaction with its own
 * `statement_timeout`, so a slow database costs the sampler at most that long and never holds a
 * pooled connection for longer.
 */

/**
 * The relays of the worker process, each with the records it still has to handle: the start relays
 * (runtime/*-start-relay.ts: payments whose workflow is not confirmed started), the webhook outbox
 * relay (webhooks/outbox-relay.ts: events not yet fanned out) and its sweep (pending deliveries
 * never attempted whose workflow is not confirmed). Each uses its partial index (`*_workflow_unstarted`,
 * `events_undispatched`, `webhook_deliveries_unstarted`): the oldest row is the first of the index.
 */
const RELAY_OLDEST = {
  charge_start: `select min(created_at) from charges where workflow_started_at is null and status in ('pending', 'awaiting_action')`,
  payout_start: `select min(created_at) from payouts where workflow_started_at is null and status in ('pending', 'held_for_review')`,
  refund_start: `select min(created_at) from refunds where workflow_started_at is null and status = 'pending'`,
  dispute_start: `select min(created_at) from disputes where workflow_started_at is null and status in ('needs_response', 'under_review')`,
  webhook_outbox: `select min(created_at) from events where dispatched_at is null`,
  webhook_delivery_start: `select min(created_at) from webhook_deliveries where status = 'pending' and attempt_count = 0 and workflow_started_at is null`,
} as const;

export type RelayName = keyof typeof RELAY_OLDEST;
export const RELAY_NAMES = Object.keys(RELAY_OLDEST) as RelayName[];

export interface WebhookBacklog {
  /** Deliveries not finished: waiting for their first attempt or a retry. */
  pending: number;
  /**
   * Seconds since the longest-waiting due delivery became due (its first attempt since it was
   * written, a retry since its `next_attempt_at`); 0 when none is due. A delivery waiting on its retry
   * timer is not late: this grows only when sending falls behind.
   */
  oldestDueAgeSeconds: number;
}

export interface MonitorBacklogs {
  /** Seconds since the oldest record each relay still has to handle was written; 0 when it has none. */
  relayLagSeconds: Record<RelayName, number>;
  webhooks: Record<Environment, WebhookBacklog>;
}

const ageOf = (sql: string) => `coalesce(extract(epoch from now() - (${sql}))::float8, 0)`;

/** Both statements in one read-only transaction, each cut off by PostgreSQL after `statementTimeoutMs`. */
export async function readMonitorBacklogs(orm: Orm, statementTimeoutMs: number): Promise<MonitorBacklogs> {
  const timeout = Math.max(1, Math.floor(statementTimeoutMs));
  return orm.em.fork().transactional(async (em) => {
    await em.execute('set transaction read only');
    await em.execute(`set local statement_timeout = ${timeout}`);
    const [lags] = await em.execute<Record<RelayName, number>[]>(
      `select ${RELAY_NAMES.map((name) => `${ageOf(RELAY_OLDEST[name])} as ${name}`).join(', ')}`,
    );
    // The partial index webhook_deliveries_pending (migration 20261127000001) holds only pending rows.
    const rows = await em.execute<{ environment: Environment; pending: number; oldest_due_age: number | null }[]>(
      `select environment, count(*)::int as pending,
              extract(epoch from now() - min(coalesce(next_attempt_at, created_at)) filter (where coalesce(next_attempt_at, created_at) <= now()))::float8
                as oldest_due_age
       from webhook_deliveries where status = 'pending' group by environment`,
    );
    const webhooks: Record<Environment, WebhookBacklog> = { sandbox: { pending: 0, oldestDueAgeSeconds: 0 }, live: { pending: 0, oldestDueAgeSeconds: 0 } };
    for (const row of rows) {
      if (row.environment in webhooks) webhooks[row.environment] = { pending: Number(row.pending), oldestDueAgeSeconds: Math.max(0, Number(row.oldest_due_age ?? 0)) };
    }
    const relayLagSeconds = Object.fromEntries(RELAY_NAMES.map((name) => [name, Math.max(0, Number(lags[name]))])) as Record<RelayName, number>;
    return { relayLagSeconds, webhooks };
  });
}

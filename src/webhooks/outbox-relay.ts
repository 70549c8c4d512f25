import type { Client } from '@temporalio/client';
import { subscribes } from '../domain/webhook-endpoint';
import type { Environment } from '../domain/environment';
import type { Orm } from '../persistence/orm';
import { TEXT_ARRAY } from '../persistence/sql-values';
import { findUnstartedDeliveries, markWorkflowsStarted, type UnstartedDelivery } from '../persistence/webhook-delivery-store';
import type { Logger } from '../support/logger';
import { startDeliveryWorkflow } from '../temporal/delivery-start';
import { fanOutDeliveryId } from './delivery-id';

export interface RelayDeps {
  orm: Orm;
  client: Client;
  taskQueue: string;
  retryScheduleMs: number[];
  log: Logger;
  /** How long a pass's claim on its events lasts (LEASE_SECONDS unless a test shortens it). */
  leaseSeconds?: number;
  /** Age after which the sweep starts a pending delivery that has no attempt and no confirmed workflow (UNSTARTED_AFTER_SECONDS). */
  unstartedAfterSeconds?: number;
}

const BATCH = 100;
// Long enough for one pass; short, so events a crashed relay claimed are taken over soon (redoing a
// pass is harmless: every step is idempotent).
export const LEASE_SECONDS = 15;
const START_CONCURRENCY = 16;
/**
 * A delivery is normally started within a second of being written (by the fan-out pass or the replay
 * request); one still unconfirmed after this long was cut short (Temporal down, a timeout, a crash)
 * and is started by the sweep. Longer than a lease, so the sweep does not race a live fan-out pass.
 */
export const UNSTARTED_AFTER_SECONDS = 30;
/** How often the running relay sweeps for unstarted deliveries. */
export const SWEEP_EVERY_MS = 5_000;

interface ClaimedEvent {
  id: string;
  merchant_id: string;
  environment: Environment;
  type: string;
  dispatch_lease_until: Date;
}

interface EndpointRow {
  id: string;
  status: 'active' | 'disabled';
  subscribed_events: string[];
}

/**
 * Starts the deliveries' workflows, START_CONCURRENCY at a time, and records each one confirmed.
 * Stops at the first batch with a failure and throws its first error (Temporal is likely down; the
 * rest are started by a later pass).
 */
async function startDeliveries(deps: RelayDeps, deliveries: UnstartedDelivery[]): Promise<void> {
  for (let i = 0; i < deliveries.length; i += START_CONCURRENCY) {
    const batch = deliveries.slice(i, i + START_CONCURRENCY);
    const results = await Promise.allSettled(
      batch.map((d) =>
        startDeliveryWorkflow(deps.client, deps.taskQueue, {
          deliveryId: d.id,
          eventId: d.event_id,
          eventType: d.event_type,
          endpointId: d.endpoint_id,
          merchantId: d.merchant_id,
          environment: d.environment,
          retryScheduleMs: deps.retryScheduleMs,
        }),
      ),
    );
    await markWorkflowsStarted(deps.orm, batch.filter((_, j) => results[j].status === 'fulfilled').map((d) => d.id));
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;
  }
}

/**
 * One pass of the transactional outbox: claims events not yet fanned out (a lease, so relays in
 * several workers share the work), writes one delivery per subscribed endpoint of the same merchant
 * and environment (id fixed by event and endpoint), starts a workflow for each pending one, and only
 * then marks the events dispatched. A crash at any point leaves the events claimable again once the
 * lease ends; a pass that fails (Temporal unreachable) releases its claim so the next pass retries at
 * once. The rerun inserts nothing twice and starts no workflow twice. Returns events handled.
 */
export async function relayOnce(deps: RelayDeps): Promise<number> {
  const conn = deps.orm.em.getConnection();
  // Millisecond precision, so the release below can name this pass's lease exactly.
  const events = await conn.execute<ClaimedEvent[]>(
    `update events set dispatch_lease_until = date_trunc('milliseconds', now() + make_interval(secs => ?))
     where id in (select id from events where dispatched_at is null and (dispatch_lease_until is null or dispatch_lease_until < now())
                  order by created_at limit ? for update skip locked)
     returning id, merchant_id, environment, type, dispatch_lease_until`,
    [deps.leaseSeconds ?? LEASE_SECONDS, BATCH],
  );
  if (events.length === 0) return 0;
  const ids = events.map((e) => e.id);
  try {
    await fanOut(deps, events);
  } catch (error) {
    // Not dispatched: give the events back now rather than when the lease ends (unless another relay
    // has taken them over meanwhile).
    await conn
      .execute(`update events set dispatch_lease_until = null where id = any(${TEXT_ARRAY}) and dispatched_at is null and dispatch_lease_until = ?`, [
        JSON.stringify(ids),
        events[0].dispatch_lease_until,
      ])
      .catch(() => undefined);
    throw error;
  }
  await conn.execute(`update events set dispatched_at = now(), dispatch_lease_until = null where id = any(${TEXT_ARRAY})`, [JSON.stringify(ids)]);
  return events.length;
}

async function fanOut(deps: RelayDeps, events: ClaimedEvent[]): Promise<void> {
  const conn = deps.orm.em.getConnection();
  const endpointsByScope = new Map<string, EndpointRow[]>();
  const rows: unknown[][] = [];
  for (const event of events) {
    const scope = `${event.merchant_id}|${event.environment}`;
    if (!endpointsByScope.has(scope)) {
      endpointsByScope.set(
        scope,
        await conn.execute<EndpointRow[]>(
          `select id, status, subscribed_events from webhook_endpoints where merchant_id = ? and environment = ? and deleted_at is null`,
          [event.merchant_id, event.environment],
        ),
      );
    }
    for (const endpoint of endpointsByScope.get(scope)!) {
      if (!subscribes(endpoint.subscribed_events, event.type)) continue;
      const pending = endpoint.status === 'active';
      rows.push([fanOutDeliveryId(event.id, endpoint.id), endpoint.id, event.id, event.merchant_id, event.environment, event.type,
        pending ? 'pending' : 'skipped', pending ? null : 'endpoint disabled']);
    }
  }
  if (rows.length > 0) {
    await conn.execute(
      `insert into webhook_deliveries (id, endpoint_id, event_id, merchant_id, environment, event_type, status, last_error, created_at, updated_at,
         completed_at)
       select v.*, date_trunc('milliseconds', now()), now(), case when v.status = 'skipped' then now() end
       from (values ${rows.map(() => '(?, ?, ?, ?, ?, ?, ?, ?)').join(', ')}) as v(id, endpoint_id, event_id, merchant_id, environment, event_type,
         status, last_error)
       on conflict do nothing`,
      rows.flat(),
    );
  }
  const toStart = await conn.execute<UnstartedDelivery[]>(
    `select id, endpoint_id, event_id, merchant_id, environment, event_type from webhook_deliveries
     where event_id = any(${TEXT_ARRAY}) and replay_of is null and status = 'pending' and attempt_count = 0 and workflow_started_at is null`,
    [JSON.stringify(events.map((e) => e.id))],
  );
  await startDeliveries(deps, toStart);
}

/**
 * The sweep: starts pending deliveries that have no attempt and no confirmed workflow, older than
 * `unstartedAfterSeconds` (a replay whose start failed or timed out, a pass cut short after its
 * events were marked). Starting is idempotent, so a delivery whose start did happen is not sent
 * twice. Returns how many it started or confirmed.
 */
export async function startUnstartedDeliveries(deps: RelayDeps): Promise<number> {
  const unstarted = await findUnstartedDeliveries(deps.orm, deps.unstartedAfterSeconds ?? UNSTARTED_AFTER_SECONDS, BATCH);
  await startDeliveries(deps, unstarted);
  return unstarted.length;
}

export interface OutboxRelay {
  /** Look now instead of at the next poll. */
  wake(): void;
  stop(): Promise<void>;
}

/**
 * Runs `relayOnce` until stopped: back to back while there is a backlog, else every `pollMs`; and
 * the sweep every SWEEP_EVERY_MS. A failed pass (database or Temporal unreachable) is logged and
 * retried after at least a second; its events stay undispatched until a pass succeeds.
 */
export function startOutboxRelay(deps: RelayDeps, pollMs: number): OutboxRelay {
  let stopped = false;
  let wake: () => void = () => {};
  let nextSweepAt = 0;
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  const loop = (async () => {
    while (!stopped) {
      let wait = pollMs;
      try {
        if ((await relayOnce(deps)) >= BATCH) wait = 0;
      } catch (error) {
        deps.log.error({ err: error }, 'webhook outbox relay pass failed; retrying');
        wait = Math.max(pollMs, 1000);
      }
      if (!stopped && Date.now() >= nextSweepAt) {
        nextSweepAt = Date.now() + SWEEP_EVERY_MS;
        try {
          const swept = await startUnstartedDeliveries(deps);
          if (swept > 0) deps.log.warn({ swept }, 'webhook outbox relay started deliveries whose workflow was not confirmed');
        } catch (error) {
          deps.log.error({ err: error }, 'webhook outbox relay sweep failed; retrying');
        }
      }
      if (wait > 0 && !stopped) await pause(wait);
    }
  })();
  return {
    wake: () => wake(),
    async stop() {
      stopped = true;
      wake();
      await loop;
    },
  };
}

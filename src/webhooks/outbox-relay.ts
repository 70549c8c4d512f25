import type { Client } from '@temporalio/client';
import { subscribes } from '../domain/webhook-endpoint';
import pLimit from 'p-limit';
import { ENVIRONMENTS, type Environment } from '../domain/environment';
import type { Orm } from '../persistence/orm';
import { TEXT_ARRAY } from '../persistence/sql-values';
import { claimUndispatchedEvents, type ClaimedEvent } from '../persistence/webhooks/outbox-claim';
import { findUnstartedDeliveries, markWorkflowsStarted, type UnstartedDelivery } from '../persistence/webhooks/webhook-delivery-store';
import { findUnstartedRecoveries, markRecoveryStarted } from '../persistence/webhooks/webhook-recovery-store';
import { startRecoveryWorkflow } from '../temporal/recovery-start';
import type { Logger } from '../support/logger';
import { withinDeadline } from '../temporal/deadline';
import { deliveryInputOf, startDeliveryWorkflow, type DeliveryStart } from '../temporal/delivery-start';
import { wakeFifoWorkflow } from '../temporal/fifo-start';
import type { DeliveryOrder, FifoWorkflowInput } from '../domain/webhook-fifo';
import { fifoQueuesToWake } from '../persistence/webhooks/webhook-fifo-store';
import { fanOutDeliveryId } from './delivery-id';
import { localFirstAttemptFor } from '../domain/webhook-first-attempt';
import { roundRobinByMerchant } from './fair-order';
import { startOutboxListener } from './outbox-listener';
import { CLOSED_SWEEP_EVERY_MS, closedDeliverySweep } from './closed-deliveries';
import { runPeriodically } from '../support/periodic-loop';

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
  /**
   * Ask for eager workflow start: the server hands the delivery's first workflow task straight back
   * to a worker of this process. Only when `client` is on the NativeConnection of a Worker that polls
   * the delivery queues in this process (workers/main.ts: on since issue 19, docs/architecture.md,
   * Webhook latency); the server falls back to a normal start when it declines.
   */
  eagerStart?: boolean;
  /** Starts in flight over every pass of a running relay (startOutboxRelay sets it; a lone pass has its own lanes only). */
  startLimit?: pLimit.Limit;
  /** Told of each start the relay makes, and how it went (the worker counts them: payments_webhook_starts). */
  onStart?: (environment: Environment, how: DeliveryStart) => void;
  /**
   * Where the running relay LISTENs for new events (a dedicated connection): the ORM's URL unless
   * given; null to rely on the poll alone.
   */
  listenUrl?: string | null;
  /**
   * The environments whose events and deliveries this relay claims and starts (WORKER_ENVIRONMENTS of
   * its worker; both unless given): a live-only worker leaves sandbox's outbox to the sandbox workers.
   */
  environments?: readonly Environment[];
  /** Longest wait for one workflow start (TEMPORAL_REQUEST_DEADLINE_MS), like the four other start relays. */
  requestDeadlineMs?: number;
}

const BATCH = 100;
// Long enough for one pass; short, so events a crashed relay claimed are taken over soon (redoing a
// pass is harmless: every step is idempotent).
export const LEASE_SECONDS = 15;
/** Starts in flight at once (each an RPC of a few milliseconds; with eager start it also hands the worker its first task). */
const START_CONCURRENCY = 32;
/**
 * Passes of one relay running at once (issue 19): a wake-up during a pass begins another at once, so
 * the events committed meanwhile are claimed and fanned out while the first pass's starts are still
 * answering. Safe because a pass claims its events with a lease (`for update skip locked`): two passes
 * never hold the same event.
 */
const PASSES_AT_ONCE = 2;
/**
 * A delivery is normally started within a second of being written (by the fan-out pass or the replay
 * request); one still unconfirmed after this long was cut short (Temporal down, a timeout, a crash)
 * and is started by the sweep. Longer than a lease, so the sweep does not race a live fan-out pass.
 */
export const UNSTARTED_AFTER_SECONDS = 30;
/**
 * A FIFO queue whose first delivery was never attempted this long after it was written (or whose
 * retry is this much overdue) has its workflow woken by the sweep (issue 49). Longer than a lease and
 * than an attempt's time, so a queue being worked is not woken for nothing (a needless wake-up is
 * harmless: it does not hurry a retry).
 */
export const FIFO_UNATTENDED_AFTER_SECONDS = 120;
/** How often the running relay sweeps for unstarted deliveries. */
export const SWEEP_EVERY_MS = 5_000;

interface EndpointRow {
  id: string;
  status: 'active' | 'disabled';
  subscribed_events: string[];
  timeout_seconds: number;
  delivery_order: DeliveryOrder;
  throttled: boolean;
}

/**
 * Starts the deliveries' workflows, START_CONCURRENCY at a time (each lane takes the next as soon as
 * its start answers), in round robin over merchants. After a failure no further start begins. Returns the ids confirmed started and
 * the first failure (Temporal is likely down; the rest are started by a later pass or the sweep).
 */
async function startDeliveries(deps: RelayDeps, all: UnstartedDelivery[]): Promise<{ started: string[]; failure?: { error: unknown } }> {
  // Merchant by merchant in turn: one merchant's flood cannot delay another's first start.
  const deliveries = roundRobinByMerchant(all.filter((d) => d.fifo_sequence === null));
  const started: string[] = [];
  let failure: { error: unknown } | undefined;
  // Issue 49: a FIFO endpoint's deliveries are its workflow's to send, in order; it is woken (or started) once per endpoint.
  const queues = fifoQueuesOf(all);
  let next = 0;
  let nextQueue = 0;
  const lane = async () => {
    while (!failure && nextQueue < queues.length) {
      const queue = queues[nextQueue++];
      try {
        const wake = () => withinDeadline(deps.client, deps.requestDeadlineMs, () => wakeFifoWorkflow(deps.client, deps.taskQueue, { ...queue.input, retryScheduleMs: deps.retryScheduleMs }));
        await (deps.startLimit ? deps.startLimit(wake) : wake());
        started.push(...queue.deliveryIds);
      } catch (error) {
        failure ??= { error };
      }
    }
    while (!failure && next < deliveries.length) {
      const d = deliveries[next++];
      try {
        // Bounded like every Temporal call of the relays (TEMPORAL_REQUEST_DEADLINE_MS): a server that
        // accepts the call and never answers fails the start, not the whole pass for good.
        const start = () => withinDeadline(deps.client, deps.requestDeadlineMs, () => startDeliveryWorkflow(
          deps.client,
          deps.taskQueue,
          // A throttled endpoint's first attempt goes straight to the activity, which takes the endpoint's turn (activities/webhook-throttle.ts).
          deliveryInputOf(d, deps.retryScheduleMs, !d.throttled && d.timeout_seconds !== null && localFirstAttemptFor(d.timeout_seconds)),
          { eager: deps.eagerStart === true },
        ));
        const how = await (deps.startLimit ? deps.startLimit(start) : start());
        deps.onStart?.(d.environment, how);
        started.push(d.id);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(START_CONCURRENCY, deliveries.length + queues.length) }, lane));
  return failure ? { started, failure } : { started };
}

/** The FIFO endpoints among these deliveries: each one's workflow input (schedule added by the caller) and its deliveries. */
function fifoQueuesOf(deliveries: UnstartedDelivery[]): { input: Omit<FifoWorkflowInput, 'retryScheduleMs'>; deliveryIds: string[] }[] {
  const queues = new Map<string, { input: Omit<FifoWorkflowInput, 'retryScheduleMs'>; deliveryIds: string[] }>();
  for (const d of deliveries) {
    if (d.fifo_sequence === null) continue;
    const queue = queues.get(d.endpoint_id) ?? { input: { endpointId: d.endpoint_id, merchantId: d.merchant_id, environment: d.environment }, deliveryIds: [] };
    queue.deliveryIds.push(d.id);
    queues.set(d.endpoint_id, queue);
  }
  return [...queues.values()];
}

/**
 * One pass of the transactional outbox: claims events not yet fanned out (a lease, so relays in
 * several workers share the work), writes one delivery per subscribed endpoint of the same merchant
 * and environment (id fixed by event and endpoint), starts a workflow for each pending one, and only
 * then marks the events dispatched and the started deliveries confirmed (one statement). A crash at
 * any point leaves the events claimable again once the lease ends; a pass that fails (Temporal
 * unreachable) records the starts it confirmed and releases its claim so the next pass retries. The
 * rerun inserts nothing twice and starts no workflow twice. Four statements per pass, plus the
 * starts. Returns events handled.
 */
export async function relayOnce(deps: RelayDeps): Promise<number> {
  const conn = deps.orm.em.getConnection();
  // Fair per merchant, oldest first within each; leased for this pass (outbox-claim.ts).
  const events = await claimUndispatchedEvents(deps.orm, deps.leaseSeconds ?? LEASE_SECONDS, deps.environments ?? ENVIRONMENTS, BATCH);
  if (events.length === 0) return 0;
  const ids = JSON.stringify(events.map((e) => e.id));
  let outcome: Awaited<ReturnType<typeof startDeliveries>>;
  try {
    outcome = await startDeliveries(deps, await fanOut(deps, events));
  } catch (error) {
    outcome = { started: [], failure: { error } };
  }
  const { started, failure } = outcome;
  if (failure) {
    // Not dispatched: give the events back now rather than when the lease ends (unless another relay
    // has taken them over meanwhile).
    await markWorkflowsStarted(deps.orm, started).catch(() => undefined);
    await conn
      .execute(`update events set dispatch_lease_until = null where id = any(${TEXT_ARRAY}) and dispatched_at is null and dispatch_lease_until = ?`, [
        ids,
        events[0].dispatch_lease_until,
      ])
      .catch(() => undefined);
    throw failure.error;
  }
  await conn.execute(
    `with confirmed as (update webhook_deliveries set workflow_started_at = now() where id = any(${TEXT_ARRAY}) and workflow_started_at is null)
     update events set dispatched_at = now(), dispatch_lease_until = null where id = any(${TEXT_ARRAY})`,
    [JSON.stringify(started), ids],
  );
  return events.length;
}

/**
 * Writes the claimed events' deliveries and returns those to start: the ones written now that are
 * pending, and any of an earlier pass cut short (pending, never attempted, start not confirmed).
 */
async function fanOut(deps: RelayDeps, events: ClaimedEvent[]): Promise<UnstartedDelivery[]> {
  const conn = deps.orm.em.getConnection();
  const scopes = new Map(events.map((e) => [`${e.merchant_id}|${e.environment}`, [e.merchant_id, e.environment]]));
  const endpoints = await conn.execute<Array<EndpointRow & { merchant_id: string; environment: Environment }>>(
    `select id, merchant_id, environment, status, subscribed_events, timeout_seconds, delivery_order,
       (max_per_second is not null or max_in_flight is not null) as throttled from webhook_endpoints
     where (merchant_id, environment) in (${[...scopes.values()].map(() => '(?, ?)').join(', ')}) and deleted_at is null`,
    [...scopes.values()].flat(),
  );
  const rows: unknown[][] = [];
  for (const event of events) {
    for (const endpoint of endpoints) {
      if (endpoint.merchant_id !== event.merchant_id || endpoint.environment !== event.environment) continue;
      if (!subscribes(endpoint.subscribed_events, event.type)) continue;
      const pending = endpoint.status === 'active';
      rows.push([fanOutDeliveryId(event.id, endpoint.id), endpoint.id, event.id, event.merchant_id, event.environment, event.type,
        pending ? 'pending' : 'skipped', pending ? null : 'endpoint disabled', endpoint.timeout_seconds, endpoint.delivery_order === 'fifo' ? event.sequence : null, endpoint.throttled]);
    }
  }
  const earlier = `select d.id, d.endpoint_id, d.event_id, d.merchant_id, d.environment, d.event_type, w.timeout_seconds, d.fifo_sequence::text as fifo_sequence,
       coalesce(w.max_per_second is not null or w.max_in_flight is not null, false) as throttled
     from webhook_deliveries d left join webhook_endpoints w on w.id = d.endpoint_id
     where d.event_id = any(${TEXT_ARRAY}) and d.replay_of is null and d.status = 'pending' and d.attempt_count = 0 and d.workflow_started_at is null`;
  const eventIds = JSON.stringify(events.map((e) => e.id));
  if (rows.length === 0) return conn.execute<UnstartedDelivery[]>(earlier, [eventIds]);
  // One statement: the insert's own rows come from RETURNING (rows that existed already are not
  // returned), the earlier pass's rows from the table as it was before the insert.
  return conn.execute<UnstartedDelivery[]>(
    `with v (id, endpoint_id, event_id, merchant_id, environment, event_type, status, last_error, timeout_seconds, fifo_sequence, throttled) as (
       values ${rows.map(() => '(?, ?, ?, ?, ?, ?, ?, ?, ?::int, ?::bigint, ?::boolean)').join(', ')}),
     written as (
       insert into webhook_deliveries (id, endpoint_id, event_id, merchant_id, environment, event_type, status, last_error, created_at, updated_at,
         completed_at, fifo_sequence)
       select v.id, v.endpoint_id, v.event_id, v.merchant_id, v.environment, v.event_type, v.status, v.last_error,
         date_trunc('milliseconds', now()), now(), case when v.status = 'skipped' then now() end, v.fifo_sequence
       from v
       on conflict do nothing
       returning id, status)
     select v.id, v.endpoint_id, v.event_id, v.merchant_id, v.environment, v.event_type, v.timeout_seconds, v.fifo_sequence::text as fifo_sequence, v.throttled
     from written join v on v.id = written.id where written.status = 'pending'
     union all
     ${earlier}`,
    [...rows.flat(), eventIds],
  );
}

/**
 * The sweep: starts pending deliveries that have no attempt and no confirmed workflow, older than
 * `unstartedAfterSeconds` (a replay whose start failed or timed out, a pass cut short after its
 * events were marked). Starting is idempotent, so a delivery whose start did happen is not sent
 * twice. Then the same for webhook recoveries (issue 49) whose workflow start was not confirmed, and
 * a wake-up for FIFO queues that look unattended (FIFO_UNATTENDED_AFTER_SECONDS).
 * Returns how many it started or confirmed.
 */
export async function startUnstartedDeliveries(deps: RelayDeps): Promise<number> {
  const unstarted = await findUnstartedDeliveries(deps.orm, deps.unstartedAfterSeconds ?? UNSTARTED_AFTER_SECONDS, BATCH, deps.environments ?? ENVIRONMENTS);
  const { started, failure } = await startDeliveries(deps, unstarted);
  await markWorkflowsStarted(deps.orm, started);
  if (failure) throw failure.error;
  const recoveries = await findUnstartedRecoveries(deps.orm, deps.unstartedAfterSeconds ?? UNSTARTED_AFTER_SECONDS, BATCH, deps.environments ?? ENVIRONMENTS);
  for (const r of recoveries) {
    const input = { recoveryId: r.id, merchantId: r.merchant_id, environment: r.environment, endpointId: r.endpoint_id, baseQueue: deps.taskQueue, retryScheduleMs: deps.retryScheduleMs };
    await withinDeadline(deps.client, deps.requestDeadlineMs, () => startRecoveryWorkflow(deps.client, input));
    await markRecoveryStarted(deps.orm, r.id);
  }
  // Issue 49: a FIFO queue nobody is sending from (a wake-up or start that was lost) gets its workflow woken.
  const queues = await fifoQueuesToWake(deps.orm, FIFO_UNATTENDED_AFTER_SECONDS, BATCH, deps.environments ?? ENVIRONMENTS);
  for (const q of queues) {
    const input = { endpointId: q.endpoint_id, merchantId: q.merchant_id, environment: q.environment, retryScheduleMs: deps.retryScheduleMs };
    await withinDeadline(deps.client, deps.requestDeadlineMs, () => wakeFifoWorkflow(deps.client, deps.taskQueue, input));
  }
  return unstarted.length + recoveries.length + queues.length;
}

export interface OutboxRelay {
  /** Look now instead of at the next poll. */
  wake(): void;
  stop(): Promise<void>;
}

/**
 * Runs `relayOnce` until stopped: at once when woken (a NOTIFY from an event insert, or `wake`),
 * back to back while there is a backlog, else every `pollMs` (the fallback for a missed
 * notification, on its own clock: a pass that hangs does not stop it); and the sweep every SWEEP_EVERY_MS. A wake-up during a pass begins a second pass
 * at once (PASSES_AT_ONCE), or, with both running, is kept for the next one: an event committed while
 * a pass ran is never left for the poll.
 * A failed pass (database or Temporal unreachable) is logged and retried after at least a second
 * (wake-ups do not shorten that wait); its events stay undispatched until a pass succeeds.
 */
export function startOutboxRelay(deps: RelayDeps, pollMs: number): OutboxRelay {
  let stopped = false;
  /** Passes running now (at most PASSES_AT_ONCE). */
  let active = 0;
  /** A wake-up, the poll or a full batch asked for a pass that has not begun yet. */
  let wanted = false;
  /** After a failed pass, none begins before this (woken or not). */
  let backoffUntil = 0;
  let nextSweepAt = 0;
  let sweeping = false;
  let timer: NodeJS.Timeout | undefined;
  const passes = new Set<Promise<void>>();
  const later = (ms: number) => {
    clearTimeout(timer);
    if (!stopped) timer = setTimeout(kick, ms);
  };
  // Begins passes while one is wanted, up to PASSES_AT_ONCE; with none running, the next poll is set.
  function kick(): void {
    wanted = true;
    const now = Date.now();
    if (now < backoffUntil) return later(backoffUntil - now);
    while (wanted && !stopped && active < PASSES_AT_ONCE) {
      wanted = false;
      active++;
      const run: Promise<void> = pass().finally(() => {
        active--;
        passes.delete(run);
        if (wanted) kick();
      });
      passes.add(run);
    }
  }
  // Both passes share START_CONCURRENCY starts in flight: a second pass overlaps the first one's
  // database work, not its load on Temporal.
  const passDeps: RelayDeps = { ...deps, startLimit: pLimit(START_CONCURRENCY) };
  // Issue 32: deliveries whose run closed without ending them are started again (closed-deliveries.ts),
  // on a loop of its own, so a slow visibility query never holds a pass.
  const closed = closedDeliverySweep(deps);
  const closedLoop = runPeriodically(CLOSED_SWEEP_EVERY_MS, () => closed.run(), () => undefined);
  async function pass(): Promise<void> {
    try {
      if ((await relayOnce(passDeps)) >= BATCH) wanted = true;
    } catch (error) {
      deps.log.error({ err: error }, 'webhook outbox relay pass failed; retrying');
      backoffUntil = Date.now() + Math.max(pollMs, 1000);
      wanted = true;
    }
    if (!stopped && !sweeping && Date.now() >= nextSweepAt) {
      sweeping = true;
      nextSweepAt = Date.now() + SWEEP_EVERY_MS;
      try {
        const swept = await startUnstartedDeliveries(passDeps);
        if (swept > 0) deps.log.warn({ swept }, 'webhook outbox relay started deliveries whose workflow was not confirmed');
      } catch (error) {
        deps.log.error({ err: error }, 'webhook outbox relay sweep failed; retrying');
      } finally {
        sweeping = false;
      }
    }
  }
  const wake = () => {
    if (!stopped) kick();
  };
  // The fallback poll runs on its own clock, not after a pass ends: a pass that hangs (a start or a
  // statement waiting past its deadline) no longer stops it, and the next poll begins a pass beside it.
  const poll = setInterval(() => {
    if (!stopped) kick();
  }, pollMs);
  const listenUrl = deps.listenUrl === undefined ? (deps.orm.config.get('clientUrl') as string | undefined) : deps.listenUrl;
  const listener = listenUrl ? startOutboxListener({ url: listenUrl, onWake: wake, log: deps.log }) : undefined;
  kick();
  return {
    wake,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      clearInterval(poll);
      const closing = closedLoop.stop();
      while (passes.size > 0) await Promise.allSettled([...passes]);
      await closing;
      await listener?.stop();
    },
  };
}

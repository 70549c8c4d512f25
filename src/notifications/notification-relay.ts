import type { Client } from '@temporalio/client';
import {
  claimOutboxEvents,
  findDueDisputes,
  findUnstartedNotifications,
  finishOutboxEvents,
  markNotificationsStarted,
  releaseOutboxEvents,
  writeNotifications,
  type NotificationDraft,
  type NotificationToStart,
  type OutboxEvent,
} from '../persistence/notifications/notification-fanout-store';
import type { Orm } from '../persistence/orm';
import type { Logger } from '../support/logger';
import type { SecretBox } from '../support/secret-box';
import { withinDeadline } from '../temporal/deadline';
import { startNotificationWorkflow } from '../temporal/notification-start';
import { notificationId } from './notification-id';
import { MERCHANT_WITHOUT_EMAIL, NOTIFYING_EVENTS } from './notification-kinds';
import { customerContact, maskContact } from './recipient';

export interface NotificationRelayDeps {
  orm: Orm;
  client: Client;
  /** TEMPORAL_TASK_QUEUE: notifications run on `<base>-<environment>-webhooks`. */
  taskQueue: string;
  /** Opens a receipt's customer identifier to decide SMS, email or nothing. */
  secretBox: SecretBox;
  log: Logger;
  /** NOTIFICATION_RETRY_SCHEDULE, handed to each workflow in its input. */
  retryScheduleMs: number[];
  /** NOTIFY_DISPUTE_DEADLINE_WITHIN. */
  disputeDeadlineWithinMs: number;
  /** How long a pass's claim on its events lasts (LEASE_SECONDS unless a test shortens it). */
  leaseSeconds?: number;
  /** Age after which the sweep starts a pending notification whose workflow was never confirmed (UNSTARTED_AFTER_SECONDS). */
  unstartedAfterSeconds?: number;
  /** How often the running relay reminds of due disputes and sweeps (SWEEP_EVERY_MS unless a test shortens it). */
  sweepEveryMs?: number;
  /** Longest wait for one workflow start (TEMPORAL_REQUEST_DEADLINE_MS), as in every start relay. */
  requestDeadlineMs?: number;
}

const BATCH = 100;
/** Long enough for one pass; short, so events a crashed relay claimed are taken over soon (a pass done again is harmless). */
export const LEASE_SECONDS = 15;
/** Longer than a lease, so the sweep does not race a pass that is still starting what it wrote. */
export const UNSTARTED_AFTER_SECONDS = 30;
/** How often the running relay looks for disputes due soon and for notifications never started. */
export const SWEEP_EVERY_MS = 5_000;
const START_CONCURRENCY = 16;


/**
 * The customer's receipt goes where the charge's identifier says: an email address by email, a
 * mobile-money phone number by SMS, anything else nowhere (recorded as skipped with the reason).
 */
function receiptDraft(event: OutboxEvent, box: SecretBox, log: Logger): Pick<NotificationDraft, 'channel' | 'toMasked' | 'status' | 'reason'> {
  if (!event.partySealed) return { channel: null, toMasked: null, status: 'skipped', reason: 'no customer identifier was kept for this charge' };
  let identifier: string;
  try {
    identifier = box.open(event.partySealed);
  } catch (error) {
    log.error({ err: error, eventId: event.id }, 'notification relay could not open a customer identifier (SECRETS_KEY?)');
    return { channel: null, toMasked: null, status: 'skipped', reason: 'the customer identifier could not be opened with SECRETS_KEY' };
  }
  const contact = customerContact(identifier, event.channel ?? '');
  if (!contact) return { channel: null, toMasked: null, status: 'skipped', reason: 'the customer identifier is neither an email address nor a mobile-money phone number' };
  return { channel: contact.channel, toMasked: maskContact(contact), status: 'pending', reason: null };
}

/** One notification per event, of the event's merchant and environment (nothing crosses), id fixed by the event and the recipient. */
export function draftsFor(events: OutboxEvent[], box: SecretBox, log: Logger): NotificationDraft[] {
  const drafts: NotificationDraft[] = [];
  for (const event of events) {
    const spec = NOTIFYING_EVENTS[event.type];
    if (!spec) continue;
    const base = { id: notificationId(event.id, spec.recipient), merchantId: event.merchantId, environment: event.environment, kind: spec.kind, recipient: spec.recipient, sourceId: event.id, resourceId: event.resourceId };
    if (spec.recipient === 'customer') drafts.push({ ...base, ...receiptDraft(event, box, log) });
    else if (event.merchantHasEmail) drafts.push({ ...base, channel: 'email', toMasked: null, status: 'pending', reason: null });
    else drafts.push({ ...base, channel: 'email', toMasked: null, status: 'skipped', reason: MERCHANT_WITHOUT_EMAIL });
  }
  return drafts;
}

function logSkipped(log: Logger, drafts: NotificationDraft[]): void {
  for (const d of drafts) if (d.status === 'skipped') log.info({ notificationId: d.id, kind: d.kind, environment: d.environment, merchantId: d.merchantId, reason: d.reason }, 'notification skipped');
}

/**
 * Starts the notifications' workflows, START_CONCURRENCY at a time. After a failure no further start
 * begins. Returns the ids confirmed started, and the first failure (Temporal is likely down; the rest
 * are started by a later pass or the sweep).
 */
async function startAll(deps: NotificationRelayDeps, pending: NotificationToStart[]): Promise<{ started: string[]; failure?: { error: unknown } }> {
  const started: string[] = [];
  let failure: { error: unknown } | undefined;
  let next = 0;
  const lane = async () => {
    while (!failure && next < pending.length) {
      const n = pending[next++];
      try {
        await withinDeadline(deps.client, deps.requestDeadlineMs, () =>
          startNotificationWorkflow(deps.client, deps.taskQueue, { notificationId: n.id, merchantId: n.merchantId, environment: n.environment, kind: n.kind, retryScheduleMs: deps.retryScheduleMs }),
        );
        started.push(n.id);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(START_CONCURRENCY, pending.length) }, lane));
  return failure ? { started, failure } : { started };
}

/**
 * One pass: claims events of the outbox (a lease, so relays in several workers share the work),
 * writes one notification per event (skipped at once when there is nowhere to send it), starts a
 * workflow for each pending one, and only then takes the events out of the outbox and confirms the
 * starts (one statement). A crash at any point leaves the events claimable again once the lease
 * ends; a pass that fails (Temporal unreachable) records the starts it confirmed and gives its claim
 * back. The rerun writes nothing twice and starts no workflow twice. Returns the events handled.
 */
export async function notificationRelayOnce(deps: NotificationRelayDeps): Promise<number> {
  const { events, claimed, leaseUntil } = await claimOutboxEvents(deps.orm, deps.leaseSeconds ?? LEASE_SECONDS, BATCH);
  if (claimed.length === 0) return 0;
  let outcome: Awaited<ReturnType<typeof startAll>>;
  try {
    const drafts = draftsFor(events, deps.secretBox, deps.log);
    const pending = await writeNotifications(deps.orm, drafts, events.map((e) => e.id));
    logSkipped(deps.log, drafts);
    outcome = await startAll(deps, pending);
  } catch (error) {
    outcome = { started: [], failure: { error } };
  }
  if (outcome.failure) {
    await releaseOutboxEvents(deps.orm, claimed, leaseUntil!, outcome.started).catch(() => undefined);
    throw outcome.failure.error;
  }
  await finishOutboxEvents(deps.orm, claimed, outcome.started);
  return claimed.length;
}

/**
 * "A dispute near its deadline", without a change to the dispute workflow: open disputes whose
 * evidence is due within NOTIFY_DISPUTE_DEADLINE_WITHIN get one reminder each (id fixed by the
 * dispute), started at once. Returns how many were written.
 */
export async function remindDueDisputes(deps: NotificationRelayDeps): Promise<number> {
  const due = await findDueDisputes(deps.orm, deps.disputeDeadlineWithinMs, BATCH);
  if (due.length === 0) return 0;
  const drafts: NotificationDraft[] = due.map((d) => ({
    id: notificationId(d.id, 'merchant'),
    merchantId: d.merchantId,
    environment: d.environment,
    kind: 'dispute_deadline',
    recipient: 'merchant',
    sourceId: d.id,
    resourceId: d.id,
    channel: 'email',
    toMasked: null,
    status: d.merchantHasEmail ? 'pending' : 'skipped',
    reason: d.merchantHasEmail ? null : MERCHANT_WITHOUT_EMAIL,
  }));
  const pending = await writeNotifications(deps.orm, drafts, due.map((d) => d.id));
  logSkipped(deps.log, drafts);
  const { started, failure } = await startAll(deps, pending);
  await markNotificationsStarted(deps.orm, started);
  if (failure) throw failure.error;
  return due.length;
}

/** The sweep: starts pending notifications never confirmed started (starting is idempotent). Returns how many. */
export async function startUnstartedNotifications(deps: NotificationRelayDeps): Promise<number> {
  const unstarted = await findUnstartedNotifications(deps.orm, deps.unstartedAfterSeconds ?? UNSTARTED_AFTER_SECONDS, BATCH);
  const { started, failure } = await startAll(deps, unstarted);
  await markNotificationsStarted(deps.orm, started);
  if (failure) throw failure.error;
  return unstarted.length;
}

export interface NotificationRelay {
  stop(): Promise<void>;
}

/**
 * Runs the relay in the worker process until stopped: a pass every `pollMs` (NOTIFICATION_POLL_MS,
 * back to back while a full batch comes back), and every SWEEP_EVERY_MS the dispute deadline
 * reminders and the sweep. A failed pass (database or Temporal unreachable) is logged and tried again
 * after at least a second; its events stay in the outbox until a pass succeeds.
 */
export function startNotificationRelay(deps: NotificationRelayDeps, pollMs: number): NotificationRelay {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let nextSweepAt = 0;
  const pass = async (): Promise<void> => {
    let delay = pollMs;
    try {
      while (!stopped && (await notificationRelayOnce(deps)) >= BATCH);
    } catch (error) {
      deps.log.error({ err: error }, 'notification relay pass failed; retrying');
      delay = Math.max(pollMs, 1000);
    }
    if (!stopped && Date.now() >= nextSweepAt) {
      nextSweepAt = Date.now() + (deps.sweepEveryMs ?? SWEEP_EVERY_MS);
      try {
        await remindDueDisputes(deps);
        const swept = await startUnstartedNotifications(deps);
        if (swept > 0) deps.log.warn({ swept }, 'notification relay started notifications whose workflow was not confirmed');
      } catch (error) {
        deps.log.error({ err: error }, 'notification relay sweep failed; retrying');
      }
    }
    if (!stopped) timer = setTimeout(() => (running = pass()), delay);
  };
  let running = pass();
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}

import { Context } from '@temporalio/activity';
import { ApplicationFailure, ApplicationFailureCategory } from '@temporalio/common';
import type { Dispatcher } from 'undici';
import { DEFAULT_WEBHOOK_DB_CONNECTIONS, webhookDbLanes } from '../src/runtime/worker-capacity';
import { DbQueueTimeout, environmentOfQueue, processWebhookDbQueues, type WebhookDbQueues } from '../src/webhooks/db-queue';
import type { Environment } from '../src/domain/environment';
import { failureReason, isSuccessStatus, type DisableRule } from '../src/domain/webhook-health';
import { nextRetryDelay, parseRetryAfter } from '../src/domain/webhook-retry';
import { isDeterministicDbError, sqlStateOf } from '../src/persistence/db-errors';
import { loadAttemptContext, markDeliverySkipped, recordAttempt, recordUnsentFailure, type AttemptContext, type AttemptResult, type RecordedAttempt } from '../src/persistence/webhooks/webhook-attempt-store';
import type { Orm } from '../src/persistence/orm';
import type { SecretBox } from '../src/support/secret-box';
import { MerchantBusyError, merchantSlotKey, processMerchantSlots, type MerchantSlots } from '../src/webhooks/merchant-slots';
import { sendWebhook } from '../src/webhooks/sender';
import { signatureHeaders } from '../src/webhooks/signature';
import type { DeliverInTurnInput, DeliverInTurnResult, DeliverWebhookInput, DeliverWebhookOutcome, WebhookActivities, WebhookInTurnActivities } from './types';
import { deliverInTurn, IN_TURN_BUDGET_MS } from './deliver-in-turn';
import { heartbeatingAttempt } from './attempt-heartbeat';
import { letGoSend } from './webhook-let-go';
import { throttleSend, type DbStep } from './webhook-throttle';
import { jitterFraction } from '../src/support/jitter';
import { LET_GO_WAITS_MAX, WAIT_IN_ATTEMPT_MS } from '../src/domain/webhook-throttle';

export interface WebhookActivityDeps {
  orm: Orm;
  secretBox: SecretBox;
  /** SSRF-checked agents, one per environment (the local-development exemptions are sandbox only). */
  agents: Record<Environment, Dispatcher>;
  disableRule: DisableRule;
  /** WEBHOOK_MERCHANT_CONCURRENCY: sends to one merchant (and environment) at once in this process (default 4). */
  merchantConcurrency?: number;
  /** The semaphore itself (tests); the process's shared one for `merchantConcurrency` otherwise. */
  merchantSlots?: MerchantSlots;
  /**
   * WEBHOOK_DB_CONNECTIONS by environment (WorkerCapacity.webhookDbLanes): database steps of webhook
   * and notification attempts running at once in this process, one lane per environment
   * (src/webhooks/db-queue.ts). Default: 4 split between sandbox and live. The send holds no connection.
   */
  dbLanes?: Partial<Record<Environment, number>>;
}

/** The process's webhook database queues for these lanes (every Worker of the process shares them, and so do notification attempts). */
export function processDbQueues(lanes: Partial<Record<Environment, number>> = webhookDbLanes(DEFAULT_WEBHOOK_DB_CONNECTIONS)): WebhookDbQueues {
  return processWebhookDbQueues(lanes);
}

/**
 * Issue 32, bounded waits. An attempt's deadline is its start plus the activity's start-to-close
 * timeout (90 s; 40 s for a first attempt run locally), less DEADLINE_MARGIN_MS. A new attempt waits
 * for a database connection at most READ_WAIT_MAX_MS (and never into the time the send and the
 * record need); it sends only if the endpoint's timeout plus RECORD_RESERVE_MS still fit before the
 * deadline, so an execution Temporal has given up on does not post after its retry did. A record
 * waits until the deadline (RECORD_RESERVE_MS at least) and is not cut by cancellation: the send is
 * done, and recording it is what keeps the next execution from sending it again.
 */
export const READ_WAIT_MAX_MS = 5_000;
/** Time kept after the send for recording it: a record's wait for the queue plus its statement (statement_timeout 8 s). */
export const RECORD_RESERVE_MS = 10_000;
const DEADLINE_MARGIN_MS = 1_000;
/** What the merchant sees on a delivery that could not be signed (the fault is the service's; the detail is in its log). */
export const UNSIGNED_REASON = 'not sent: the delivery could not be signed (a fault on our side, not your endpoint); it can be replayed';
/** The retryable failure of an attempt that sent nothing because its database wait or its time ran out. */
export const ATTEMPT_DEFERRED = 'WebhookAttemptDeferred';

/** The activity failure type of a send that found its merchant's slots taken; Temporal retries it with backoff. */
export const MERCHANT_BUSY = 'MerchantBusy';
/** Longest wait for a merchant's send slot before the activity gives its own slot back. */
export const MERCHANT_SLOT_WAIT_MS = 250;

/**
 * Current secret first; the previous one while its overlap lasts (SPEC 6.2); then any secret rotated
 * out before it whose own overlap lasts (issue 32: two rotations within 24 h), newest first. Each
 * promised secret signs until its own `expires_at`.
 */
function signingSecrets(ctx: AttemptContext, box: SecretBox, nowMs: number): string[] {
  const secrets = [box.open(ctx.secretBox)];
  if (ctx.previousSecretBox && ctx.previousSecretExpiresAt && ctx.previousSecretExpiresAt.getTime() > nowMs) secrets.push(box.open(ctx.previousSecretBox));
  for (const retired of ctx.retiredSecrets) if (retired.expiresAt.getTime() > nowMs) secrets.push(box.open(retired.box));
  return secrets;
}

/**
 * SPEC 6.1 headers; the body is the stored event, byte for byte. The signature headers are the
 * endpoint's scheme's (src/webhooks/signature.ts); the others are sent under either scheme.
 */
function deliveryHeaders(ctx: AttemptContext, attempt: number, signature: Record<string, string>): Record<string, string> {
  return {
    'content-type': 'application/json',
    'user-agent': 'payment-engine-webhooks/1',
    ...signature,
    'x-service-event-id': ctx.eventId,
    'x-service-event-type': ctx.eventType,
    'x-service-delivery-id': ctx.deliveryId,
    'x-service-sequence': String(ctx.eventSequence),
    'x-service-attempt': String(attempt),
  };
}


/** What a recorded attempt answers: every execution of one attempt answers the same. */
function outcomeOf(recorded: RecordedAttempt, autoDisabled = false): DeliverWebhookOutcome {
  const { outcome, statusCode, error, retryInMs } = recorded;
  return { outcome, statusCode, reason: outcome === 'failed' ? error : null, retryInMs, autoDisabled };
}

/**
 * Records the attempt. Should the database still refuse the response excerpt (it is made storable
 * first, so this is a last resort), the attempt is recorded without it rather than sent again.
 */
async function record(deps: WebhookActivityDeps, db: RecordStep, result: AttemptResult) {
  try {
    return await db(() => recordAttempt(deps.orm, result, deps.disableRule));
  } catch (error) {
    if (!isDeterministicDbError(error) || result.responseBody === null) throw error;
    Context.current().log.warn('webhook attempt recorded without its response excerpt', { deliveryId: result.deliveryId, sqlState: sqlStateOf(error) });
    return db(() => recordAttempt(deps.orm, { ...result, responseBody: null }, deps.disableRule));
  }
}

type RecordStep = <T>(fn: () => Promise<T>) => Promise<T>;

/** Nothing was sent: the database queue or the attempt's time ran out first. Retried by Temporal (not a delivery attempt). */
function deferred(environment: Environment, why: string): ApplicationFailure {
  Context.current()
    .metricMeter.createCounter('payments_webhook_attempts_deferred', '1', 'Webhook attempts that sent nothing because their database wait or their time ran out')
    .add(1, { environment });
  return ApplicationFailure.create({ type: ATTEMPT_DEFERRED, message: `webhook attempt deferred, nothing sent: ${why}`, nonRetryable: false, category: ApplicationFailureCategory.BENIGN });
}

function countAttempt(outcome: string, environment: Environment): void {
  Context.current()
    .metricMeter.createCounter('payments_webhook_attempts', '1', 'Webhook delivery attempts by outcome')
    .add(1, { outcome, environment });
}

/**
 * The retryable MERCHANT_BUSY failure of a deferred send, counted in payments_webhook_merchant_busy,
 * retried after the time the merchant's sends ahead of it need (MerchantSlots.retryDelayMs, ±20 %).
 */
function merchantBusy(environment: Environment, why: string, retryDelayMs: number): ApplicationFailure {
  Context.current()
    .metricMeter.createCounter('payments_webhook_merchant_busy', '1', 'Webhook sends deferred because the merchant had no free send slot')
    .add(1, { environment });
  // Benign: expected under load, so the SDK logs it at debug level and keeps it out of its failure metrics.
  return ApplicationFailure.create({
    type: MERCHANT_BUSY,
    message: `webhook send deferred: ${why}`,
    nonRetryable: false,
    category: ApplicationFailureCategory.BENIGN,
    nextRetryDelay: Math.round(retryDelayMs * (0.8 + 0.4 * jitterFraction())),
  });
}

/**
 * Takes one of the merchant's send slots (merchant-slots.ts). A slot not free within
 * MERCHANT_SLOT_WAIT_MS (or a waiting line already full) fails the activity as retryable
 * MERCHANT_BUSY before anything is sent, so the worker slot goes to another merchant's task and
 * Temporal retries this one once the sends ahead of it should be done (not counted as a delivery attempt). The wait heartbeats
 * (deliverWebhook's interval) and ends at once on cancellation. Resolves with the release.
 */
async function takeMerchantSlot(slots: MerchantSlots, merchantId: string, environment: Environment): Promise<() => void> {
  try {
    return await slots.acquire(merchantSlotKey(merchantId, environment), { waitMs: MERCHANT_SLOT_WAIT_MS, signal: Context.current().cancellationSignal });
  } catch (error) {
    if (!(error instanceof MerchantBusyError)) throw error;
    throw merchantBusy(environment, error.message, slots.retryDelayMs(merchantSlotKey(merchantId, environment)));
  }
}

/** This execution's deadline: its start-to-close timeout from now, less DEADLINE_MARGIN_MS. */
function executionDeadline(): number {
  return Date.now() + Context.current().info.startToCloseTimeoutMs - DEADLINE_MARGIN_MS;
}

const isDeliveryGone = (error: unknown): boolean => error instanceof ApplicationFailure && error.type === 'DeliveryNotFoundError';

export function createWebhookActivities(deps: WebhookActivityDeps): WebhookActivities & WebhookInTurnActivities {
  const slots = deps.merchantSlots ?? processMerchantSlots(deps.merchantConcurrency);
  const queues = processDbQueues(deps.dbLanes);
  /** One attempt; `deadline` is the execution's (several attempts in turn share one execution). */
  async function attempt(input: DeliverWebhookInput, deadline = executionDeadline()): Promise<DeliverWebhookOutcome> {
    // Issue 19: the merchant's send slot first when the input names the merchant, so an attempt
    // deferred for a busy merchant has read nothing (one merchant's backlog leaves the webhook
    // connections to the others). Runs started before issue 19 take it after the read, as before.
    const held = input.merchantId && input.environment ? await takeMerchantSlot(slots, input.merchantId, input.environment) : undefined;
    try {
      return await attemptHolding(input, held, deadline);
    } finally {
      held?.(); // released once the send is over already; a no-op then
    }
  }

  /** One attempt; `held` is the merchant's send slot when taken before the read. */
  async function attemptHolding(input: DeliverWebhookInput, held: (() => void) | undefined, deadline: number): Promise<DeliverWebhookOutcome> {
    const activity = Context.current();
    const signal = activity.cancellationSignal;
    const readIn = input.environment ?? environmentOfQueue(activity.info.taskQueue);
    // A new attempt's read: bounded, cut by cancellation, and never into the time a send and its record need.
    const read = <T>(environment: typeof readIn, fn: () => Promise<T>): Promise<T> =>
      queues.run(environment, 'read', fn, { waitMs: Math.min(READ_WAIT_MAX_MS, deadline - Date.now() - RECORD_RESERVE_MS), signal }).catch((error: unknown) => {
        throw error instanceof DbQueueTimeout ? deferred(environment, error.message) : error;
      });
    const ctx = await read(readIn, () => loadAttemptContext(deps.orm, input.deliveryId, input.attempt));
    if (!ctx) throw ApplicationFailure.create({ type: 'DeliveryNotFoundError', message: `delivery ${input.deliveryId} does not exist`, nonRetryable: true });
    // A record goes before new attempts' reads, waits until the deadline at least, and is not cut by cancellation.
    const recordStep: RecordStep = (fn) => queues.run(ctx.environment, 'record', fn, { waitMs: Math.max(RECORD_RESERVE_MS, deadline - Date.now()) });
    // A retried activity whose attempt was recorded: answer what was recorded, never send it twice.
    if (ctx.recorded) return outcomeOf(ctx.recorded);
    if (ctx.deliveryStatus !== 'pending') {
      // Closed by a run that was restarted (or a skip): nothing more to send.
      return { outcome: ctx.deliveryStatus === 'succeeded' ? 'succeeded' : 'skipped', statusCode: null, reason: ctx.deliveryStatus === 'succeeded' ? null : `already ${ctx.deliveryStatus}`, retryInMs: null, autoDisabled: false };
    }
    if (ctx.endpointDeleted || ctx.endpointStatus === 'disabled') {
      const reason = ctx.endpointDeleted ? 'endpoint deleted' : 'endpoint disabled';
      await recordStep(() => markDeliverySkipped(deps.orm, ctx.deliveryId, reason));
      countAttempt('skipped', ctx.environment);
      return { outcome: 'skipped', statusCode: null, reason, retryInMs: null, autoDisabled: false };
    }

    // Issue 32: a secret that does not open (SECRETS_KEY changed without a reseal, a damaged row) would
    // fail every retry for ever, unrecorded. It ends the delivery instead, recorded as failed with
    // nothing sent, and is flagged for the operator (error log, payments_webhook_unsigned); a replay
    // sends the event once the key is fixed.
    let secrets: string[];
    try {
      secrets = signingSecrets(ctx, deps.secretBox, Date.now());
    } catch (error) {
      return unsigned(ctx, input, error);
    }
    // Issue 49: the endpoint's max_per_second and max_in_flight (a wait longer than a moment ends this
    // execution as retryable ENDPOINT_THROTTLED, not as a failed attempt).
    const freePlace = await throttleSend(deps.orm, ctx, input.attempt, read, (_environment, fn) => recordStep(fn));
    try {
      return await sendAndRecord(ctx, input, secrets, held, deadline, recordStep, read);
    } finally {
      await freePlace();
    }
  }

  /** The send and its record, once the attempt may go (held: the merchant's slot, if taken before the read). */
  async function sendAndRecord(ctx: AttemptContext, input: DeliverWebhookInput, secrets: string[], held: (() => void) | undefined, deadline: number, recordStep: RecordStep, read: DbStep): Promise<DeliverWebhookOutcome> {
    const signal = Context.current().cancellationSignal;
    const release = held ?? (await takeMerchantSlot(slots, ctx.merchantId, ctx.environment));
    // Issue 32: the last look before the POST. Cancelled (Temporal gave up on this execution, the
    // worker shuts down): nothing is sent. Too late to send and still record before the deadline:
    // nothing is sent either, and the retry sends it with time to record it.
    if (signal.aborted) {
      release();
      throw signal.reason;
    }
    const hold = ctx.timeoutSeconds * 1000 + RECORD_RESERVE_MS;
    // The send and its record, after the last word's waits for a full second (max_per_second only: LET_GO_WAITS_MAX of at most WAIT_IN_ATTEMPT_MS).
    const needed = hold + (ctx.maxPerSecond === null ? 0 : LET_GO_WAITS_MAX * WAIT_IN_ATTEMPT_MS);
    if (deadline - Date.now() < needed) {
      release();
      throw deferred(ctx.environment, `${Math.max(0, deadline - Date.now())} ms left before the attempt's deadline, ${needed} ms needed to send and record`);
    }
    // Issue 49, the last word: no other execution sending this attempt, and the endpoint's second not full.
    let sentAtMs: number | 'recorded';
    try {
      sentAtMs = await letGoSend(deps.orm, ctx, input.attempt, hold, read);
    } catch (error) {
      release();
      throw error;
    }
    if (sentAtMs === 'recorded') {
      release();
      // Another execution recorded this attempt while this one was on its way: answer its record.
      const recorded = await read(ctx.environment, () => loadAttemptContext(deps.orm, ctx.deliveryId, input.attempt));
      if (recorded?.recorded) return outcomeOf(recorded.recorded);
      throw deferred(ctx.environment, 'the attempt was recorded meanwhile, but its record is gone');
    }
    // Signed when sent (after any wait for a slot), so the timestamp is the send's.
    const now = Date.now();
    const timestamp = String(Math.floor(now / 1000));
    let sent: Awaited<ReturnType<typeof sendWebhook>>;
    try {
      const signature = signatureHeaders(ctx.signatureScheme, secrets, { eventId: ctx.eventId, timestamp, body: ctx.eventBody });
      sent = await sendWebhook(deps.agents[ctx.environment], {
        url: ctx.url,
        body: ctx.eventBody,
        headers: deliveryHeaders(ctx, input.attempt, signature),
        timeoutMs: ctx.timeoutSeconds * 1000,
      });
    } finally {
      release(); // the merchant's slot is for the send; recording needs none
    }
    if (sent.refusal) {
      // The merchant sees a generic reason; the detail (which may name an internal address) stays in the server's log.
      Context.current().log.warn('webhook send refused by the SSRF rules', { deliveryId: ctx.deliveryId, endpointId: ctx.endpointId, environment: ctx.environment, ...sent.refusal });
    }
    const succeeded = sent.statusCode !== null && isSuccessStatus(sent.statusCode);
    const reason = succeeded ? null : failureReason(sent.statusCode, sent.error);
    const retryInMs = succeeded || input.retryDelayMs === null ? null : nextRetryDelay(input.retryDelayMs, sent.statusCode, parseRetryAfter(sent.retryAfter, now));
    const attemptedAt = new Date(input.attemptedAtMs);
    const recorded = await record(deps, recordStep, {
      deliveryId: ctx.deliveryId,
      endpointId: ctx.endpointId,
      attempt: input.attempt,
      attemptedAt,
      outcome: succeeded ? 'succeeded' : 'failed',
      statusCode: sent.statusCode,
      durationMs: sent.durationMs,
      error: reason,
      responseBody: sent.responseBody,
      nextAttemptAt: retryInMs === null ? null : new Date(attemptedAt.getTime() + retryInMs),
      failureReason: reason,
      sentAt: new Date(sentAtMs),
    });
    countAttempt(succeeded ? 'succeeded' : 'failed', ctx.environment);
    if (!recorded.inserted) {
      // Another execution of this attempt (this one outlived a heartbeat timeout) recorded it first:
      // answer its outcome, so the workflow and the delivery record agree.
      Context.current().log.warn('webhook attempt already recorded by another execution', { deliveryId: ctx.deliveryId, attempt: input.attempt });
    }
    if (recorded.autoDisabled) Context.current().log.warn('webhook endpoint auto-disabled', { endpointId: ctx.endpointId, deliveryId: ctx.deliveryId });
    return outcomeOf(recorded.recorded, recorded.autoDisabled);
  }

  /** The delivery ended, recorded, when its secret cannot be opened (see attemptHolding). */
  async function unsigned(ctx: AttemptContext, input: DeliverWebhookInput, error: unknown): Promise<DeliverWebhookOutcome> {
    const activity = Context.current();
    // The error names no secret (SecretBox.open's messages carry none); the reason the merchant sees is generic.
    activity.log.error('webhook delivery cannot be signed: the endpoint secret does not open with SECRETS_KEY; delivery ended as failed, replay it once the key is fixed', {
      deliveryId: ctx.deliveryId, endpointId: ctx.endpointId, environment: ctx.environment, error: error instanceof Error ? error.name : 'unknown',
    });
    activity.metricMeter.createCounter('payments_webhook_unsigned', '1', 'Webhook deliveries ended because the endpoint secret could not be opened (operator: SECRETS_KEY)').add(1, { environment: ctx.environment });
    const recorded = await queues.run(ctx.environment, 'record', () =>
      recordUnsentFailure(deps.orm, { deliveryId: ctx.deliveryId, attempt: input.attempt, attemptedAt: new Date(input.attemptedAtMs), reason: UNSIGNED_REASON }),
      { waitMs: RECORD_RESERVE_MS },
    );
    countAttempt('failed', ctx.environment);
    return outcomeOf(recorded.recorded);
  }

  return {
    // Heartbeating through the whole attempt (or, as a local activity, none): activities/attempt-heartbeat.ts.
    deliverWebhook: (input: DeliverWebhookInput): Promise<DeliverWebhookOutcome> => heartbeatingAttempt(() => attempt(input)),
    // Issue 49, FIFO: the same attempt for each delivery in turn, under one execution's deadline.
    deliverWebhooksInTurn: (input: DeliverInTurnInput): Promise<DeliverInTurnResult> =>
      heartbeatingAttempt(() => {
        const deadline = executionDeadline();
        return deliverInTurn(input, (one) => attempt(one, deadline), { budgetMs: IN_TURN_BUDGET_MS, now: Date.now, isGone: isDeliveryGone });
      }),
  };
}

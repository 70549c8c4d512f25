import {
  ActivityFailure,
  ApplicationFailure,
  condition,
  continueAsNew,
  defineQuery,
  defineSignal,
  patched,
  proxyActivities,
  setCurrentDetails,
  setHandler,
  workflowInfo,
  type ActivityOptions,
} from '@temporalio/workflow';
import type { DeliverWebhookOutcome, WebhookActivities, WebhookFifoActivities, WebhookInTurnActivities } from '../activities/types';
import {
  FIFO_ATTEMPTS_PER_RUN,
  FIFO_BATCH,
  FIFO_DELIVERIES_PER_RUN,
  FIFO_IDLE_MS,
  FIFO_SKIP_SIGNAL,
  FIFO_WAKE_SIGNAL,
  fifoRetryDelay,
  type FifoState,
  type FifoWaiting,
  type FifoWorkflowInput,
} from '../src/domain/webhook-fifo';
import { jittered } from '../src/domain/webhook-retry';

/** New deliveries wait: an idle run reads its queue again (the relay, its sweep). */
export const fifoWakeSignal = defineSignal(FIFO_WAKE_SIGNAL);
/** The delivery of this event sequence was skipped (the API wrote it first): a head waiting on it moves on. */
export const fifoSkipSignal = defineSignal<[{ sequence: number }]>(FIFO_SKIP_SIGNAL);
/** For operators: `temporal workflow query --type fifoState --workflow-id fifo-we_…`. */
export const fifoStateQuery = defineQuery<FifoState>('fifoState');

/** Error type of a run refused at its start (malformed input): nothing is read or sent. */
export const WEBHOOK_FIFO_INPUT_REFUSED = 'WebhookFifoInputRefused';

export interface FifoResult {
  endpointId: string;
  delivered: number;
  continuations: number;
  /** Why the run ended: nothing waited for FIFO_IDLE_MS, or the endpoint is no longer FIFO (or deleted) and its queue is empty. */
  ended: 'idle' | 'not_fifo';
}

// The attempt: the same activity, options and retries as a delivery workflow's (workflows/webhook-delivery.ts).
const ATTEMPT: ActivityOptions = {
  startToCloseTimeout: '90 seconds',
  heartbeatTimeout: '10 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute', nonRetryableErrorTypes: ['DeliveryNotFoundError', 'DeterministicDatabaseError'] },
};
const { deliverWebhook } = proxyActivities<WebhookActivities>(ATTEMPT);
// Several attempts in turn in one execution (activities/deliver-in-turn.ts): it starts sends for a
// minute at most, each needing its endpoint's timeout and its record before the deadline.
const IN_TURN: ActivityOptions = { ...ATTEMPT, startToCloseTimeout: '5 minutes' };
const { deliverWebhooksInTurn } = proxyActivities<WebhookInTurnActivities>(IN_TURN);

/**
 * Issue 49: the deliveries of a read go out in turn in one activity execution (a worker's sends back
 * to back), not one activity per delivery with a workflow task between two: about 5 events a second
 * on the 2-core machine, where the sends alone allow several times that (docs/benchmarks.md, "Webhook
 * FIFO"). Runs started before send one activity per delivery, as they did.
 */
export const FIFO_SENDS_IN_TURN_PATCH = 'webhook-fifo-sends-in-turn';
// The read is safe to repeat; a database that stays away is retried for as long as it takes.
const { nextFifoDeliveries } = proxyActivities<WebhookFifoActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute', nonRetryableErrorTypes: ['DeterministicDatabaseError'] },
});

/**
 * Ordered delivery to one endpoint (issue 49; src/domain/webhook-fifo.ts). Workflow id
 * `fifo-<endpoint id>`, on the environment's webhook delivery queue; started or woken by the outbox
 * relay with signal-with-start whenever it writes deliveries for a FIFO endpoint.
 *
 * 1. Read the first FIFO_BATCH deliveries waiting in the endpoint's queue, in event sequence order.
 * 2. Send each in turn through `deliverWebhook` (signing, throttle, health, auto-disable, all as for
 *    any delivery), attempt after attempt: after a failure, the delivery schedule's delay (its last
 *    one past its end), so a failing event holds the ones behind it until it succeeds, or until the
 *    merchant skips it (the API marks it skipped, then signals). An endpoint disabled meanwhile makes
 *    the attempts record the waiting deliveries as skipped, as for unordered deliveries.
 * 3. Read again. An empty queue waits FIFO_IDLE_MS for a wake-up, then the run completes (the next
 *    delivery starts it again); an endpoint no longer FIFO completes it at once.
 * 4. After FIFO_DELIVERIES_PER_RUN deliveries (or when the server suggests it) the run continues as
 *    new: the queue is the database's, so nothing but counts is carried.
 *
 * The input's `limits` (tests) stand for FIFO_BATCH, FIFO_DELIVERIES_PER_RUN, FIFO_IDLE_MS and FIFO_ATTEMPTS_PER_RUN, and are
 * carried over continue-as-new.
 *
 * Only one attempt is ever under way, so the receiver never gets event N+1 before event N was
 * answered with a 2xx or skipped. An attempt is at least once (a worker killed mid-send repeats it),
 * never out of order.
 */
export async function webhookFifoWorkflow(input: FifoWorkflowInput): Promise<FifoResult> {
  const problem = inputProblem(input);
  if (problem) throw ApplicationFailure.create({ type: WEBHOOK_FIFO_INPUT_REFUSED, message: `webhook FIFO run refused: ${problem}`, nonRetryable: true });
  const batch = input.limits?.batch ?? FIFO_BATCH;
  const perRun = input.limits?.perRun ?? FIFO_DELIVERIES_PER_RUN;
  const idleMs = input.limits?.idleMs ?? FIFO_IDLE_MS;
  const attemptsPerRun = input.limits?.attemptsPerRun ?? FIFO_ATTEMPTS_PER_RUN;
  const state: FifoState = { endpointId: input.endpointId, delivered: input.delivered ?? 0, continuations: input.continuations ?? 0, head: null };
  let wakes = 0;
  const skipped = new Set<number>();
  setHandler(fifoWakeSignal, () => {
    wakes++;
  });
  setHandler(fifoSkipSignal, ({ sequence }) => {
    skipped.add(sequence);
    wakes++;
  });
  setHandler(fifoStateQuery, () => state);

  let deliveredThisRun = 0;
  const run = { attempts: 0, attemptsPerRun };
  for (;;) {
    const seen = wakes;
    const next = await nextFifoDeliveries({ endpointId: input.endpointId, environment: input.environment, limit: batch });
    if (next.waiting.length === 0) {
      if (next.order !== 'fifo') return ended(state, 'not_fifo');
      setCurrentDetails(`queue empty after ${state.delivered} deliveries; waiting for the next event`);
      if (!(await condition(() => wakes > seen, idleMs))) return ended(state, 'idle');
      continue;
    }
    if (patched(FIFO_SENDS_IN_TURN_PATCH)) {
      const sent = await sendInTurn(input, state, next.waiting, skipped, run);
      deliveredThisRun += sent.delivered;
      if (sent.then === 'continue') return continueBeforeHead(input, state);
    } else {
      for (const waiting of next.waiting) {
        if (!skipped.has(waiting.sequence) && (await deliverInOrder(input, state, waiting, skipped, run)) === 'continue') return continueBeforeHead(input, state);
        state.head = null;
        state.delivered++;
        deliveredThisRun++;
      }
    }
    if (deliveredThisRun >= perRun || workflowInfo().continueAsNewSuggested) {
      setCurrentDetails(`continuing as new after ${state.delivered} deliveries`);
      return continueAsNew<typeof webhookFifoWorkflow>({ ...input, delivered: state.delivered, continuations: state.continuations + 1 });
    }
  }
}

/** A head failing for long: its next attempt is due now, in a new run (it reads the head again, its attempts counted from the database). */
function continueBeforeHead(input: FifoWorkflowInput, state: FifoState): never {
  setCurrentDetails(`continuing as new before attempt ${(state.head?.attempt ?? 0) + 1} of event ${state.head?.sequence}`);
  return continueAsNew<typeof webhookFifoWorkflow>({ ...input, delivered: state.delivered, continuations: state.continuations + 1 }) as never;
}

/**
 * A read's deliveries, in sequence order, sent in turn by `deliverWebhooksInTurn` executions: each
 * execution sends what is left of the read (those skipped meanwhile left out) until one fails to be
 * retried, its minute is over, or an attempt is deferred; the next execution goes on from there. A
 * failing head waits out its delay (or its skip) here, then takes its further attempts one at a time
 * (deliverInOrder) while the ones behind it wait. 'continue': as deliverInOrder's.
 */
async function sendInTurn(input: FifoWorkflowInput, state: FifoState, waiting: FifoWaiting[], skipped: Set<number>, run: { attempts: number; attemptsPerRun: number }): Promise<{ delivered: number; then: 'read' | 'continue' }> {
  let delivered = 0;
  const done = () => {
    state.head = null;
    state.delivered++;
    delivered++;
  };
  let i = 0;
  while (i < waiting.length) {
    const toSend = waiting.slice(i).filter((w) => !skipped.has(w.sequence));
    if (toSend.length === 0) {
      for (; i < waiting.length; i++) done();
      break;
    }
    setCurrentDetails(`sending events ${toSend[0].sequence} to ${toSend[toSend.length - 1].sequence} in turn; ${state.delivered} delivered before them`);
    const { outcomes } = await deliverWebhooksInTurn.executeWithOptions(
      { ...IN_TURN, summary: `POST events ${toSend[0].sequence} to ${toSend[toSend.length - 1].sequence} (${toSend.length}) in turn to ${input.endpointId}` },
      [{
        merchantId: input.merchantId,
        environment: input.environment,
        scheduledAtMs: Date.now(),
        attempts: toSend.map((w) => ({ deliveryId: w.deliveryId, attempt: w.attemptCount + 1, retryDelayMs: jittered(fifoRetryDelay(input.retryScheduleMs, w.attemptCount + 1), Math.random()) })),
      }],
    );
    run.attempts += outcomes.length;
    const last = outcomes[outcomes.length - 1];
    const held = last !== undefined && last.outcome === 'failed' && last.retryInMs !== null;
    // Past what was answered, in order: the ones left out (skipped before), and those answered and no longer waiting.
    let answered = outcomes.length - (held ? 1 : 0);
    for (; i < waiting.length; i++) {
      if (toSend.includes(waiting[i])) {
        if (answered === 0) break;
        answered--;
      }
      done();
    }
    if (!held) continue;
    const head = waiting[i];
    state.head = { deliveryId: head.deliveryId, sequence: head.sequence, attempt: head.attemptCount + 1, nextAttemptAt: new Date(Date.now() + last.retryInMs!).toISOString(), lastReason: last.reason };
    setCurrentDetails(`event ${head.sequence} failed (${last.reason ?? 'failure'}); attempt ${head.attemptCount + 2} at ${state.head.nextAttemptAt}, the events behind it wait`);
    if (!(await condition(() => skipped.has(head.sequence), last.retryInMs!))) {
      if (run.attempts >= run.attemptsPerRun || workflowInfo().continueAsNewSuggested) return { delivered, then: 'continue' };
      if ((await deliverInOrder(input, state, { ...head, attemptCount: head.attemptCount + 1 }, skipped, run)) === 'continue') return { delivered, then: 'continue' };
    }
    done();
    i++;
  }
  return { delivered, then: 'read' };
}

/**
 * One delivery, attempt after attempt, until it is no longer failing (succeeded, skipped, gone) or
 * the merchant skips it: 'done'. 'continue': its retry wait is over but this run has made
 * FIFO_ATTEMPTS_PER_RUN attempts (or the server suggests continuing as new), so the next attempt is
 * the new run's: a head that fails for weeks on a short schedule never fills one history.
 */
async function deliverInOrder(input: FifoWorkflowInput, state: FifoState, d: FifoWaiting, skipped: Set<number>, run: { attempts: number; attemptsPerRun: number }): Promise<'done' | 'continue'> {
  for (let attempt = d.attemptCount + 1; ; attempt++) {
    state.head = { deliveryId: d.deliveryId, sequence: d.sequence, attempt, nextAttemptAt: null, lastReason: state.head?.deliveryId === d.deliveryId ? state.head.lastReason : null };
    setCurrentDetails(`sending event ${d.sequence} (${d.eventType} ${d.eventId}), attempt ${attempt}; ${state.delivered} delivered before it`);
    let outcome: DeliverWebhookOutcome;
    try {
      outcome = await deliverWebhook.executeWithOptions(
        { ...ATTEMPT, summary: `attempt ${attempt}: POST ${d.eventType} ${d.eventId} (sequence ${d.sequence}) to ${input.endpointId}` },
        [{ deliveryId: d.deliveryId, attempt, attemptedAtMs: Date.now(), retryDelayMs: jittered(fifoRetryDelay(input.retryScheduleMs, attempt), Math.random()), merchantId: input.merchantId, environment: input.environment }],
      );
    } catch (error) {
      // The delivery row is gone (removed by retention after it ended): nothing left to hold the queue for.
      if (error instanceof ActivityFailure && error.cause instanceof ApplicationFailure && error.cause.type === 'DeliveryNotFoundError') return 'done';
      throw error;
    }
    run.attempts++;
    if (outcome.outcome !== 'failed' || outcome.retryInMs === null) return 'done';
    state.head = { ...state.head, nextAttemptAt: new Date(Date.now() + outcome.retryInMs).toISOString(), lastReason: outcome.reason };
    setCurrentDetails(`event ${d.sequence} failed (${outcome.reason ?? 'failure'}); attempt ${attempt + 1} at ${state.head.nextAttemptAt}, the events behind it wait`);
    if (await condition(() => skipped.has(d.sequence), outcome.retryInMs)) return 'done';
    if (run.attempts >= run.attemptsPerRun || workflowInfo().continueAsNewSuggested) return 'continue';
  }
}

function ended(state: FifoState, why: FifoResult['ended']): FifoResult {
  setCurrentDetails(why === 'idle' ? `idle: ${state.delivered} delivered` : `the endpoint is no longer FIFO and its queue is empty: ${state.delivered} delivered`);
  return { endpointId: state.endpointId, delivered: state.delivered, continuations: state.continuations, ended: why };
}

function inputProblem(input: FifoWorkflowInput): string | null {
  if (typeof input !== 'object' || input === null) return 'the input must be an object';
  if (typeof input.endpointId !== 'string' || !input.endpointId.startsWith('we_')) return 'endpointId must be an endpoint id (we_…)';
  if (typeof input.merchantId !== 'string' || input.merchantId === '') return 'merchantId must name the merchant';
  if (input.environment !== 'sandbox' && input.environment !== 'live') return 'environment must be sandbox or live';
  if (!Array.isArray(input.retryScheduleMs) || input.retryScheduleMs.length === 0 || !input.retryScheduleMs.every((ms) => Number.isInteger(ms) && ms > 0)) {
    return 'retryScheduleMs must be a list of positive delays in ms';
  }
  const { batch, perRun, idleMs, attemptsPerRun } = input.limits ?? {};
  if (attemptsPerRun !== undefined && !(Number.isInteger(attemptsPerRun) && attemptsPerRun >= 1)) return 'limits.attemptsPerRun must be a positive integer';
  if (batch !== undefined && !(Number.isInteger(batch) && batch >= 1 && batch <= 1000)) return 'limits.batch must be from 1 to 1000';
  if (perRun !== undefined && !(Number.isInteger(perRun) && perRun >= 1)) return 'limits.perRun must be a positive integer';
  if (idleMs !== undefined && !(Number.isInteger(idleMs) && idleMs >= 1)) return 'limits.idleMs must be a positive number of ms';
  return null;
}

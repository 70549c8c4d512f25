import { defineQuery, patched, proxyActivities, proxyLocalActivities, setHandler, type ActivityOptions, type LocalActivityOptions } from '@temporalio/workflow';
import type { DeliverWebhookOutcome, WebhookActivities } from '../activities/types';
import { attemptsOnSchedule, type AttemptsState } from './attempts-on-schedule';
import { answerRecord } from './record-query';

/** What the relay or a replay starts; the schedule travels in the input, so history replays unchanged. */
export interface WebhookDeliveryInput {
  deliveryId: string;
  eventId: string;
  eventType: string;
  endpointId: string;
  merchantId: string;
  environment: 'sandbox' | 'live';
  /** Delays after each failed attempt (WEBHOOK_RETRY_SCHEDULE at start time). */
  retryScheduleMs: number[];
  /**
   * Run attempt 1 as a local activity (issue 19): set by the relay when the endpoint's timeout
   * allows it (LOCAL_FIRST_ATTEMPT_MAX_TIMEOUT_S). Absent in runs started before issue 19.
   */
  localFirstAttempt?: boolean;
  /**
   * Issue 48: the same choice, decided by the input alone: set (true or false) by every start since
   * (src/temporal/delivery-start.ts), so a new run asks no `patched()` and writes no patch marker and
   * search attribute upsert (two history events and a visibility write, per delivery). Runs started
   * before it have only `localFirstAttempt` and decide with the patch, as recorded.
   */
  firstAttemptLocal?: boolean;
  /**
   * Issue 32: set when the relay starts the delivery again after a run that closed without ending it
   * (failed, terminated, timed out; src/webhooks/closed-deliveries.ts): the attempt to begin with (its
   * recorded attempts + 1), at once. Absent in every other run.
   */
  firstAttempt?: number;
}

export interface WebhookDeliveryResult {
  status: 'succeeded' | 'failed' | 'skipped';
  attempts: number;
  reason: string | null;
}

export type WebhookDeliveryState = AttemptsState<DeliverWebhookOutcome>;

/** For operators: `temporal workflow query --type deliveryState --workflow-id dlv_…`. */
export const deliveryStateQuery = defineQuery<WebhookDeliveryState>('deliveryState');

// One attempt may take the endpoint's timeout (at most 30 s); infrastructure errors (database down)
// are retried by Temporal and are not counted as delivery attempts.
// The activity heartbeats through the whole attempt (database steps and the send), so a crashed
// worker's attempt is retried elsewhere within seconds; the worker's database waits stay below the
// heartbeat timeout. A database error the same input always raises (DETERMINISTIC_DB_ERROR of
// src/persistence/db-errors.ts, named literally here: workflow code imports no persistence module) is
// not retried: a retry would POST the webhook again each time. Retry options are not part of the
// command sequence, so recorded histories replay unchanged.
const OPTIONS: ActivityOptions = {
  startToCloseTimeout: '90 seconds',
  heartbeatTimeout: '10 seconds',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '1 minute',
    nonRetryableErrorTypes: ['DeliveryNotFoundError', 'DeterministicDatabaseError'],
  },
};
const { deliverWebhook } = proxyActivities<WebhookActivities>(OPTIONS);

/**
 * Issue 19: attempt 1 runs as a local activity in the worker that holds the workflow task (with
 * eager start, the relay's own process), so the POST leaves without an activity task round trip
 * through the server. No retry of its own: whatever it throws (the merchant's send slots taken, the
 * database unreachable) hands the same attempt to the regular activity above, which retries with
 * backoff and answers what was recorded if the local one did record it. Long enough for the longest
 * endpoint timeout (30 s) plus the database steps; a worker that dies mid-attempt loses its workflow
 * task, which the server hands to another worker after the workflow task timeout, and the attempt
 * runs again there (at least once).
 */
const LOCAL_OPTIONS: LocalActivityOptions = {
  startToCloseTimeout: '40 seconds',
  retry: { maximumAttempts: 1 },
};
const local = proxyLocalActivities<WebhookActivities>(LOCAL_OPTIONS);
/** The patch that marks runs whose first attempt may be local (histories from before replay without it). */
export const LOCAL_FIRST_ATTEMPT_PATCH = 'webhook-local-first-attempt';
/** The patch of runs that take over a closed run's delivery at `firstAttempt` (issue 32); only asked when the input has one. */
export const RESUME_AFTER_CLOSED_RUN_PATCH = 'webhook-resume-after-closed-run';

/** Attempt 1 locally when the input asks for it (falling back to the activity); every other attempt as an activity. */
async function runAttempt(input: WebhookDeliveryInput, args: Parameters<WebhookActivities['deliverWebhook']>, summary: string) {
  if (args[0].attempt === 1 && (input.firstAttemptLocal ?? (input.localFirstAttempt === true && patched(LOCAL_FIRST_ATTEMPT_PATCH)))) {
    try {
      return await local.deliverWebhook.executeWithOptions({ ...LOCAL_OPTIONS, summary: `${summary} (local)` }, args);
    } catch {
      // Nothing is lost: the activity below runs the same attempt (and does not send it twice if it was recorded).
    }
  }
  return deliverWebhook.executeWithOptions({ ...OPTIONS, summary }, args);
}

/**
 * One event to one endpoint, at least once. Workflow id = delivery id (`dlv_…`). Each attempt is an
 * activity; after a failure the workflow waits on a durable timer (INTERFACE.md schedule, ±20 %
 * jitter, Retry-After honoured within [delay, 2 × delay]) and tries again, until a 2xx, the end of the
 * schedule, or the endpoint being disabled.
 */
export async function webhookDeliveryWorkflow(input: WebhookDeliveryInput): Promise<WebhookDeliveryResult> {
  const state: WebhookDeliveryState = { attempt: 0, last: null, nextAttemptAt: null };
  setHandler(deliveryStateQuery, () => state);
  answerRecord(() => state);
  const first = input.firstAttempt !== undefined && input.firstAttempt > 1 && patched(RESUME_AFTER_CLOSED_RUN_PATCH) ? input.firstAttempt : 1;
  return attemptsOnSchedule(input.retryScheduleMs, state, (attempt, retryDelayMs) =>
    runAttempt(
      input,
      [{ deliveryId: input.deliveryId, attempt, attemptedAtMs: Date.now(), retryDelayMs, merchantId: input.merchantId, environment: input.environment }],
      `attempt ${attempt}: POST ${input.eventType} ${input.eventId} to ${input.endpointId}`,
    ),
    first,
  );
}

import { defineQuery, proxyActivities, proxyLocalActivities, setHandler, type ActivityOptions, type LocalActivityOptions } from '@temporalio/workflow';
import type { NotificationActivities, SendNotificationOutcome } from '../activities/notification-types';
import { attemptsOnSchedule, type AttemptsState } from './attempts-on-schedule';
import { answerRecord } from './record-query';

/** What the notification relay starts; the schedule travels in the input, so history replays unchanged. */
export interface NotificationInput {
  notificationId: string;
  merchantId: string;
  environment: 'sandbox' | 'live';
  /** charge_receipt, payout_held_for_review, settlement_paid, settlement_failed, dispute_opened, dispute_deadline. */
  kind: string;
  /** Delays after each failed attempt (NOTIFICATION_RETRY_SCHEDULE at start time). */
  retryScheduleMs: number[];
  /**
   * Issue 48: attempt 1 as a local activity in the worker that holds the workflow task, as a webhook's
   * (issue 19): no activity task through the server. Set by every start since
   * (src/temporal/notification-start.ts); runs started before have no such field and replay as recorded.
   */
  firstAttemptLocal?: boolean;
}

export interface NotificationResult {
  status: 'sent' | 'failed' | 'skipped';
  attempts: number;
  reason: string | null;
}

export type NotificationState = AttemptsState<SendNotificationOutcome>;

/** For operators: `temporal workflow query --type notificationState --workflow-id ntf_…`. */
export const notificationStateQuery = defineQuery<NotificationState>('notificationState');

// One attempt: the database steps and one send (SMTP and the SMS provider each answer within 40 s or
// fail). Infrastructure errors (the database down) are retried by Temporal as the same attempt and
// are not counted; a crashed worker's attempt is retried elsewhere once its heartbeat stops. A
// database error the same input always raises is not retried (it would send the message each time).
// Retry options are not part of the command sequence, so recorded histories replay unchanged.
const OPTIONS: ActivityOptions = {
  startToCloseTimeout: '90 seconds',
  heartbeatTimeout: '10 seconds',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '1 minute',
    nonRetryableErrorTypes: ['NotificationNotFoundError', 'DeterministicDatabaseError'],
  },
};
const { sendNotification } = proxyActivities<NotificationActivities>(OPTIONS);

/**
 * Attempt 1 when the input asks (issue 48): no retry of its own; whatever it throws (the database
 * unreachable, a send slot taken) hands the same attempt to the activity above, which retries with
 * backoff. Long enough for a send (40 s) plus the database steps; a worker that dies mid-attempt loses
 * its workflow task, which the server hands to another worker, and the attempt runs again there.
 */
const LOCAL_OPTIONS: LocalActivityOptions = { startToCloseTimeout: '90 seconds', retry: { maximumAttempts: 1 } };
const local = proxyLocalActivities<NotificationActivities>(LOCAL_OPTIONS);

/**
 * One message (a customer's receipt, a merchant's email), at least once and recorded sent once.
 * Workflow id = notification id (`ntf_…`). Each attempt is an activity; after a failure the workflow
 * waits on a durable timer (NOTIFICATION_RETRY_SCHEDULE, ±20 % jitter) and tries again, until it is
 * sent, skipped (nothing to send), failed for good, or the schedule is over.
 */
export async function notificationWorkflow(input: NotificationInput): Promise<NotificationResult> {
  const state: NotificationState = { attempt: 0, last: null, nextAttemptAt: null };
  setHandler(notificationStateQuery, () => state);
  answerRecord(() => state);
  return attemptsOnSchedule(input.retryScheduleMs, state, async (attempt, retryDelayMs) => {
    const summary = `attempt ${attempt}: ${input.environment} ${input.kind} ${input.notificationId}`;
    const args: Parameters<NotificationActivities['sendNotification']> = [{ notificationId: input.notificationId, attempt, attemptedAtMs: Date.now(), retryDelayMs }];
    if (attempt === 1 && input.firstAttemptLocal === true) {
      try {
        return await local.sendNotification.executeWithOptions({ ...LOCAL_OPTIONS, summary: `${summary} (local)` }, args);
      } catch {
        // Nothing is lost: the activity below runs the same attempt.
      }
    }
    return sendNotification.executeWithOptions({ ...OPTIONS, summary }, args);
  });
}

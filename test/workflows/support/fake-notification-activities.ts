import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { NotificationActivities, SendNotificationInput, SendNotificationOutcome } from '../../../activities/notification-types';
import { parseRetrySchedule } from '../../../src/domain/webhook-retry';
import { DEFAULT_NOTIFICATION_RETRY_SCHEDULE } from '../../../src/notifications/notification-config';
import { newId } from '../../../src/support/new-id';
import type { NotificationInput } from '../../../workflows/notification';

/** A notification workflow input for a made-up merchant, on the default schedule. */
export function notificationInput(notificationId = newId('notification')): NotificationInput {
  return { notificationId, merchantId: 'mer_test', environment: 'sandbox', kind: 'settlement_paid', retryScheduleMs: parseRetrySchedule(DEFAULT_NOTIFICATION_RETRY_SCHEDULE) };
}

/** Sent once. */
export const sent = (providerMessageId = '250 OK queued'): SendNotificationOutcome => ({ outcome: 'sent', reason: null, retryInMs: null, providerMessageId });

/** Nothing to send (e.g. the merchant has no email). */
export const skippedNotification = (reason = 'the merchant has no notification email'): SendNotificationOutcome => ({ outcome: 'skipped', reason, retryInMs: null, providerMessageId: null });

/** A failed send answered the way activities/notifications.ts answers it: the given wait, none on the last attempt or when permanent. */
export const sendFailed =
  (reason = 'SMTP ECONNREFUSED', permanent = false) =>
  (input: SendNotificationInput): SendNotificationOutcome => ({ outcome: 'failed', reason, retryInMs: permanent ? null : input.retryDelayMs, providerMessageId: null });

export type NotificationStep = SendNotificationOutcome | Error | ((input: SendNotificationInput) => SendNotificationOutcome | Error);

export interface FakeNotificationCall {
  input: SendNotificationInput;
  /** Temporal's attempt number of the activity execution. */
  activityAttempt: number;
  result: SendNotificationOutcome | Error;
}

/**
 * In-memory stand-in for NotificationActivities: each notification id answers from its script (one
 * step per activity execution, Temporal retries included; a function answers every call). A call
 * with no step left fails the workflow (non-retryable), so a test never hangs.
 */
export class FakeNotificationSender {
  readonly calls = new Map<string, FakeNotificationCall[]>();
  private readonly scripts = new Map<string, NotificationStep[] | ((input: SendNotificationInput) => SendNotificationOutcome | Error)>();

  script(notificationId: string, script: NotificationStep[] | ((input: SendNotificationInput) => SendNotificationOutcome | Error)): this {
    this.scripts.set(notificationId, script);
    return this;
  }

  callsFor(notificationId: string): FakeNotificationCall[] {
    return this.calls.get(notificationId) ?? [];
  }

  readonly activities: NotificationActivities = {
    sendNotification: async (input) => {
      const calls = this.callsFor(input.notificationId);
      const script = this.scripts.get(input.notificationId);
      const step = typeof script === 'function' ? script : script?.[calls.length];
      const result =
        step === undefined
          ? ApplicationFailure.create({ type: 'UnscriptedNotificationCall', message: `${input.notificationId}: no scripted answer for call ${calls.length + 1}`, nonRetryable: true })
          : typeof step === 'function'
            ? step(input)
            : step;
      this.calls.set(input.notificationId, [...calls, { input, activityAttempt: Context.current().info.attempt, result }]);
      if (result instanceof Error) throw result;
      return result;
    },
  };
}

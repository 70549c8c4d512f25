/** The notification workflow's activity (activities/notifications.ts), imported by the workflow as a type only. */
export interface SendNotificationInput {
  notificationId: string;
  /** 1 for the first attempt; a retried activity keeps its attempt number. */
  attempt: number;
  /** Workflow time of the attempt. */
  attemptedAtMs: number;
  /** The jittered wait after a failure of this attempt (NOTIFICATION_RETRY_SCHEDULE); null on the last attempt. */
  retryDelayMs: number | null;
}

export interface SendNotificationOutcome {
  /** `sent` once; `failed` (retryInMs says whether another attempt follows); `skipped`: nothing to send, never retried. */
  outcome: 'sent' | 'failed' | 'skipped';
  reason: string | null;
  /** After a failure: the wait before the next attempt; null when this failure is the last. */
  retryInMs: number | null;
  providerMessageId: string | null;
}

export interface NotificationActivities {
  /** Sends the notification's message once and records the attempt (idempotent per attempt). */
  sendNotification(input: SendNotificationInput): Promise<SendNotificationOutcome>;
}

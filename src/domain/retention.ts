/**
 * Retention (issue 34; docs/operations.md "Retention"): the retention Schedule (RETENTION_SCHEDULE,
 * src/temporal/retention-schedule.ts) starts `retentionWorkflow`, which deletes rows past their
 * windows through one activity per bounded batch (src/persistence/retention-store.ts). What goes:
 *
 * - `webhook_deliveries`: ended deliveries (succeeded, failed, skipped; never `pending`, which covers
 *   one waiting for a retry) created more than WEBHOOK_DELIVERY_RETENTION ago, that no kept replay
 *   refers to, each with all of its attempts (an attempt is never deleted alone);
 * - `idempotency_keys`: records past IDEMPOTENCY_RETENTION whose request finished;
 * - `rate_limits`: rate-limit counters expired more than RATE_LIMIT_RETENTION ago;
 * - `notifications`: ended notifications (sent, failed, skipped) created more than
 *   NOTIFICATION_RETENTION ago, each with all of its attempts; a dispute's deadline reminder stays
 *   while the dispute still waits for evidence.
 *
 * Never deleted: events, ledger postings, balances, payments and everything else.
 */
export const RETENTION_WORKFLOW_TYPE = 'retentionWorkflow';

/** What one batch deletes, in the order a run takes them. */
export const RETENTION_KINDS = ['webhook_deliveries', 'idempotency_keys', 'rate_limits', 'notifications'] as const;
export type RetentionKind = (typeof RETENTION_KINDS)[number];

/** Rows deleted by kind: deliveries and notifications also count the attempts that went with them. */
export interface RetentionCounts {
  webhook_deliveries: number;
  webhook_attempts: number;
  idempotency_keys: number;
  rate_limits: number;
  notifications: number;
  notification_attempts: number;
}

export const NO_ROWS: RetentionCounts = { webhook_deliveries: 0, webhook_attempts: 0, idempotency_keys: 0, rate_limits: 0, notifications: 0, notification_attempts: 0 };

export function addCounts(a: RetentionCounts, b: Partial<RetentionCounts>): RetentionCounts {
  const out = { ...a };
  for (const key of Object.keys(NO_ROWS) as Array<keyof RetentionCounts>) out[key] += b[key] ?? 0;
  return out;
}

/** The settings a run works with, read once by its first activity (so they are in its history). */
export interface RetentionPlan {
  /** Each kind's window in milliseconds: rows older than this go. */
  windowsMs: Record<RetentionKind, number>;
  /** Rows per statement (RETENTION_BATCH). */
  batch: number;
  /** Pause between two batches (RETENTION_BATCH_PAUSE), so the job never holds the database for long. */
  pauseMs: number;
}

/** One batch: at most `batch` rows of `kind` older than `windowMs`. */
export interface RetentionBatchRequest {
  kind: RetentionKind;
  windowMs: number;
  batch: number;
}

/** What a batch deleted: `rows` counts the rows of its kind (its main table), to compare with the batch size. */
export interface RetentionBatchResult {
  rows: number;
  deleted: Partial<RetentionCounts>;
}

/** Input of a run: `{}` from the Schedule and `retention run`; a continued run carries its progress. */
export interface RetentionInput {
  plan?: RetentionPlan;
  /** The kind the run is at (index into RETENTION_KINDS). */
  kindIndex?: number;
  totals?: RetentionCounts;
  batches?: number;
  continuations?: number;
}

export interface RetentionResult {
  plan: RetentionPlan;
  deleted: RetentionCounts;
  batches: number;
  continuations: number;
}

/** Batches one run takes before it continues as new (a bounded history). */
export const RETENTION_BATCHES_PER_RUN = 500;

import type { Environment } from './environment';

/**
 * A webhook recovery (issue 49, `POST /v1/webhook-endpoints/{id}/recover`): every event of the
 * endpoint's merchant and environment created at or after `since` (and by the recovery's creation),
 * of a type the endpoint subscribes to now, whose last delivery to the endpoint (the fan-out delivery
 * or its latest replay) is `failed` or `skipped`, sent again as a replay delivery (`replay_of` the
 * last delivery, `recovery_id` this recovery), freshly signed when sent. Pending and succeeded ones
 * are not sent again. `webhookRecoveryWorkflow` (workflow id = recovery id) queues them page by page.
 *
 * Pure: the workflow imports this module.
 */
export const WEBHOOK_RECOVERY_WORKFLOW_TYPE = 'webhookRecoveryWorkflow';

/** Candidates queued per page (one activity, one transaction, then their starts). */
export const RECOVERY_PAGE_SIZE = 100;
/** Events a page reads at most (by sequence) while looking for candidates: each page is bounded even when few events are candidates. */
export const RECOVERY_SCAN_EVENTS = 5_000;
/** Pages per run before the workflow continues as new (a long outage's tens of thousands of events stay out of one history). */
export const RECOVERY_PAGES_PER_RUN = 50;

/** The input of `webhookRecoveryWorkflow`; a continued run carries its cursor and counts. */
export interface WebhookRecoveryInput {
  recoveryId: string;
  merchantId: string;
  environment: Environment;
  endpointId: string;
  /** TEMPORAL_TASK_QUEUE: the resends start on `<base>-<environment>-webhooks`. */
  baseQueue: string;
  /** The delivery retry schedule the resends take (the API's WEBHOOK_RETRY_SCHEDULE, as a replay's). */
  retryScheduleMs: number[];
  /** Tests: a smaller page or fewer pages per run. */
  limits?: { pageSize?: number; pagesPerRun?: number };
  /** The last event sequence walked (a continued run); absent: from the recovery row's start. */
  after?: number | null;
  /** Counts so far (a continued run). */
  pages?: number;
  queued?: number;
  continuations?: number;
}

/** What one page did. */
export interface RecoveryPageResult {
  /** The last event sequence this page walked: the next page starts after it. */
  after: number;
  /** Resends the recovery has queued so far, this page's included (the recovery row's count: exact whatever was retried). */
  queued: number;
  /** Delivery workflows this page started (or found started). */
  started: number;
  /** Every event of the recovery's range is walked: the recovery is queued. */
  done: boolean;
}

export interface RecoveryPageRequest {
  recoveryId: string;
  /** The recovery's environment: the webhook database lane its steps take (src/webhooks/db-queue.ts). */
  environment: Environment;
  /** The last sequence the previous page walked (null: the first page, from the row's start). */
  after: number | null;
  limit: number;
  baseQueue: string;
  retryScheduleMs: number[];
}

/** The result of the workflow (and its `webhookRecovery` query). */
export interface WebhookRecoveryResult {
  recoveryId: string;
  pages: number;
  queued: number;
  continuations: number;
  done: boolean;
}

/** running: resends are being queued or some are still pending; completed: all queued and none pending. */
export type RecoveryStatus = 'running' | 'completed';

export interface RecoveryProgress {
  /** The resends of the recovery: counted at its creation, exact (= queued) once every one is queued. */
  total: number;
  /** Resend deliveries created so far. */
  queued: number;
  succeeded: number;
  failed: number;
  /** Found the endpoint disabled or deleted when sent (nothing sent). */
  skipped: number;
  pending: number;
}

export interface RecoveryRecord {
  id: string;
  endpointId: string;
  merchantId: string;
  environment: Environment;
  since: string;
  progress: RecoveryProgress;
  /** When the last resend was queued (null while queuing). */
  queuedAt: string | null;
  /** The latest end of a resend (null while none ended). */
  lastEndedAt: string | null;
  createdAt: string;
}

export function recoveryStatus(r: RecoveryRecord): RecoveryStatus {
  return r.queuedAt !== null && r.progress.pending === 0 ? 'completed' : 'running';
}

/** The recovery as the API returns it. */
export function recoveryJson(r: RecoveryRecord): Record<string, unknown> {
  const status = recoveryStatus(r);
  const ends = [r.queuedAt, r.lastEndedAt].filter((t): t is string => t !== null).sort();
  return {
    id: r.id,
    object: 'webhook_recovery',
    endpoint_id: r.endpointId,
    since: r.since,
    status,
    progress: { ...r.progress },
    livemode: r.environment === 'live',
    created_at: r.createdAt,
    queued_at: r.queuedAt,
    completed_at: status === 'completed' ? (ends[ends.length - 1] ?? r.createdAt) : null,
  };
}

/**
 * Why `since` (an instant in ms) is refused for a recovery asked at `nowMs` with the events' walkable
 * window `windowMs`, or undefined. The window is GET /v1/events' (EVENTS_WALK_WINDOW): a recovery
 * reaches back exactly as far as a client's own walk of the log could.
 */
export function recoverSinceProblem(sinceMs: number, nowMs: number, windowMs: number, windowText: string): string | undefined {
  if (!Number.isFinite(sinceMs)) return 'since is not an instant this API can use.';
  if (sinceMs > nowMs) return `since must not be in the future (it is ${new Date(nowMs).toISOString()} by the server's clock).`;
  if (sinceMs < nowMs - windowMs) return `since must be within the events' walkable window (${windowText}, EVENTS_WALK_WINDOW): at or after ${new Date(nowMs - windowMs).toISOString()}.`;
  return undefined;
}

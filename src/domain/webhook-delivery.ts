import type { Environment } from './environment';

/**
 * pending: attempts under way or a retry is scheduled; succeeded: a 2xx arrived; failed: the retry
 * schedule ran out; skipped: the endpoint was disabled or deleted, nothing was sent (replayable).
 */
export type DeliveryStatus = 'pending' | 'succeeded' | 'failed' | 'skipped';

export interface DeliveryAttemptRecord {
  attempt: number;
  attemptedAt: string;
  outcome: 'succeeded' | 'failed';
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  responseBody: string | null;
}

/** One event to one endpoint (or a replay of one); the id is the Temporal workflow id. */
export interface DeliveryRecord {
  id: string;
  endpointId: string;
  eventId: string;
  merchantId: string;
  environment: Environment;
  eventType: string;
  replayOf: string | null;
  status: DeliveryStatus;
  attemptCount: number;
  nextAttemptAt: string | null;
  lastStatusCode: number | null;
  lastError: string | null;
  createdAt: string;
  completedAt: string | null;
  /** Issue 49: its event's sequence when written for a FIFO endpoint (sent in that order); null otherwise. */
  fifoSequence: number | null;
}

/** The longest response excerpt a delivery record keeps. */
export const RESPONSE_EXCERPT_BYTES = 1024;

function attemptJson(a: DeliveryAttemptRecord): Record<string, unknown> {
  return {
    attempt: a.attempt,
    attempted_at: a.attemptedAt,
    outcome: a.outcome,
    status_code: a.statusCode,
    duration_ms: a.durationMs,
    error: a.error,
    response_body: a.responseBody,
  };
}

/** The delivery as the API returns it; `attempts` oldest first when loaded. */
export function deliveryJson(d: DeliveryRecord, attempts?: DeliveryAttemptRecord[]): Record<string, unknown> {
  return {
    id: d.id,
    object: 'webhook_delivery',
    endpoint_id: d.endpointId,
    event_id: d.eventId,
    event_type: d.eventType,
    status: d.status,
    attempt_count: d.attemptCount,
    next_attempt_at: d.nextAttemptAt,
    last_status_code: d.lastStatusCode,
    last_error: d.lastError,
    replay_of: d.replayOf,
    livemode: d.environment === 'live',
    created_at: d.createdAt,
    completed_at: d.completedAt,
    fifo_sequence: d.fifoSequence,
    ...(attempts ? { attempts: attempts.map(attemptJson) } : {}),
  };
}

/**
 * Ordered delivery per endpoint (issue 49, `delivery_order: "fifo"`).
 *
 * An endpoint's deliveries written while it is FIFO carry their event's sequence (`fifo_sequence`).
 * One workflow per endpoint (workflow id `fifoWorkflowId`) sends them one at a time in that order
 * through the same `deliverWebhook` attempt as every delivery. A failing one is retried on the
 * delivery schedule (its last delay once the schedule runs out) and holds the ones behind it until it
 * succeeds or the merchant skips it (`POST /v1/webhook-endpoints/{id}/skip {"sequence": N}`). The
 * queue is the database's: the workflow's history holds only what each step answered. The queue is
 * read up to the first event the outbox relay has not fanned out to the endpoint yet (a relay killed
 * between its claim and its fan-out, a slower pass beside another): a delivery written late is never
 * passed (nextFifoWaiting, src/persistence/webhooks/webhook-fifo-store.ts).
 */

export const DELIVERY_ORDERS = ['unordered', 'fifo'] as const;
export type DeliveryOrder = (typeof DELIVERY_ORDERS)[number];
export const DEFAULT_DELIVERY_ORDER: DeliveryOrder = 'unordered';

/** The endpoint's FIFO workflow: one per endpoint, every run of it under this id. */
export const fifoWorkflowId = (endpointId: string): string => `fifo-${endpointId}`;

/** Signal: new deliveries wait (the relay, its sweep); an idle run reads the queue again. A head waiting out its retry delay is not hurried by it. */
export const FIFO_WAKE_SIGNAL = 'fifoWake';
/** Signal: the delivery of this event sequence was skipped (the API); a head waiting on it moves on at once. */
export const FIFO_SKIP_SIGNAL = 'fifoSkip';

/** Waiting deliveries one step reads (the workflow sends them in turn, then reads again). */
export const FIFO_BATCH = 50;
/** Deliveries one run sends before it continues as new (its history stays small). */
export const FIFO_DELIVERIES_PER_RUN = 200;
/** Attempts one run makes before the next attempt goes to a new run (continue-as-new): a head failing for weeks on a short schedule. */
export const FIFO_ATTEMPTS_PER_RUN = 300;
/** How long an idle run waits for more before it completes (the relay starts it again when events come). */
export const FIFO_IDLE_MS = 60_000;

export interface FifoWorkflowInput {
  endpointId: string;
  merchantId: string;
  environment: 'sandbox' | 'live';
  /** The delivery retry schedule (WEBHOOK_RETRY_SCHEDULE when started); past its end, its last delay. */
  retryScheduleMs: number[];
  /** Tests: a smaller batch, fewer deliveries per run, a shorter idle wait (defaults FIFO_BATCH, FIFO_DELIVERIES_PER_RUN, FIFO_IDLE_MS); carried over continue-as-new. */
  limits?: { batch?: number; perRun?: number; idleMs?: number; attemptsPerRun?: number };
  /** Counts carried over continue-as-new. */
  delivered?: number;
  continuations?: number;
}

/** One waiting delivery as the FIFO step reads it. */
export interface FifoWaiting {
  deliveryId: string;
  eventId: string;
  eventType: string;
  sequence: number;
  /** Attempts recorded so far: the next one is this + 1 (a run continued as new, or taken over, goes on counting). */
  attemptCount: number;
}

export interface FifoNext {
  /** The endpoint's setting now; 'deleted' when it is gone. A run ends once nothing waits. */
  order: DeliveryOrder | 'deleted';
  waiting: FifoWaiting[];
}

/** What the workflow's query answers (`temporal workflow query --type fifoState`). */
export interface FifoState {
  endpointId: string;
  delivered: number;
  continuations: number;
  head: { deliveryId: string; sequence: number; attempt: number; nextAttemptAt: string | null; lastReason: string | null } | null;
}

/** The retry delay after attempt `attempt` fails: the schedule's entry, its last one past its end (a FIFO head is never given up). */
export function fifoRetryDelay(schedule: readonly number[], attempt: number): number {
  return schedule[Math.min(attempt, schedule.length) - 1];
}

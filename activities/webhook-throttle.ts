import { setTimeout as sleep } from 'node:timers/promises';
import { Context } from '@temporalio/activity';
import { ApplicationFailure, ApplicationFailureCategory } from '@temporalio/common';
import type { Environment } from '../src/domain/environment';
import { IN_FLIGHT_RECHECK_MS, throttled, WAIT_IN_ATTEMPT_MS } from '../src/domain/webhook-throttle';
import type { Orm } from '../src/persistence/orm';
import type { AttemptContext } from '../src/persistence/webhooks/webhook-attempt-store';
import { releaseSend, reserveSend } from '../src/persistence/webhooks/webhook-throttle-store';
import { jitterFraction } from '../src/support/jitter';

/** The retryable failure of an attempt the endpoint's throttle holds back; Temporal brings it back when due. */
export const ENDPOINT_THROTTLED = 'EndpointThrottled';

/** A database step on the environment's webhook lane (activities/webhooks.ts). */
export type DbStep = <T>(environment: Environment, fn: () => Promise<T>) => Promise<T>;

export function heldBack(ctx: AttemptContext, why: 'rate' | 'in_flight', retryInMs: number, what: string): ApplicationFailure {
  Context.current()
    .metricMeter.createCounter('payments_webhook_throttled', '1', 'Webhook attempts held back by their endpoint\'s max_per_second or max_in_flight (not delivery attempts)')
    .add(1, { environment: ctx.environment, limit: why });
  return ApplicationFailure.create({
    type: ENDPOINT_THROTTLED,
    message: `webhook send waits for endpoint ${ctx.endpointId}'s ${what}: back in ${retryInMs} ms`,
    nonRetryable: false,
    category: ApplicationFailureCategory.BENIGN,
    nextRetryDelay: Math.max(1, Math.ceil(retryInMs)),
  });
}

/**
 * Issue 49: the endpoint's throttle before a send (src/persistence/webhooks/webhook-throttle-store.ts).
 * Resolves, once the send may go (the sliding second is looked at again when it is let go:
 * activities/webhook-let-go.ts), with the function that frees its in-flight place (a no-op without
 * `max_in_flight`); throws the benign, retryable ENDPOINT_THROTTLED failure with `nextRetryDelay` when it must
 * wait longer, so no worker slot is held and no delivery attempt is counted: the attempt comes back
 * when its reserved slot is due (or to look at the in-flight places again).
 */
export async function throttleSend(orm: Orm, ctx: AttemptContext, attempt: number, read: DbStep, record: DbStep): Promise<() => Promise<void>> {
  const none = async () => {};
  if (!throttled(ctx)) return none;
  const activity = Context.current();
  if (activity.info.isLocal) {
    // A local first attempt (issue 19) runs in the workflow task's worker on its few local-activity
    // slots, which every merchant's first attempts share: it never waits there. The regular activity
    // the workflow falls back to at once takes the endpoint's turn instead.
    throw ApplicationFailure.create({ type: ENDPOINT_THROTTLED, message: `webhook send to throttled endpoint ${ctx.endpointId}: taken by the activity, not locally`, nonRetryable: true, category: ApplicationFailureCategory.BENIGN });
  }
  const recheckMs = Math.round(IN_FLIGHT_RECHECK_MS * (0.8 + 0.4 * jitterFraction()));
  const permit = await read(ctx.environment, () =>
    reserveSend(orm, { deliveryId: ctx.deliveryId, attempt, endpointId: ctx.endpointId, timeoutSeconds: ctx.timeoutSeconds }, recheckMs),
  );
  if (permit.kind === 'later') {
    throw heldBack(ctx, permit.why, permit.retryInMs, permit.why === 'rate' ? 'max_per_second (its slot is reserved)' : 'max_in_flight');
  }
  // Until the instant the reservation planned this send at (the database's clock; the same machine's, or NTP's, as the worker's).
  const waitMs = Math.min(permit.sendAtMs - Date.now(), WAIT_IN_ATTEMPT_MS);
  if (waitMs > 0) await sleep(waitMs);
  if (!permit.leased) return none;
  return async () => {
    // Best effort: a lease not freed here expires on its own (LEASE_MARGIN_MS after the send's timeout).
    await record(ctx.environment, () => releaseSend(orm, ctx.deliveryId, attempt)).catch((error: unknown) => {
      activity.log.warn('webhook send lease not freed (it expires on its own)', { deliveryId: ctx.deliveryId, error: error instanceof Error ? error.message : String(error) });
    });
  };
}

import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Context } from '@temporalio/activity';
import { ApplicationFailure, ApplicationFailureCategory } from '@temporalio/common';
import { LET_GO_WAITS_MAX, WAIT_IN_ATTEMPT_MS } from '../src/domain/webhook-throttle';
import type { Orm } from '../src/persistence/orm';
import type { AttemptContext } from '../src/persistence/webhooks/webhook-attempt-store';
import { letGo } from '../src/persistence/webhooks/webhook-let-go-store';
import { jitterFraction } from '../src/support/jitter';
import { heldBack, type DbStep } from './webhook-throttle';

/** The retryable failure of an attempt another execution is sending now; Temporal brings it back once that send's hold ends. */
export const ATTEMPT_IN_PROGRESS = 'WebhookAttemptInProgress';

/**
 * Issue 49, the last step before a POST (src/persistence/webhooks/webhook-let-go-store.ts `letGo`):
 *
 * - one execution sends an attempt: another execution's send of it under way (a heartbeat timeout's
 *   retry beside a slow first execution, a local attempt run again beside itself) ends this execution
 *   as retryable ATTEMPT_IN_PROGRESS, back when that send's hold ends, to answer its record (or, if
 *   that execution died, to send: at least once, never twice without a fault);
 * - the endpoint's max_per_second at the instant of the POST: a full second is waited out here (at
 *   most WAIT_IN_ATTEMPT_MS, LET_GO_WAITS_MAX times), then the attempt comes back as ENDPOINT_THROTTLED.
 *
 * Resolves with the instant the send was let go (the database's clock), or 'recorded' when the attempt
 * was recorded meanwhile (the caller answers the record). `holdMs` is how long the send is held for this
 * execution: its POST's timeout and its record.
 */
export async function letGoSend(orm: Orm, ctx: AttemptContext, attempt: number, holdMs: number, read: DbStep): Promise<number | 'recorded'> {
  const token = randomUUID();
  for (let waits = 0; ; waits++) {
    const answer = await read(ctx.environment, () => letGo(orm, { deliveryId: ctx.deliveryId, attempt, token, holdMs }));
    if (answer.go) return answer.sentAtMs;
    if (answer.why === 'recorded') return 'recorded';
    if (answer.why === 'in_progress') {
      Context.current()
        .metricMeter.createCounter('payments_webhook_attempt_in_progress', '1', 'Webhook attempts not sent because another execution was sending the same attempt')
        .add(1, { environment: ctx.environment });
      throw ApplicationFailure.create({
        type: ATTEMPT_IN_PROGRESS,
        message: `webhook attempt ${attempt} of ${ctx.deliveryId} is being sent by another execution: back in ${Math.ceil(answer.retryInMs)} ms to answer its record`,
        nonRetryable: false,
        category: ApplicationFailureCategory.BENIGN,
        nextRetryDelay: Math.max(1, Math.ceil(answer.retryInMs * (1 + 0.1 * jitterFraction()))),
      });
    }
    if (answer.retryInMs > WAIT_IN_ATTEMPT_MS || waits >= LET_GO_WAITS_MAX) throw heldBack(ctx, 'rate', answer.retryInMs, 'max_per_second (its second is full)');
    await sleep(answer.retryInMs);
  }
}

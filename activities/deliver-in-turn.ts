import type { DeliverInTurnInput, DeliverInTurnResult, DeliverWebhookInput, DeliverWebhookOutcome } from './types';

/** How long one execution goes on starting sends (it finishes the one under way): its history step stays short, its retry small. */
export const IN_TURN_BUDGET_MS = 60_000;

/** What a delivery removed meanwhile (retention, after it ended) answers: nothing to hold the queue for. */
export const GONE: DeliverWebhookOutcome = { outcome: 'skipped', statusCode: null, reason: 'delivery gone', retryInMs: null, autoDisabled: false };

export interface InTurnOptions {
  budgetMs: number;
  now: () => number;
  /** The attempt's error for a delivery that no longer exists (DeliveryNotFoundError). */
  isGone: (error: unknown) => boolean;
}

/**
 * A FIFO endpoint's sends in one activity execution (issue 49; workflows/webhook-fifo.ts), one after
 * another in the order given, each through `attempt` (the same attempt as every delivery's: signing,
 * throttle, health, auto-disable, the record). The workflow then waits for no activity task and no
 * workflow task between two events: only the sends themselves.
 *
 * - It stops after the first attempt that failed and is to be retried (the head): the workflow
 *   waits out its delay, so nothing behind it goes first.
 * - It stops before starting another send once `budgetMs` has passed, and before a delivery whose
 *   attempt threw (deferred, throttled, a merchant busy, the database away): what was done is
 *   answered, and the workflow sends the rest from there. The first delivery's error is thrown, so
 *   Temporal retries the execution as it retries one attempt.
 * - A retried execution repeats what is given: an attempt already recorded answers its record and is
 *   not sent again; one under way when the worker died is sent again (at least once, never out of order).
 *
 * Each attempt is stamped when it starts, never before the workflow scheduled the execution.
 */
export async function deliverInTurn(input: DeliverInTurnInput, attempt: (one: DeliverWebhookInput) => Promise<DeliverWebhookOutcome>, options: InTurnOptions): Promise<DeliverInTurnResult> {
  const started = options.now();
  const outcomes: DeliverWebhookOutcome[] = [];
  for (const [i, next] of input.attempts.entries()) {
    if (i > 0 && options.now() - started >= options.budgetMs) return { outcomes, stopped: 'budget' };
    let outcome: DeliverWebhookOutcome;
    try {
      outcome = await attempt({
        deliveryId: next.deliveryId,
        attempt: next.attempt,
        attemptedAtMs: Math.max(input.scheduledAtMs, options.now()),
        retryDelayMs: next.retryDelayMs,
        merchantId: input.merchantId,
        environment: input.environment,
      });
    } catch (error) {
      if (options.isGone(error)) {
        outcome = GONE;
      } else if (i === 0) {
        throw error;
      } else {
        return { outcomes, stopped: 'deferred', reason: error instanceof Error ? error.message : String(error) };
      }
    }
    outcomes.push(outcome);
    if (heldBy(outcome)) return { outcomes, stopped: 'failed' };
  }
  return { outcomes, stopped: 'all' };
}

/** A failed attempt with a retry to come: the delivery holds the queue. */
export function heldBy(outcome: DeliverWebhookOutcome): boolean {
  return outcome.outcome === 'failed' && outcome.retryInMs !== null;
}

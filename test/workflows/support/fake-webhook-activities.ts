import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { DeliverWebhookInput, DeliverWebhookOutcome, WebhookActivities } from '../../../activities/types';
import { DEFAULT_RETRY_SCHEDULE, nextRetryDelay, parseRetrySchedule } from '../../../src/domain/webhook-retry';
import { newId } from '../../../src/support/new-id';
import type { WebhookDeliveryInput } from '../../../workflows/webhook-delivery';

/**
 * One scripted answer of the receiver: an outcome, a function of the attempt's input (to answer with
 * the retryDelayMs the workflow passed), or an Error to throw (an infrastructure failure, which
 * Temporal retries as the same delivery attempt).
 */
/** A delivery workflow input for a made-up event and endpoint, on the default schedule. */
export function deliveryInput(deliveryId: string): WebhookDeliveryInput {
  return {
    deliveryId,
    eventId: newId('event'),
    eventType: 'transaction.succeeded',
    endpointId: newId('webhookEndpoint'),
    merchantId: 'mer_test',
    environment: 'sandbox',
    retryScheduleMs: parseRetrySchedule(DEFAULT_RETRY_SCHEDULE),
  };
}

export type ScriptStep = DeliverWebhookOutcome | Error | ((input: DeliverWebhookInput) => DeliverWebhookOutcome | Error);

/** Steps consumed one per activity execution (Temporal retries included), or one function for every call. */
export type Script = ScriptStep[] | ((input: DeliverWebhookInput, callIndex: number) => DeliverWebhookOutcome | Error);

export interface FakeWebhookCall {
  deliveryId: string;
  input: DeliverWebhookInput;
  /** Temporal's attempt number of the activity execution (1, then 2… on infrastructure retries). */
  activityAttempt: number;
  /** What the fake answered: the outcome, or the error it threw. */
  result: DeliverWebhookOutcome | Error;
}

/** A 2xx. */
export const succeeded = (statusCode = 200): DeliverWebhookOutcome => ({ outcome: 'succeeded', statusCode, reason: null, retryInMs: null, autoDisabled: false });

/** Nothing sent: the endpoint is disabled or deleted. */
export const skipped = (reason = 'endpoint disabled'): DeliverWebhookOutcome => ({ outcome: 'skipped', statusCode: null, reason, retryInMs: null, autoDisabled: false });

/**
 * A failed attempt answered the way activities/webhooks.ts answers it: retryInMs is
 * nextRetryDelay(retryDelayMs, statusCode, retryAfterMs), or null on the last attempt.
 */
export const failed =
  (statusCode: number | null = 500, retryAfterMs: (givenMs: number) => number | null = () => null) =>
  (input: DeliverWebhookInput): DeliverWebhookOutcome => ({
    outcome: 'failed',
    statusCode,
    reason: statusCode === null ? 'connection refused' : `HTTP ${statusCode}`,
    retryInMs: input.retryDelayMs === null ? null : nextRetryDelay(input.retryDelayMs, statusCode, retryAfterMs(input.retryDelayMs)),
    autoDisabled: false,
  });

/** An infrastructure error (e.g. the database is down): a plain, retryable Error. */
export const infrastructureError = (message = 'database unavailable') => new Error(message);

/**
 * In-memory stand-in for WebhookActivities: each delivery id answers from its script, and every call
 * is logged in order with its input. A call with no script step left fails the workflow (non-retryable
 * UnscriptedWebhookCall), so a test never hangs on an unexpected extra attempt.
 */
export class FakeWebhookReceiver {
  readonly calls: FakeWebhookCall[] = [];
  private readonly scripts = new Map<string, Script>();

  script(deliveryId: string, script: Script): this {
    this.scripts.set(deliveryId, script);
    return this;
  }

  callsFor(deliveryId: string): FakeWebhookCall[] {
    return this.calls.filter((c) => c.deliveryId === deliveryId);
  }

  /** The outcomes (not the thrown errors) a delivery answered, in order. */
  outcomesFor(deliveryId: string): DeliverWebhookOutcome[] {
    return this.callsFor(deliveryId).flatMap((c) => (c.result instanceof Error ? [] : [c.result]));
  }

  private answer(input: DeliverWebhookInput, callIndex: number): DeliverWebhookOutcome | Error {
    const script = this.scripts.get(input.deliveryId);
    if (typeof script === 'function') return script(input, callIndex);
    const step = script?.[callIndex];
    if (step === undefined) {
      return ApplicationFailure.create({
        type: 'UnscriptedWebhookCall',
        message: `delivery ${input.deliveryId}: no scripted answer for call ${callIndex + 1} (attempt ${input.attempt})`,
        nonRetryable: true,
      });
    }
    return typeof step === 'function' ? step(input) : step;
  }

  readonly activities: WebhookActivities = {
    deliverWebhook: async (input) => {
      const callIndex = this.callsFor(input.deliveryId).length;
      const result = this.answer(input, callIndex);
      this.calls.push({ deliveryId: input.deliveryId, input, activityAttempt: Context.current().info.attempt, result });
      if (result instanceof Error) throw result;
      return result;
    },
  };
}

import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { Dispatcher } from 'undici';
import type { Environment } from '../src/domain/environment';
import { failureReason, isSuccessStatus, type DisableRule } from '../src/domain/webhook-health';
import { nextRetryDelay, parseRetryAfter } from '../src/domain/webhook-retry';
import { loadAttemptContext, markDeliverySkipped, recordAttempt, type AttemptContext } from '../src/persistence/webhook-attempt-store';
import type { Orm } from '../src/persistence/orm';
import type { SecretBox } from '../src/support/secret-box';
import { sendWebhook } from '../src/webhooks/sender';
import { signatureHeader } from '../src/webhooks/signature';
import type { DeliverWebhookInput, DeliverWebhookOutcome, WebhookActivities } from './types';

export interface WebhookActivityDeps {
  orm: Orm;
  secretBox: SecretBox;
  /** SSRF-checked agents, one per environment (the local-development exemptions are sandbox only). */
  agents: Record<Environment, Dispatcher>;
  disableRule: DisableRule;
}

/** Current secret first; the previous one while its overlap lasts (SPEC 6.2). */
function signingSecrets(ctx: AttemptContext, box: SecretBox, nowMs: number): string[] {
  const secrets = [box.open(ctx.secretBox)];
  if (ctx.previousSecretBox && ctx.previousSecretExpiresAt && ctx.previousSecretExpiresAt.getTime() > nowMs) secrets.push(box.open(ctx.previousSecretBox));
  return secrets;
}

/** SPEC 6.1 headers; the body is the stored event, byte for byte. */
function deliveryHeaders(ctx: AttemptContext, attempt: number, signature: string, timestamp: string): Record<string, string> {
  return {
    'content-type': 'application/json',
    'user-agent': 'payment-engine-webhooks/1',
    'x-service-signature': signature,
    'x-service-timestamp': timestamp,
    'x-service-event-id': ctx.eventId,
    'x-service-event-type': ctx.eventType,
    'x-service-delivery-id': ctx.deliveryId,
    'x-service-sequence': String(ctx.eventSequence),
    'x-service-attempt': String(attempt),
  };
}

function countAttempt(outcome: string, environment: Environment): void {
  Context.current()
    .metricMeter.createCounter('payments_webhook_attempts', '1', 'Webhook delivery attempts by outcome')
    .add(1, { outcome, environment });
}

export function createWebhookActivities(deps: WebhookActivityDeps): WebhookActivities {
  return {
    async deliverWebhook(input: DeliverWebhookInput): Promise<DeliverWebhookOutcome> {
      const ctx = await loadAttemptContext(deps.orm, input.deliveryId, input.attempt);
      if (!ctx) throw ApplicationFailure.create({ type: 'DeliveryNotFoundError', message: `delivery ${input.deliveryId} does not exist`, nonRetryable: true });
      if (ctx.recorded) {
        // A retried activity whose attempt was recorded: answer what was recorded, never send it twice.
        const { outcome, statusCode, error, retryInMs } = ctx.recorded;
        return { outcome, statusCode, reason: outcome === 'failed' ? error : null, retryInMs, autoDisabled: false };
      }
      if (ctx.deliveryStatus !== 'pending') {
        // Closed by a run that was restarted (or a skip): nothing more to send.
        return { outcome: ctx.deliveryStatus === 'succeeded' ? 'succeeded' : 'skipped', statusCode: null, reason: ctx.deliveryStatus === 'succeeded' ? null : `already ${ctx.deliveryStatus}`, retryInMs: null, autoDisabled: false };
      }
      if (ctx.endpointDeleted || ctx.endpointStatus === 'disabled') {
        const reason = ctx.endpointDeleted ? 'endpoint deleted' : 'endpoint disabled';
        await markDeliverySkipped(deps.orm, ctx.deliveryId, reason);
        countAttempt('skipped', ctx.environment);
        return { outcome: 'skipped', statusCode: null, reason, retryInMs: null, autoDisabled: false };
      }

      const now = Date.now();
      const timestamp = String(Math.floor(now / 1000));
      const signature = signatureHeader(signingSecrets(ctx, deps.secretBox, now), timestamp, ctx.eventBody);
      const activity = Context.current();
      const beat = setInterval(() => activity.heartbeat(), 2000);
      const sent = await sendWebhook(deps.agents[ctx.environment], {
        url: ctx.url,
        body: ctx.eventBody,
        headers: deliveryHeaders(ctx, input.attempt, signature, timestamp),
        timeoutMs: ctx.timeoutSeconds * 1000,
      }).finally(() => clearInterval(beat));
      const succeeded = sent.statusCode !== null && isSuccessStatus(sent.statusCode);
      const reason = succeeded ? null : failureReason(sent.statusCode, sent.error);
      const retryInMs = succeeded || input.retryDelayMs === null ? null : nextRetryDelay(input.retryDelayMs, sent.statusCode, parseRetryAfter(sent.retryAfter, now));
      const attemptedAt = new Date(input.attemptedAtMs);
      const { autoDisabled } = await recordAttempt(
        deps.orm,
        {
          deliveryId: ctx.deliveryId,
          endpointId: ctx.endpointId,
          attempt: input.attempt,
          attemptedAt,
          outcome: succeeded ? 'succeeded' : 'failed',
          statusCode: sent.statusCode,
          durationMs: sent.durationMs,
          error: reason,
          responseBody: sent.responseBody,
          nextAttemptAt: retryInMs === null ? null : new Date(attemptedAt.getTime() + retryInMs),
          failureReason: reason,
        },
        deps.disableRule,
      );
      countAttempt(succeeded ? 'succeeded' : 'failed', ctx.environment);
      if (autoDisabled) Context.current().log.warn('webhook endpoint auto-disabled', { endpointId: ctx.endpointId, deliveryId: ctx.deliveryId });
      return { outcome: succeeded ? 'succeeded' : 'failed', statusCode: sent.statusCode, reason, retryInMs, autoDisabled };
    },
  };
}

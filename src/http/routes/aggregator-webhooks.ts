import Router, { type RouterContext } from '@koa/router';
import type { Middleware } from 'koa';
import { readBodyText } from '../body-text';
import { refuseHostileJson } from '../hostile-json';
import { verifyAggregatorWebhook } from '../../rail/aggregator/webhook';
import { callbackAnswer, type CallbackOutcome } from '../../rail/momo-callback';
import type { ServiceDeps } from '../../services/context';
import { followVerifiedCallback } from './partner-callbacks';

import { AGGREGATOR_WEBHOOK_ROUTE } from '../../rail/aggregator/webhook-route';

/** Largest webhook body read (an event is a few kilobytes at most). */
const MAX_WEBHOOK_BYTES = 64 * 1024;

/**
 * The aggregator's webhooks (issue 45; src/rail/aggregator/webhook.ts, docs/aggregator.md), on the
 * live listener only, outside `/v1`: authenticated by the `verif-hash` header against
 * AGGREGATOR_WEBHOOK_HASH (constant time), then handled as a MoMo callback is (followVerifiedCallback:
 * a wake-up of the payment's workflow, which asks the aggregator and follows its answer, never the
 * body; a claim contradicting how the payment ended flagged for review; debounced and capped). A
 * hostile body is refused in the API's envelope; anything else is answered 200 with an empty body
 * (the aggregator retries a non-2xx), and logged with what was made of it, never the hash.
 * `limit` (CALLBACK_RATE_LIMIT, shared with the MoMo callbacks: ../middleware/callback-limit.ts) runs
 * first: a webhook past it is answered 429 before its body is read, and nothing is made of it.
 */
export function aggregatorWebhookRoutes(deps: ServiceDeps, limit?: Middleware): Router {
  const router = new Router();
  const handle = async (ctx: RouterContext) => {
    const raw = await readBodyText(ctx.req, MAX_WEBHOOK_BYTES, ctx.get('Content-Length'));
    refuseHostileJson(raw);
    let outcome: CallbackOutcome;
    let paymentId: string | undefined;
    let referenceId: string | undefined;
    const hash = deps.aggregatorWebhooks?.webhookHash;
    const verified = hash ? verifyAggregatorWebhook(hash, ctx.headers, raw) : { refused: 'forged' as const };
    if ('refused' in verified) {
      outcome = verified.refused;
    } else {
      referenceId = verified.referenceId;
      ({ outcome, paymentId } = await followVerifiedCallback(deps, verified));
    }
    const answer = callbackAnswer(outcome);
    deps.log[answer.logLevel]({ partner: 'aggregator', referenceId, paymentId, outcome, requestId: ctx.state.requestId }, answer.logMessage);
    ctx.status = answer.status;
    ctx.body = answer.body;
  };
  router.post(AGGREGATOR_WEBHOOK_ROUTE, limit ? (ctx: RouterContext) => limit(ctx, () => handle(ctx)) : handle);
  return router;
}

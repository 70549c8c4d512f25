import Router, { type RouterContext } from '@koa/router';
import type { Middleware } from 'koa';
import { WorkflowNotFoundError } from '@temporalio/client';
import { refuseHostileJson } from '../hostile-json';
import { readBodyText } from '../body-text';
import { PARTNER_CALLBACK_SIGNAL } from '../../domain/live-rail';
import { paymentReviewWorkflowId, RETURN_CALLBACK_SIGNAL } from '../../domain/payment-review';
import { claimCallbackSignal } from '../../persistence/partner/callback-signal-store';
import { paymentOfReference } from '../../persistence/partner/rail-request-store';
import { returnOfReference } from '../../persistence/partner/return-reference';
import { CALLBACK_ROUTE, callbackAnswer, verifyCallback, type CallbackOutcome } from '../../rail/momo-callback';
import type { ServiceDeps } from '../../services/context';
import type { RailCallback } from '../../rail/partner-rail';
import { lateCallbackOutcome } from '../../services/late-callback';

/** Largest callback body read (a transaction status is a few hundred bytes). */
const MAX_CALLBACK_BYTES = 16 * 1024;

/**
 * The partner's callbacks (src/rail/momo-callback.ts), on the live listener only, outside `/v1` (no
 * API key: the partner authenticates by the URL's token). A verified callback wakes the payment's
 * workflow (signal `partnerCallback`), which asks the partner for the status and follows that, never
 * the body: a forged, unknown, replayed or malformed callback changes nothing. A callback for the
 * return transfer of a charge's late money (src/persistence/partner/return-reference.ts) wakes the
 * charge's payment review (signal `returnCallback`), which follows that transfer. A callback for a
 * payment already ended (its workflow closed, or still open after the end) whose claim contradicts
 * how it ended is `late`: the payment is flagged for a payment review
 * (src/services/late-callback.ts), logged as a warning. Each signal (the wake-up, the review's
 * flag) takes a claim first (src/persistence/partner/callback-signal-store.ts): one for a workflow signalled
 * less than CALLBACK_DEBOUNCE_MS ago is `debounced`, one past CALLBACK_SIGNAL_CAP signals `capped`
 * (a warning); neither signals nor flags anything (the workflow's own polls go on). Every callback is
 * answered as the partner expects (200, empty body) and logged with what was made of it (never the
 * token); only a hostile body (issue 32: see `handle`) is refused with a 4xx in the API's envelope.
 * `limit` (CALLBACK_RATE_LIMIT: ../middleware/callback-limit.ts) runs first: a callback past it is
 * answered 429 before its body is read, and nothing is made of it.
 */
export function partnerCallbackRoutes(deps: ServiceDeps, limit?: Middleware): Router {
  const router = new Router();
  const handle = async (ctx: RouterContext) => {
    const { product, referenceId } = ctx.params as { product: string; referenceId: string };
    let outcome: CallbackOutcome;
    let paymentId: string | undefined;
    /** The callback is for the return transfer of paymentId's late money, not for the payment itself. */
    let returnTransfer = false;
    const settings = deps.partnerCallbacks;
    // A hostile body (over the limit, not UTF-8, nested too deep, a duplicate or `__proto__` key, an
    // integer beyond 2^53) is refused in the API's envelope before anything else, token included: it
    // is no callback the partner sends, and it tells a forger nothing about tokens. Any other body that
    // is not a transaction status is `malformed`, answered 200 as below.
    const raw = await readBodyText(ctx.req, MAX_CALLBACK_BYTES, ctx.get('Content-Length'));
    refuseHostileJson(raw);
    const verified = settings ? verifyCallback(settings, product, referenceId, typeof ctx.query.token === 'string' ? ctx.query.token : undefined, raw) : { refused: 'forged' as const };
    if ('refused' in verified) {
      outcome = verified.refused;
    } else {
      ({ outcome, paymentId, returnTransfer } = await followVerifiedCallback(deps, verified));
    }
    const answer = callbackAnswer(outcome);
    deps.log[answer.logLevel]({ product, referenceId, paymentId, ...(returnTransfer ? { returnTransfer } : {}), outcome, requestId: ctx.state.requestId }, answer.logMessage);
    ctx.status = answer.status;
    ctx.body = answer.body;
  };
  const limited = limit ? (ctx: RouterContext) => limit(ctx, () => handle(ctx)) : handle;
  router.put(CALLBACK_ROUTE, limited);
  router.post(CALLBACK_ROUTE, limited);
  return router;
}

/**
 * What a verified callback (of either partner) makes: the wake-up of its payment's workflow, or of
 * the review that follows a late return, or a late answer flagged; `unknown_reference` when it names
 * no live payment of ours. Shared by the MoMo callback route and the aggregator's webhook (issue 45).
 */
export async function followVerifiedCallback(
  deps: ServiceDeps,
  verified: RailCallback,
): Promise<{ outcome: CallbackOutcome; paymentId: string | undefined; returnTransfer: boolean }> {
  const settings = deps.partnerCallbacks;
  let outcome: CallbackOutcome;
  let paymentId: string | undefined;
  let returnTransfer = false;
  const payment = await paymentOfReference(deps.orm, verified.product, verified.referenceId);
  const returned = payment ? null : await returnOfReference(deps.orm, verified.product, verified.referenceId);
  if (returned && returned.environment === 'live') {
    // The return transfer of a charge's late money (issue 43, finding 2): its payment review follows
    // it, so the review is woken (it asks the partner; the body decides nothing), debounced and
    // capped as any signal. A review already closed has recorded the return's final status.
    paymentId = returned.paymentId;
    returnTransfer = true;
    const reviewId = paymentReviewWorkflowId(returned.paymentId);
    // Its own claim (`review-<paymentId>:return`): the late answer's flag of the same review does not debounce it.
    const claim = await claimCallbackSignal(deps.orm, `${reviewId}:return`, { debounceMs: settings?.debounceMs, cap: settings?.signalCap });
    if (claim !== 'signal') {
      outcome = claim;
    } else {
      try {
        await deps.temporal.client.workflow.getHandle(reviewId).signal(RETURN_CALLBACK_SIGNAL);
        outcome = 'accepted';
      } catch (error) {
        if (!(error instanceof WorkflowNotFoundError)) throw error;
        outcome = 'replayed';
      }
    }
  } else if (!payment || payment.environment !== 'live') {
    outcome = 'unknown_reference';
  } else {
    paymentId = payment.paymentId;
    // One signal per workflow per debounce window, and a cap over its life, across API processes:
    // a replayed URL costs neither history events nor partner status requests nor reviews.
    const limits = { debounceMs: settings?.debounceMs, cap: settings?.signalCap };
    const claim = await claimCallbackSignal(deps.orm, payment.paymentId, limits);
    if (claim !== 'signal') {
      outcome = claim;
    } else {
      try {
        await deps.temporal.client.workflow.getHandle(payment.paymentId).signal(PARTNER_CALLBACK_SIGNAL);
        outcome = 'accepted';
      } catch (error) {
        if (!(error instanceof WorkflowNotFoundError)) throw error;
        outcome = 'replayed';
      }
    }
    // Read, never dropped: a claim that contradicts how the payment ended flags a review, whether
    // its workflow is closed or still open after the end (a failed settlement waiting for a retry).
    // Its own claim (the review's): the payment's last wake-up does not debounce a late answer.
    const late = await lateCallbackOutcome({ orm: deps.orm, client: deps.temporal.client, taskQueue: deps.taskQueue, limits }, payment.paymentId, verified.product, verified.claimed);
    if (late !== 'replayed') outcome = late;
  }
  return { outcome, paymentId, returnTransfer };
}

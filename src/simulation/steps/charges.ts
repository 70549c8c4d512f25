import { RIGHT_OTP, simCard, WRONG_OTP } from '../sim-cards';
import type { SimContext, Step, StepHandler } from '../types';
import { answerLine, done, keyOf, merchantById, ok, refIndex, resolveRef, sendRecorded, skipped } from './common';

/** The charge body of a `sandbox_charge` or `live_charge` step (its outcome in `metadata.sandbox_outcome`). */
export function chargeBody(step: Step): Record<string, unknown> {
  const p = step.params;
  return {
    amount: p.amount,
    currency: p.currency,
    channel: p.channel,
    ...(p.momo_network_id ? { momo_network_id: p.momo_network_id } : {}),
    customer: { identifier: p.identifier, name: 'Ama Mensah' },
    reference: `sim-${step.n}`,
    description: 'simulation',
    metadata: p.outcome ? { sandbox_outcome: p.outcome } : {},
  };
}

function chargeStep(environment: 'sandbox' | 'live'): StepHandler {
  return async (ctx, step) => {
    const ref = resolveRef(ctx, step, 'merchant');
    if (typeof ref === 'string') return skipped(step, ref);
    const merchant = merchantById(ctx, ref.id)!;
    const answer = await sendRecorded(ctx, step, { environment, method: 'POST', path: '/v1/charges', key: keyOf(merchant, environment), body: chargeBody(step), idempotencyKey: String(step.params.idempotency_key) });
    const line = answerLine(answer);
    const id = (answer.json as { id?: string } | null)?.id;
    if (!ok(answer) || !id) return done(step, line);
    ctx.registry.add('charge', id, { ...refIndex(step), merchant: merchant.id, environment });
    const paid = environment === 'live' && step.params.channel === 'card' ? `; ${await payByCard(ctx, step, id)}` : '';
    return done(step, `${line}${paid}`, [{ kind: 'charge', id }]);
  };
}

/**
 * A live card charge's customer on the hosted page (issue 45): types the card (its ending the plan's,
 * `4242`-like when the plan drew none), then answers the aggregator's challenge (`0020`: the right or
 * a wrong code; `0021`: 3-D Secure authenticated or cancelled); or abandons the page (the charge
 * expires at the engine's expiry, nothing sent).
 */
async function payByCard(ctx: SimContext, step: Step, chargeId: string): Promise<string> {
  const p = step.params;
  if (!ctx.liveCards) return 'no card page in this engine';
  if (p.card_action === 'abandon') return 'the customer abandons the card page';
  const ending = typeof p.card_ending === 'string' ? p.card_ending : '4242';
  const sent = await ctx.liveCards.send({ chargeId, amount: Number(p.amount), currency: String(p.currency) }, simCard(ending, typeof p.card_brand === 'string' ? p.card_brand : 'visa'));
  let line = `card …${ending}: ${sent}`;
  if (ending === '0020') line += `; one-time code ${p.otp_right === false ? 'wrong' : 'right'}: ${await ctx.liveCards.otp(chargeId, p.otp_right === false ? WRONG_OTP : RIGHT_OTP)}`;
  if (ending === '0021') {
    const action = p.three_ds === 'cancel' ? 'cancel' : 'authenticate';
    line += `; 3-D Secure ${action}: ${await ctx.liveCards.challenge(chargeId, action)}`;
  }
  return line;
}

/** `sandbox_charge`: POST /v1/charges with the test key, on a channel, its outcome drawn by the plan. */
export const sandboxChargeStep = chargeStep('sandbox');
/** `live_charge`: POST /v1/charges with the live key; the fake partner plays the phone number's behaviour. */
export const liveChargeStep = chargeStep('live');

/** `repeat_request`: an earlier request with its Idempotency-Key sent again; its answer is kept next to the first. */
export const repeatRequestStep: StepHandler = async (ctx, step) => {
  const ref = resolveRef(ctx, step, 'request');
  if (typeof ref === 'string') return skipped(step, ref);
  const request = ctx.registry.requests[Number(ref.id)]!;
  const answer = await ctx.api(request.environment, request.method, request.path, { key: request.key, body: request.body, idempotencyKey: request.idempotencyKey });
  (request.repeats ??= []).push({ status: answer.status, json: answer.json });
  return done(step, `${request.method} ${request.path.replace(/^\/v1\//, '')} again: ${answerLine(answer)} (first ${request.status})`);
};

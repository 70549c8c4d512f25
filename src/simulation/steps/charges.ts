import type { Step, StepHandler } from '../types';
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
    return done(step, line, [{ kind: 'charge', id }]);
  };
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

import type { Step, StepHandler } from '../types';
import { answerLine, done, keyOf, merchantById, ok, refIndex, resolveRef, sendRecorded, skipped } from './common';

/** The charge a step acts on, with its merchant and environment, or why not. */
function chargeOf(ctx: Parameters<StepHandler>[0], step: Parameters<StepHandler>[1]) {
  const ref = resolveRef(ctx, step, 'charge');
  if (typeof ref === 'string') return ref;
  const merchant = merchantById(ctx, ref.extra.merchant);
  if (!merchant) return `the merchant of charge ${ref.id} is unknown`;
  const environment = ref.extra.environment === 'live' ? ('live' as const) : ('sandbox' as const);
  return { id: ref.id, merchant, environment, key: keyOf(merchant, environment) };
}

/** The body of a `refund` step of the charge `chargeId` (no amount: all that is left). */
export const refundBody = (step: Step, chargeId: string) => ({ charge: chargeId, ...(step.params.amount === null ? {} : { amount: step.params.amount }), reason: step.params.reason });

/** The body of a `dispute` step (no amount: all that is still disputable). */
export const disputeBody = (step: Step) => ({ ...(step.params.amount === null ? {} : { amount: step.params.amount }), reason: step.params.reason });

/** `refund`: POST /v1/refunds of an earlier charge, all that is left or a part; refused unless it can be refunded. */
export const refundStep: StepHandler = async (ctx, step) => {
  const charge = chargeOf(ctx, step);
  if (typeof charge === 'string') return skipped(step, charge);
  const p = step.params;
  const answer = await sendRecorded(ctx, step, { environment: charge.environment, method: 'POST', path: '/v1/refunds', key: charge.key, body: refundBody(step, charge.id), idempotencyKey: String(p.idempotency_key) });
  const line = answerLine(answer);
  const id = (answer.json as { id?: string } | null)?.id;
  if (!ok(answer) || !id) return done(step, line);
  ctx.registry.add('refund', id, { ...refIndex(step), merchant: charge.merchant.id, environment: charge.environment });
  return done(step, line, [{ kind: 'refund', id }]);
};

/** `dispute`: the sandbox's dispute control (POST /v1/sandbox/charges/{id}/disputes) on an earlier sandbox charge. */
export const disputeStep: StepHandler = async (ctx, step) => {
  const charge = chargeOf(ctx, step);
  if (typeof charge === 'string') return skipped(step, charge);
  const p = step.params;
  const body = disputeBody(step);
  const path = `/v1/sandbox/charges/${charge.id}/disputes`;
  const answer = await sendRecorded(ctx, step, { environment: charge.environment, method: 'POST', path, key: charge.key, body, idempotencyKey: String(p.idempotency_key) });
  const line = answerLine(answer);
  const id = (answer.json as { id?: string } | null)?.id;
  if (!ok(answer) || !id) return done(step, line);
  ctx.registry.add('dispute', id, { ...refIndex(step), merchant: charge.merchant.id, environment: charge.environment });
  return done(step, line, [{ kind: 'dispute', id }]);
};

/** `dispute_evidence`: POST /v1/disputes/{id}/evidence; refused once the window closed or the dispute ended. */
export const disputeEvidenceStep: StepHandler = async (ctx, step) => {
  const ref = resolveRef(ctx, step, 'dispute');
  if (typeof ref === 'string') return skipped(step, ref);
  const merchant = merchantById(ctx, ref.extra.merchant);
  if (!merchant) return skipped(step, `the merchant of dispute ${ref.id} is unknown`);
  const environment = ref.extra.environment === 'live' ? 'live' : 'sandbox';
  const answer = await ctx.api(environment, 'POST', `/v1/disputes/${ref.id}/evidence`, { key: keyOf(merchant, environment), body: { text: step.params.text } });
  return done(step, answerLine(answer));
};

import type { Step, StepHandler } from '../types';
import { answerLine, done, keyOf, merchantById, ok, refIndex, resolveRef, sendRecorded, skipped } from './common';
import { operatorAct } from './operator';

/** The payout body of a `payout` step (mobile money or bank). */
export function payoutBody(step: Step): Record<string, unknown> {
  const p = step.params;
  return {
    amount: p.amount,
    currency: p.currency,
    channel: p.channel,
    ...(p.momo_network_id ? { momo_network_id: p.momo_network_id } : {}),
    ...(p.bank_code ? { bank_code: p.bank_code } : {}),
    recipient: { identifier: p.identifier, name: 'Kofi Boateng' },
    reference: `sim-po-${step.n}`,
  };
}

/** `payout`: POST /v1/payouts (sandbox or live), some above the merchant's review threshold (held for review). */
export const payoutStep: StepHandler = async (ctx, step) => {
  const ref = resolveRef(ctx, step, 'merchant');
  if (typeof ref === 'string') return skipped(step, ref);
  const merchant = merchantById(ctx, ref.id)!;
  const p = step.params;
  const environment = p.environment === 'live' ? 'live' : 'sandbox';
  const answer = await sendRecorded(ctx, step, { environment, method: 'POST', path: '/v1/payouts', key: keyOf(merchant, environment), body: payoutBody(step), idempotencyKey: String(p.idempotency_key) });
  const line = answerLine(answer);
  const id = (answer.json as { id?: string } | null)?.id;
  if (!ok(answer) || !id) return done(step, line);
  ctx.registry.add('payout', id, { ...refIndex(step), merchant: merchant.id, environment });
  return done(step, line, [{ kind: 'payout', id }]);
};

/** `review_payout`: the operator approves or rejects a payout (`payouts approve|reject`); refused unless it is held for review. */
export const reviewPayoutStep: StepHandler = async (ctx, step) => {
  const ref = resolveRef(ctx, step, 'payout');
  if (typeof ref === 'string') return skipped(step, ref);
  const command = step.params.decision === 'reject' ? 'payouts reject' : 'payouts approve';
  return done(step, `${command} ${ref.id}: ${await operatorAct(ctx, command, ref.id, { operator: 'simulation', reason: String(step.params.reason) })}`);
};

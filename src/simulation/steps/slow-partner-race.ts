import { WorkflowNotFoundError } from '@temporalio/client';
import type { SimContext, Step, StepHandler } from '../types';
import { chargeBody } from './charges';
import { answerLine, done, keyOf, merchantById, ok, refusal, resolveRef, skipped } from './common';
import { operatorAct, SIM_OPERATOR } from './operator';
import { payoutBody } from './payouts';

/** The fake partner's "slow answer" ending (src/rail/fake-partner/behaviours.ts `0007`): the reference is kept at once, the 202 comes only after its slowMs. */
export const SLOW_SUFFIX = '0007';

/** Real milliseconds after the create's answer at which the operator acts: the submission is then on its way, or hanging at the partner. */
export const SLOW_RACE_DELAYS_MS = [0, 50, 300, 1_500] as const;

/**
 * `burst` of shape `slow_partner_race` (issue 44: "a slow partner racing an operator"): a live
 * payment whose submission the partner answers slowly (`0007`: it keeps the reference at once and
 * answers 202 only seconds later, past the adapter's timeout, so the engine retries the same
 * reference), and an operator acting on it `delay_ms` after the create answered, while that
 * submission is on its way or hanging:
 * - a charge: `charges resolve --as <drawn>` with evidence (the resolution asks the partner first: it
 *   may find the reference PENDING, or not know it yet);
 * - a payout: its run terminated and `payments restart` (the runbook), the new run submitting the
 *   same reference while the first submission may still be at the partner.
 * Whatever lands first, the payment ends as the partner says or stays open with its difference
 * named, and nothing is paid twice: the partner-books invariant, once the engine settled.
 * The payment is not one the plan names (no `ref_index`).
 */
export const slowPartnerRaceStep: StepHandler = async (ctx, step: Step) => {
  const ref = resolveRef(ctx, step, 'merchant');
  if (typeof ref === 'string') return skipped(step, ref);
  const p = step.params;
  const payout = p.target === 'payout';
  const identifier = `23324${String(p.phone_prefix)}${SLOW_SUFFIX}`;
  const body = payout ? payoutBody({ ...step, params: { ...p, identifier, channel: 'mobile_money' } }) : chargeBody({ ...step, params: { ...p, identifier, channel: 'mobile_money' } });
  // The party's own ending plays (`normal`), whatever behaviour an earlier step set for the next
  // references, until the engine settled: the fake picks a reference's party at its first submission.
  const before = ctx.partner.behaviour?.() ?? 'normal';
  ctx.partner.setBehaviour('normal');
  try {
    const line = await race(ctx, step, payout, body);
    await ctx.settle();
    return done(step, line);
  } finally {
    ctx.partner.setBehaviour(before);
  }
};

async function race(ctx: SimContext, step: Step, payout: boolean, body: Record<string, unknown>): Promise<string> {
  const p = step.params;
  const merchant = merchantById(ctx, (resolveRef(ctx, step, 'merchant') as { id: string }).id)!;
  const answer = await ctx.api('live', 'POST', payout ? '/v1/payouts' : '/v1/charges', { key: keyOf(merchant, 'live'), body, idempotencyKey: String(p.idempotency_key) });
  const id = ok(answer) ? (answer.json as { id?: string } | null)?.id : undefined;
  if (!id) return `live ${payout ? 'payout' : 'charge'}: ${answerLine(answer)}: nothing to race`;
  await new Promise((resolve) => setTimeout(resolve, Number(p.delay_ms)));
  const reason = 'simulation: an operator while the partner answers slowly';
  if (!payout) {
    const as = p.as === 'failed' ? 'failed' : 'succeeded';
    const resolved = await operatorAct(ctx, 'charges resolve', id, { operator: SIM_OPERATOR, reason, resolution: { as, evidence: `simulation evidence for ${id}` } });
    return `live charge ${id} to a slow partner; ${p.delay_ms} ms later charges resolve --as ${as}: ${resolved}`;
  }
  let terminated: string;
  try {
    await ctx.temporal.client.workflow.getHandle(id).terminate(reason);
    terminated = 'terminated';
  } catch (error) {
    terminated = error instanceof WorkflowNotFoundError ? 'its run was not running' : `terminate ${refusal(error)}`;
  }
  const restarted = await operatorAct(ctx, 'payments restart', id, { operator: SIM_OPERATOR, reason });
  return `live payout ${id} to a slow partner; ${p.delay_ms} ms later its run ${terminated}, payments restart: ${restarted}`;
}

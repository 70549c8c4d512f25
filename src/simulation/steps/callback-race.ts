import { openPaymentReview } from '../../services/review-open';
import { newId } from '../../support/new-id';
import type { Step, StepHandler } from '../types';
import { chargeBody } from './charges';
import { answerLine, done, keyOf, merchantById, ok, resolveRef, skipped } from './common';
import { referenceOf } from './money-paths';
import { operatorAct, SIM_OPERATOR } from './operator';

/**
 * `burst` of shape `callback_race` (issue 44: "a callback racing a poll and a resolve"): a live
 * charge the partner keeps PENDING without a word (`never` for its reference only), then, at once:
 * the partner's SUCCESSFUL with its callback (its record turned, the customer debited), an
 * operator's `charges resolve --as <drawn>` with evidence (which asks the partner first), and
 * `payments review-open` (which asks the partner too). Whatever order they land in, the charge ends
 * as the partner says, or stays open with its difference named: the partner-books invariant.
 * The charge is not one the plan names (no `ref_index`).
 */
export const callbackRaceStep: StepHandler = async (ctx, step: Step) => {
  const ref = resolveRef(ctx, step, 'merchant');
  if (typeof ref === 'string') return skipped(step, ref);
  const merchant = merchantById(ctx, ref.id)!;
  const before = ctx.partner.behaviour?.() ?? 'normal';
  let id: string | undefined;
  let line: string;
  ctx.partner.setBehaviour('never');
  try {
    const answer = await ctx.api('live', 'POST', '/v1/charges', { key: keyOf(merchant, 'live'), body: chargeBody(step), idempotencyKey: String(step.params.idempotency_key) });
    line = answerLine(answer);
    id = ok(answer) ? (answer.json as { id?: string } | null)?.id : undefined;
    await ctx.settle();
  } finally {
    ctx.partner.setBehaviour(before);
  }
  if (!id) return done(step, `live charge: ${line}: nothing to race`);
  const reference = await referenceOf(ctx, id);
  if (!reference || !ctx.partner.settle) return done(step, `live charge ${id}: never went to the partner: nothing to race`);
  const as = step.params.as === 'failed' ? 'failed' : 'succeeded';
  const reason = 'simulation: a callback racing a resolve and a review';
  const [paid, resolved, reviewed] = await Promise.all([
    Promise.resolve().then(() => ctx.partner.settle!('collection', reference.reference_id, { status: 'SUCCESSFUL' })),
    operatorAct(ctx, 'charges resolve', id, { operator: SIM_OPERATOR, reason, resolution: { as, evidence: `simulation evidence for ${id}` } }),
    openPaymentReview({ orm: ctx.orm, client: ctx.temporal.client, taskQueue: ctx.taskQueue }, id, { operator: SIM_OPERATOR, reason, requestId: newId('request') }).then(
      (opened) => `review ${opened.before} -> RUNNING`,
      (error: unknown) => `refused: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`,
    ),
  ]);
  return done(step, `live charge ${id} (PENDING at the partner), then at once: the partner's SUCCESSFUL ${paid ? 'with its callback' : '(no reference kept)'}; charges resolve --as ${as}: ${resolved}; payments review-open: ${reviewed}`);
};

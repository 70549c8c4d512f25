import { randomUUID } from 'node:crypto';
import { WorkflowNotFoundError } from '@temporalio/client';
import { temporal as proto } from '@temporalio/proto';
import type { Ref, SimContext, StepHandler } from '../types';
import { answerLine, done, keyOf, merchantById, refusal, resolveRef, skipped } from './common';
import { operatorAct, SIM_OPERATOR } from './operator';
import { openPaymentReview } from '../../services/review-open';
import { newId } from '../../support/new-id';

/*
 * Issue 43's money paths that act on what the plan cannot name (a merchant's settlement batch, a run's
 * history) or play the partner for one step: inserted by plan.ts moneyPath only (weight 0 in STEP_WEIGHTS).
 */

const { ResetReapplyExcludeType } = proto.api.enums.v1;

/** The merchant's newest live settlement batch with `status`, or null. */
async function liveBatch(ctx: SimContext, merchantId: string, status: 'pending' | 'failed'): Promise<{ id: string } | null> {
  const [row] = await ctx.orm.em.fork().execute<Array<{ id: string }>>(
    `select id from settlements where merchant_id = ? and environment = 'live' and status = ? order by created_at desc, id desc limit 1`,
    [merchantId, status],
  );
  return row ?? null;
}

/** Terminates a run by its workflow id; a line for the trace. */
async function terminate(ctx: SimContext, id: string, reason: string): Promise<string> {
  try {
    await ctx.temporal.client.workflow.getHandle(id).terminate(reason);
    return 'terminated';
  } catch (error) {
    return error instanceof WorkflowNotFoundError ? 'its run was not running' : `terminate ${refusal(error)}`;
  }
}

/**
 * `restart_settlement`: the merchant's newest live batch still pending (its money in transit) has its
 * run terminated, then `payments restart stl_…` (the runbook for a batch whose run was lost).
 */
export const restartSettlementStep: StepHandler = async (ctx, step) => {
  const merchant = resolveRef(ctx, step, 'merchant');
  if (typeof merchant === 'string') return skipped(step, merchant);
  const batch = await liveBatch(ctx, merchant.id, 'pending');
  if (!batch) return skipped(step, `merchant ${merchant.id} has no live batch pending`);
  const reason = String(step.params.reason);
  const terminated = await terminate(ctx, batch.id, reason);
  return done(step, `${batch.id}: ${terminated}; payments restart: ${await operatorAct(ctx, 'payments restart', batch.id, { operator: SIM_OPERATOR, reason })}`);
};

/**
 * `reset_run`: Temporal's reset (ResetWorkflowExecution through the client's workflowService, as
 * `temporal workflow reset` does) of a payout's or a charge's run to the first workflow task
 * completed after its last activity completed (the first one when none did), reapplying updates
 * and signals or excluding updates (`reapply`).
 */
export const resetRunStep: StepHandler = async (ctx, step) => {
  const ref = step.refs?.[0] as Ref | undefined;
  const target = ref ? resolveRef(ctx, step, ref.kind) : 'no reference';
  if (typeof target === 'string') return skipped(step, target);
  const reapply = step.params.reapply === true;
  const handle = ctx.temporal.client.workflow.getHandle(target.id);
  try {
    const { runId, status } = await handle.describe();
    const events = (await handle.fetchHistory()).events ?? [];
    const lastActivity = [...events].reverse().find((e) => e.activityTaskCompletedEventAttributes);
    const after = Number(lastActivity?.eventId ?? 0);
    const task = events.find((e) => e.workflowTaskCompletedEventAttributes && Number(e.eventId) > after);
    if (!task) return done(step, `${target.id}: no workflow task to reset to (${status.name})`);
    const { runId: newRunId } = await ctx.temporal.connection.workflowService.resetWorkflowExecution({
      namespace: ctx.temporal.namespace,
      workflowExecution: { workflowId: target.id, runId },
      reason: `simulation: reset, updates ${reapply ? 'reapplied' : 'excluded'}`,
      workflowTaskFinishEventId: task.eventId,
      requestId: randomUUID(),
      resetReapplyExcludeTypes: reapply ? [] : [ResetReapplyExcludeType.RESET_REAPPLY_EXCLUDE_TYPE_UPDATE],
    });
    return done(step, `${target.id}: ${status.name} run reset to event ${String(task.eventId)}, updates ${reapply ? 'reapplied' : 'excluded'}: new run ${newRunId ? 'started' : 'not started'}`);
  } catch (error) {
    return done(step, `${target.id}: reset ${refusal(error)}`);
  }
};

/**
 * `late_return_refused`: `payments settle-late ID --action return` of a payment's late money while the
 * partner plays `0013` (it validates before it de-duplicates: a second submission of the return's
 * reference answers 400) for the return, then the partner's behaviour as it was.
 */
export const lateReturnRefusedStep: StepHandler = async (ctx, step) => {
  const ref = step.refs?.[0] as Ref | undefined;
  const target = ref ? resolveRef(ctx, step, ref.kind) : 'no reference';
  if (typeof target === 'string') return skipped(step, target);
  const before = ctx.partner.behaviour?.() ?? 'normal';
  ctx.partner.setBehaviour('duplicate_refused');
  try {
    const line = await operatorAct(ctx, 'payments settle-late', target.id, { operator: SIM_OPERATOR, reason: String(step.params.reason), settleLate: 'return' });
    // The review submits the return after the command answered: the partner plays 0013 until it did.
    await ctx.settle();
    return done(step, `payments settle-late ${target.id} --action return (partner 0013): ${line}`);
  } finally {
    ctx.partner.setBehaviour(before);
  }
};

/**
 * `settlement_retry_late`: the merchant's newest failed live batch is paid late by the partner (its
 * reference turned SUCCESSFUL at the partner, a callback sent), the engine settles, then `settlements
 * retry` of the batch.
 */
export const settlementRetryLateStep: StepHandler = async (ctx, step) => {
  const merchant = resolveRef(ctx, step, 'merchant');
  if (typeof merchant === 'string') return skipped(step, merchant);
  const batch = await liveBatch(ctx, merchant.id, 'failed');
  if (!batch) return skipped(step, `merchant ${merchant.id} has no failed live batch`);
  const reference = await referenceOf(ctx, batch.id);
  const paid = reference && ctx.partner.settle ? ctx.partner.settle('disbursement', reference.reference_id, { status: 'SUCCESSFUL' }) : false;
  await ctx.settle();
  const retried = await operatorAct(ctx, 'settlements retry', batch.id, { operator: SIM_OPERATOR, reason: String(step.params.reason) });
  return done(step, `${batch.id}: ${paid ? 'paid late by the partner' : 'the partner keeps no reference of it'}; settlements retry: ${retried}`);
};

/**
 * `unanswered_payout_jump`: a live payout of the merchant whose partner never answers (PENDING, no
 * callback: `never` for its reference only), then a time jump of `ms` (days) through it. The payout
 * is not one the plan names (no `ref_index`): later steps never refer to it.
 */
export const unansweredPayoutJumpStep: StepHandler = async (ctx, step) => {
  const ref = resolveRef(ctx, step, 'merchant');
  if (typeof ref === 'string') return skipped(step, ref);
  const merchant = merchantById(ctx, ref.id)!;
  const p = step.params;
  const before = ctx.partner.behaviour?.() ?? 'normal';
  ctx.partner.setBehaviour('never');
  let line: string;
  try {
    const answer = await ctx.api('live', 'POST', '/v1/payouts', {
      key: keyOf(merchant, 'live'),
      idempotencyKey: String(p.idempotency_key),
      body: { amount: p.amount, currency: 'GHS', channel: 'mobile_money', momo_network_id: p.momo_network_id, recipient: { identifier: p.identifier, name: 'Kofi Boateng' }, reference: `sim-po-${step.n}` },
    });
    line = answerLine(answer);
    await ctx.settle();
  } finally {
    ctx.partner.setBehaviour(before);
  }
  const ms = Number(p.ms);
  await ctx.timeJump(ms);
  return done(step, `live payout ${line}; +${ms} ms`);
};

/**
 * `partner_pays_late` (hand-written plans): the partner turns a live charge it had refused (FAILED)
 * into SUCCESSFUL, with its callback (its record corrected: the customer was debited after all); the
 * engine settles, then `payments review-open` asks the partner, and the review records the late money
 * (what `payments settle-late` then acts on).
 */
export const partnerPaysLateStep: StepHandler = async (ctx, step) => {
  const target = resolveRef(ctx, step, 'charge');
  if (typeof target === 'string') return skipped(step, target);
  const reference = await referenceOf(ctx, target.id);
  if (!reference) return skipped(step, `charge ${target.id} never went to the partner`);
  const paid = ctx.partner.settle ? ctx.partner.settle('collection', reference.reference_id, { status: 'SUCCESSFUL' }) : false;
  await ctx.settle();
  try {
    const opened = await openPaymentReview({ orm: ctx.orm, client: ctx.temporal.client, taskQueue: ctx.taskQueue }, target.id, { operator: SIM_OPERATOR, reason: String(step.params.reason), requestId: newId('request') });
    return done(step, `${target.id}: ${paid ? 'paid late by the partner' : 'the partner keeps no reference of it'}; payments review-open: review ${opened.before} -> RUNNING`);
  } catch (error) {
    return done(step, `${target.id}: ${paid ? 'paid late by the partner' : 'the partner keeps no reference of it'}; payments review-open: ${refusal(error)}`);
  }
};

/** The payment's partner reference (rail_references), if it ever went to the partner. */
export async function referenceOf(ctx: SimContext, paymentId: string): Promise<{ reference_id: string } | undefined> {
  const [reference] = await ctx.orm.em.fork().execute<Array<{ reference_id: string }>>('select reference_id::text as reference_id from rail_references where payment_id = ?', [paymentId]);
  return reference;
}

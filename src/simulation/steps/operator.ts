import { runOperatorCommand, type OperatorInput } from '../../cli/operator-actions';
import { DEFAULT_TEMPORAL_REQUEST_DEADLINE_MS, type Config } from '../../config';
import type { FailureClass } from '../../domain/failure-classes';
import type { SettleLateAction } from '../../domain/payment-review';
import type { Ref, SimContext, StepHandler } from '../types';
import { done, keyOf, merchantById, refusal, skipped } from './common';

/** The operator's name in the audit rows the simulation's actions write. */
export const SIM_OPERATOR = 'simulation';

/**
 * One operator action by id, as the CLI runs it (src/cli/operator-actions.ts runOperatorCommand, with
 * the engine's ORM and Temporal client). A refusal (the service throws why) is an outcome: its line.
 */
export async function operatorAct(ctx: SimContext, command: string, id: string, input: OperatorInput): Promise<string> {
  const config = { ...(ctx.config ?? { temporalRequestDeadlineMs: DEFAULT_TEMPORAL_REQUEST_DEADLINE_MS }), taskQueue: ctx.taskQueue } as Config;
  try {
    // By id only: no bulk setting (BULK_ACTIONS_PER_SECOND) applies, so no environment.
    const answer = await runOperatorCommand(command, { orm: ctx.orm, temporal: ctx.temporal, config, env: {} }, { id, yes: false }, input);
    const json = (typeof answer === 'string' ? JSON.parse(answer) : answer) as { status?: string } | null;
    return `done${json?.status ? ` (${json.status})` : ''}`;
  } catch (error) {
    return refusal(error);
  }
}

/** The failed settlement of a merchant to retry (the newest in its sandbox list), or null. */
async function failedSettlement(ctx: SimContext, merchantId: string): Promise<string | null> {
  const merchant = merchantById(ctx, merchantId);
  if (!merchant) return null;
  for (const environment of ['sandbox', 'live'] as const) {
    const answer = await ctx.api(environment, 'GET', '/v1/settlements?limit=100', { key: keyOf(merchant, environment) });
    const failed = ((answer.json as { data?: Array<{ id: string; status: string }> } | null)?.data ?? []).find((s) => s.status === 'failed');
    if (failed) return failed.id;
  }
  return null;
}

/**
 * `operator_action`: one of the CLI's operator actions (charges resolve|retry|reverse, payouts
 * approve|reject|reverse, settlements retry, payments restart|settle-late|review-close) on an earlier
 * creation, with an operator and a reason.
 */
export const operatorActionStep: StepHandler = async (ctx, step) => {
  const command = String(step.params.action);
  const ref = step.refs?.[0] as Ref | undefined;
  const target = ref ? ctx.registry.resolve(ref) : null;
  if (!ref || !target) return skipped(step, `${command}: ${ref ? `${ref.kind} #${ref.index} was not created` : 'no reference'}`);
  let id = target.id;
  if (command === 'settlements retry') {
    const settlement = await failedSettlement(ctx, target.id);
    if (!settlement) return skipped(step, `settlements retry: merchant ${target.id} has no failed settlement`);
    id = settlement;
  }
  ctx.registry.operatorActed.push({ command, id });
  const input: OperatorInput = { operator: SIM_OPERATOR, reason: String(step.params.reason) };
  if (command === 'charges resolve') {
    input.resolution = { as: step.params.as === 'failed' ? 'failed' : 'succeeded', ...(step.params.failure_class ? { failure_class: step.params.failure_class as FailureClass } : {}) };
    if (target.extra.environment === 'live') input.resolution.evidence = `simulation evidence for ${id}`;
  }
  if (command === 'payments settle-late') input.settleLate = step.params.settle_late as SettleLateAction;
  return done(step, `${command} ${id}: ${await operatorAct(ctx, command, id, input)}`);
};

import type { SettlementRunInput } from '../../domain/settlement-run';
import { runSettlements } from '../../services/settlement-run';
import type { StepHandler } from '../types';
import { done, refusal, resolveRef, skipped } from './common';

/**
 * `settlement_run`, as `settlements run [--merchant M] [--env E] [--outcome failed]` runs it: starts a
 * run and waits for it (runSettlements with the engine's ORM and Temporal client).
 */
export const settlementRunStep: StepHandler = async (ctx, step) => {
  const input: SettlementRunInput = {};
  if (step.refs?.some((r) => r.kind === 'merchant')) {
    const merchant = resolveRef(ctx, step, 'merchant');
    if (typeof merchant === 'string') return skipped(step, merchant);
    input.merchantId = merchant.id;
  }
  if (step.params.environment === 'sandbox' || step.params.environment === 'live') input.environment = step.params.environment;
  if (step.params.failed && input.environment === 'sandbox') input.outcome = 'failed';
  try {
    const view = await runSettlements({ orm: ctx.orm, client: ctx.temporal.client, taskQueue: ctx.taskQueue }, input);
    return done(step, `${step.params.environment}${input.outcome ? ' failed' : ''}: started ${view.started}, skipped ${view.skipped}`);
  } catch (error) {
    return done(step, refusal(error));
  }
};

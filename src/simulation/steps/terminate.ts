import { WorkflowNotFoundError } from '@temporalio/client';
import type { StepHandler } from '../types';
import { done, refusal, resolveRef, skipped } from './common';
import { operatorAct, SIM_OPERATOR } from './operator';

/**
 * `terminate_run`: an operator terminates a payout's (or a live charge's) run (Temporal's terminate, as from the UI or
 * `temporal workflow terminate`) wherever it is, a live one possibly between its submission and the
 * partner's answer, then follows the runbook: `payments restart` of the payout, in the same step (the
 * invariants are checked once the restart settled). A run already closed is left alone and restarted
 * all the same (the restart refuses what it must).
 */
export const terminateRunStep: StepHandler = async (ctx, step) => {
  // A payout's run, or a live charge's (issue 43: a charge terminated while pending).
  const ref = resolveRef(ctx, step, step.refs?.[0]?.kind === 'charge' ? 'charge' : 'payout');
  if (typeof ref === 'string') return skipped(step, ref);
  let terminated: string;
  try {
    await ctx.temporal.client.workflow.getHandle(ref.id).terminate(String(step.params.reason));
    terminated = 'terminated';
  } catch (error) {
    terminated = error instanceof WorkflowNotFoundError ? 'its run was not running' : `terminate ${refusal(error)}`;
  }
  const restarted = await operatorAct(ctx, 'payments restart', ref.id, { operator: SIM_OPERATOR, reason: String(step.params.reason) });
  return done(step, `${ref.id}: ${terminated}; payments restart: ${restarted}`);
};

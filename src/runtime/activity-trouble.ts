import type { Context as ActivityContext } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { Client } from '@temporalio/client';
import type { ActivityInterceptorsFactory } from '@temporalio/worker';
import type { ActivityTrouble } from '../domain/charge-attention';
import { activityRecoveredSignal, activityTroubleSignal } from '../../workflows/messages';

/** Workflows with the attention desk (every payment type and the settlement run): the signals have a handler there. */
const WITH_ATTENTION_DESK = /^(txn_|po_|re_|dp_|stl_|settlement-run-)/;

/** One line for operators: the failure's type and message, no stack, at most 300 characters. */
function describeFailure(error: unknown): string {
  if (error instanceof ApplicationFailure) return `${error.type ?? 'ApplicationFailure'}: ${error.message}`.slice(0, 300);
  if (error instanceof Error) return `${error.name}: ${error.message}`.slice(0, 300);
  return String(error).slice(0, 300);
}

function isFinal(error: unknown): boolean {
  return error instanceof ApplicationFailure && error.nonRetryable === true;
}

/**
 * "Stuck in every way": an activity (local or not) of a payment workflow that fails at attempt
 * `threshold` tells its workflow (`activityTrouble`: NeedsAttention, the last failure as the reason,
 * so `payments stuck` lists it long before the step's bounded retries give up), and, once it succeeds
 * after that, that it recovered (`activityRecovered`). The signal is best effort: it never fails or
 * delays the activity (it is not awaited). A non-retryable failure is not trouble: the workflow
 * handles it at once.
 */
export function activityTroubleInterceptor(client: Client, threshold: number, onError: (error: unknown) => void): ActivityInterceptorsFactory {
  return (ctx: ActivityContext) => ({
    inbound: {
      async execute(input, next) {
        const { attempt, activityType, workflowExecution } = ctx.info;
        const workflowId = workflowExecution?.workflowId;
        const watched = workflowId !== undefined && WITH_ATTENTION_DESK.test(workflowId) && attempt >= threshold;
        const signal = (send: () => Promise<void>) => void send().catch(onError);
        try {
          const result = await next(input);
          if (watched) signal(() => client.workflow.getHandle(workflowId).signal(activityRecoveredSignal, { activity: activityType }));
          return result;
        } catch (error) {
          if (watched && attempt === threshold && !isFinal(error)) {
            const trouble: ActivityTrouble = { activity: activityType, attempt, failure: describeFailure(error) };
            signal(() => client.workflow.getHandle(workflowId).signal(activityTroubleSignal, trouble));
          }
          throw error;
        }
      },
    },
  });
}

import { allHandlersFinished, condition, patched } from '@temporalio/workflow';

/**
 * `patched()` id (issue 31): a refund or a settlement batch waits for its update handlers before its
 * run closes, as charges, payouts and disputes do. Before, a `retryStep` on its last step let the
 * step succeed and the run close while the handler still wrote its audit row: the row was never
 * written, and the operator was told the update failed although the retry took effect.
 */
export const HANDLERS_FINISH_BEFORE_CLOSE_PATCH = 'refund-settlement-handlers-finish';

/**
 * Waits until every accepted update has answered (its audit row written); runs from before the patch
 * close at once. `isPatched`: the run's answer decided at start (workflows/patches-at-start.ts), else `patched()`.
 */
export async function handlersFinished(isPatched: (patchId: string) => boolean = patched): Promise<void> {
  if (isPatched(HANDLERS_FINISH_BEFORE_CLOSE_PATCH)) await condition(allHandlersFinished);
}

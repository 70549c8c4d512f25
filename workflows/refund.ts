import { ApplicationFailure, defineQuery, setCurrentDetails, setHandler, upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import type { FailureClass } from '../src/domain/failure-classes';
import { isTerminalRefundStatus, refundPlan, REFUND_INPUT_REFUSED, REFUND_NOT_FOUND, type RefundStart, type RefundState } from '../src/domain/refund';
import { refundSearchAttributePairs } from '../src/domain/refund-search-attributes';
import { SA } from '../src/domain/search-attributes';
import { attentionDesk } from './charge-attention';
import { handlersFinished } from './handlers-finished';
import { patchesAtStart, REFUND_PATCHES_AT_START, type PatchCheck } from './patches-at-start';
import { timerDesk } from './payout-timers';
import { applyRefundTransition, beginRefund } from './refund-activities';
import { answerRecord } from './record-query';
import { auditRestart } from './operator-restart';
import { LIVE_REFUND_RAIL_PATCH } from '../src/domain/live-rail';
import { continueWaitAsNew } from './partner-long-wait';
import { followLiveRefund } from './refund-rail';

/** Current state as the workflow last wrote it (`temporal workflow query --type refundState`; no metadata). */
export const refundStateQuery = defineQuery<RefundState | undefined>('refundState');

/**
 * One refund, from acceptance to its terminal state. Workflow id = refund id (`re_…`).
 *
 * Started by the API after it wrote the refund, its reservation and `refund.created` in one
 * transaction (or by the refund-start relay), with `{ refundId }` only; it trusts only the database:
 *
 * 0. Refuse to run (non-retryably, `RefundInputRefused`, nothing written) unless the input is
 *    `{ refundId }` and the workflow id is the refund id.
 * 1. Begin (local activity): load the refund the API wrote and mark the workflow started. No such
 *    refund: `RefundNotFoundError`, non-retryably; a stored refund of another merchant or environment
 *    than the run's search attributes: `RefundInputRefused`. A refund already finished (a run started
 *    again) is returned as it is: nothing moves twice.
 * 2. The rail. Sandbox, from the refund's own `metadata.sandbox_outcome` (src/domain/refund.ts
 *    refundPlan): success after about three seconds, a failure class fails at once, `pending` times
 *    out after ten minutes (`timeout`). Live (issue 45): the partner's refund, ended only by its word
 *    (workflows/refund-rail.ts); runs from before LIVE_REFUND_RAIL_PATCH failed at once. Every
 *    timer races the sandbox `advance` signal (`nextTimer` query names it; workflows/payout-timers.ts).
 * 3. The terminal transition (one transaction): projection, the charge's amount_refunded on success,
 *    the ledger (post to refund_clearing, or release to available), balance rows, `refund.succeeded`
 *    or `refund.failed`.
 *
 * Database steps retry for a bounded time; one that gives up marks the run NeedsAttention and waits
 * for `retryStep` (workflows/charge-attention.ts, shared with charges and payouts). History holds the
 * refund's state only (no metadata).
 */
export async function refundWorkflow(input: RefundStart): Promise<RefundState> {
  const { workflowId } = workflowInfo();
  if (typeof input?.refundId !== 'string') throw refused(`a refund workflow takes { refundId } of a refund the API wrote: refused to run ${workflowId}`);
  const { refundId } = input;
  if (workflowId !== refundId) throw refused(`workflow ${workflowId} was started for refund ${refundId}: a refund workflow runs only under its refund's id`);
  // Before the first local activity: replay reads these markers at the same point whatever the
  // workflow tasks of the first run were (workflows/patches-at-start.ts, issue 32 follow-up).
  const isPatched = patchesAtStart(REFUND_PATCHES_AT_START, workflowInfo().typedSearchAttributes.get(SA.Environment));
  await auditRestart(refundId, 'refund.restart', input.restart);

  let refund: RefundState | undefined;
  setHandler(refundStateQuery, () => refund);
  answerRecord(() => refund);
  const desk = attentionDesk(refundId, isPatched);
  const timers = timerDesk(refundId, () => refund?.environment);

  setCurrentDetails('begin: reading the refund the API wrote');
  const begun = await desk.persist('begin refund', () => beginRefund(refundId));
  if (!begun) {
    throw ApplicationFailure.create({ type: REFUND_NOT_FOUND, message: `refund ${refundId} was never written by the API: the refund workflow refuses to run`, nonRetryable: true });
  }
  refund = begun.refund;
  const mismatch = startedForAnother(refund);
  if (mismatch) throw refused(`refund ${refundId}: ${mismatch}; the refund workflow refuses to run`);
  if (isTerminalRefundStatus(refund.status)) return finished(refund, isPatched);

  const finish = async (to: 'succeeded' | 'failed', failureClass: FailureClass | null): Promise<RefundState> => {
    const step = `refund -> ${to}${failureClass ? ` (${failureClass})` : ''}`;
    setCurrentDetails(`writing ${step}`);
    refund = await desk.persist(step, () => applyRefundTransition({ refundId, to, failureClass, at: new Date().toISOString() }));
    upsertSearchAttributes(refundSearchAttributePairs(refund));
    return finished(refund, isPatched);
  };

  if (refund.environment === 'live' && isPatched(LIVE_REFUND_RAIL_PATCH)) {
    // Issue 45: the partner's refund, followed to its word (the wait continues as new when long).
    return followLiveRefund(refund, {
      finish,
      resume: input.resume,
      continueAsNew: (carry) => continueWaitAsNew<typeof refundWorkflow>({ refundId, resume: carry }),
    });
  }
  const plan = refundPlan(refund.environment, begun.sandboxOutcome);
  switch (plan.kind) {
    case 'fail':
      return finish('failed', plan.failureClass);
    case 'succeed': {
      const summary = 'sandbox completion: the refund reaches the customer';
      setCurrentDetails(`waiting: ${summary} (about 3 s, or advance)`);
      await timers.wait(plan.afterMs, summary);
      return finish('succeeded', null);
    }
    case 'time_out': {
      const summary = 'sandbox pending outcome: ten minutes, then timeout';
      setCurrentDetails(`waiting: ${summary} (or advance)`);
      await timers.wait(plan.afterMs, summary);
      return finish('failed', 'timeout');
    }
  }
}

async function finished(refund: RefundState, isPatched: PatchCheck): Promise<RefundState> {
  setCurrentDetails(`finished: ${refund.status}${refund.failureClass ? ` (${refund.failureClass})` : ''}`);
  await handlersFinished(isPatched); // an accepted retryStep answers (and writes its audit row) before the run closes
  return refund;
}

/** The API and the refund-start relay start a run with the record's merchant and environment as search attributes. */
function startedForAnother(refund: RefundState): string | undefined {
  const attributes = workflowInfo().typedSearchAttributes;
  const merchant = attributes.get(SA.MerchantId);
  const environment = attributes.get(SA.Environment);
  if (merchant !== refund.merchantId || environment !== refund.environment) {
    return `the run was started for merchant ${merchant ?? '(none)'} in ${environment ?? '(none)'}, the stored refund belongs to ${refund.merchantId} in ${refund.environment}`;
  }
  return undefined;
}

function refused(message: string): ApplicationFailure {
  return ApplicationFailure.create({ type: REFUND_INPUT_REFUSED, message, nonRetryable: true });
}

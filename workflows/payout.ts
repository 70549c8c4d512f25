import { ActivityFailure, allHandlersFinished, ApplicationFailure, condition, log, setHandler, workflowInfo } from '@temporalio/workflow';
import type { FailureClass } from '../src/domain/failure-classes';
import type { AuditOfChange } from '../src/domain/operator-action';
import { isTerminalPayoutStatus, type PayoutReview, type PayoutStatus } from '../src/domain/payout';
import { isPayoutStart, PAYOUT_INPUT_REFUSED, PAYOUT_NOT_FOUND, PAYOUT_TRANSITION_REFUSED, type BegunPayout, type PayoutStart, type PayoutState } from '../src/domain/payout-state';
import { SA } from '../src/domain/search-attributes';
import { attentionReason, HELD_FOR_REVIEW_REASON } from '../src/domain/attention-reason';
import { attentionDesk } from './charge-attention';
import { beginPayout, payoutTransition } from './payout-activities';
import { payoutStateQuery } from './payout-messages';
import { followPayoutRail, SANDBOX_REVERSAL_DELAY_MS } from './payout-rail';
import { reversalDesk } from './payout-reversal';
import { reviewDesk } from './payout-review';
import { REVIEW_DECISION_REFUSED_PATCH } from '../src/domain/payout-review';
import { describeWait, publishPayoutState } from './payout-search-attributes';
import { timerDesk } from './payout-timers';
import { answerRecord } from './record-query';
import { payoutPatchesAtStart } from './patches-at-start';
import { auditRestart } from './operator-restart';
import { continueWaitAsNew } from './partner-long-wait';

/**
 * One payout, from acceptance to its terminal state. Workflow id = payout id (`po_…`), input
 * `{ payoutId }` only; the workflow trusts only the database (as workflows/charge.ts):
 *
 * 0. Refuse to run (non-retryably, `PayoutInputRefused`, nothing written) unless the input is
 *    `{ payoutId }` and the workflow id is the payout id.
 * 1. Begin (local activity beginPayout): the payout's state as the API wrote it, marked started. No
 *    row: `PayoutNotFoundError`, non-retryable. A row of another merchant or environment than the
 *    run's search attributes: `PayoutInputRefused`. A payout already failed or reversed moves nothing.
 * 2. Review (held_for_review; workflows/payout-review.ts): NeedsAttention, then a durable timer until
 *    created_at + PAYOUT_REVIEW_TIMEOUT for the `decidePayout` update. Approve: `pending` (the
 *    review recorded), on to the rail. Reject or the timeout: `failed` with `declined`, the
 *    reservation released.
 * 3. The rail (workflows/payout-rail.ts): `succeeded` (the reservation posted out, fee to platform
 *    and tax) or `failed` (released).
 * 4. Reversal: the sandbox `reverse` outcome reverses a succeeded payout about 3 s later; an
 *    operator's `reversePayout` update reverses it any time after (the money returns, fee kept,
 *    `payout.reversed`). Once this run has finished, `payouts reverse` starts a new run of this
 *    workflow under the same id with the update (update-with-start), which begins at step 1.
 *
 * Every timer races the sandbox `advance` signal (query `nextTimer`). Database steps retry for a
 * bounded time; one that gives up marks the payout NeedsAttention and waits for `retryStep`
 * (workflows/charge-attention.ts, shared with charges). History holds the payout's state only: no
 * recipient identifier or name.
 */
export async function payoutWorkflow(input: PayoutStart): Promise<PayoutState> {
  const { workflowId } = workflowInfo();
  if (!isPayoutStart(input)) throw refused(`a payout workflow takes { payoutId } of a payout the API wrote: refused to run ${workflowId}`);
  const { payoutId } = input;
  if (workflowId !== payoutId) throw refused(`workflow ${workflowId} was started for payout ${payoutId}: a payout workflow runs only under its payout's id`);
  // Before the first local activity: replay reads these markers at the same point whatever the
  // workflow tasks of the first run were (workflows/patches-at-start.ts, issue 32 follow-up). A run
  // whose stored payout is of another environment is refused before its rail.
  // Issue 48: one marker for all of them in a new run (payoutPatchesAtStart).
  const isPatched = payoutPatchesAtStart(workflowInfo().typedSearchAttributes.get(SA.Environment));
  await auditRestart(payoutId, 'payout.restart', input.restart);

  let payout: PayoutState | undefined;
  setHandler(payoutStateQuery, () => payout);
  answerRecord(() => payout);
  const desk = attentionDesk(payoutId, isPatched);
  const timers = timerDesk(payoutId, () => payout?.environment);
  const review = reviewDesk(payoutId, () => payout);
  const reversal = reversalDesk(payoutId, () => payout);

  const publish = (reason: string | null) => publishPayoutState(payout!, reason);
  /** Writes a transition; `audit`: the operator action it is, its audit row in the same transaction (issue 31). */
  const write = async (to: PayoutStatus, failureClass?: FailureClass, decision?: PayoutReview, audit?: AuditOfChange): Promise<PayoutState> => {
    const step = `payout -> ${to}${failureClass ? ` (${failureClass})` : ''}`;
    describeWait(`writing ${step}`);
    const request = { payoutId, to, ...(failureClass ? { failureClass } : {}), ...(decision ? { review: decision } : {}), ...(audit ? { audit } : {}), at: new Date().toISOString() };
    payout = await desk.persist(step, () => payoutTransition(request));
    publish(null);
    return payout;
  };
  const finished = async (): Promise<PayoutState> => {
    describeWait(`finished: ${payout!.status}${payout!.failureClass ? ` (${payout!.failureClass})` : ''}`);
    await condition(allHandlersFinished); // an accepted update answers before the run closes
    return payout!;
  };

  describeWait('begin: reading the payout the API wrote');
  const begun = await begin(payoutId, desk);
  payout = begun.payout;
  const mismatch = startedForAnother(payout);
  if (mismatch) throw refused(`payout ${payoutId}: ${mismatch}; the payout workflow refuses to run`);
  if (isTerminalPayoutStatus(payout.status)) return finished(); // started again after it finished: nothing moves
  let sandboxOutcome = begun.sandboxOutcome;
  /** Why a review decision was refused (issue 43): the run then follows the payout as the database has it, flagged. */
  let refusedDecision: string | null = null;

  if (payout.status === 'held_for_review') {
    publish(HELD_FOR_REVIEW_REASON);
    const deadline = begun.reviewDeadline ?? payout.createdAt;
    describeWait(`held for review: waiting for decidePayout (approve|reject with a reason) until ${deadline}, then declined`);
    const decision = await review.decide(deadline, timers);
    try {
      if (decision.decision === 'rejected') {
        await write('failed', 'declined', decision, review.auditFor());
        return finished();
      }
      await write('pending', undefined, decision, review.auditFor());
    } catch (error) {
      // Issue 43: a decision for a payout the database no longer holds for review (a reset replayed
      // the review without the decision that was taken) is refused by the store's compare-and-set;
      // the run goes on from what the database says, flagged, instead of failing with money reserved.
      if (!isTransitionRefusal(error) || !isPatched(REVIEW_DECISION_REFUSED_PATCH)) throw error;
      const again = await begin(payoutId, desk);
      if (again.payout.status === 'held_for_review') throw error;
      payout = again.payout;
      sandboxOutcome = again.sandboxOutcome;
      const why = `the review decision (${decision.decision} by ${decision.decidedBy}) was refused: the payout is ${payout.status} in the database (a reset replayed the review without the decision taken?); nothing was written, the run goes on from the database`;
      log.warn('payout review decision refused: going on from the database', { payoutId, decision: decision.decision, decidedBy: decision.decidedBy, status: payout.status });
      publish(attentionReason('waiting', 'review decision refused'));
      describeWait(why);
      if (isTerminalPayoutStatus(payout.status)) return finished();
      refusedDecision = why;
    }
  }

  let onTheRail = false;
  if (payout.status === 'pending') {
    onTheRail = true;
    await followPayoutRail(payout, sandboxOutcome, {
      timers,
      finish: (to, failureClass) => write(to, failureClass),
      // A refused review decision stays flagged until the partner's word ends the payout.
      attention: (value) => publish(value ? attentionReason('waiting', 'partner rail') : refusedDecision ? attentionReason('waiting', 'review decision refused') : null),
      describe: describeWait,
      isPatched,
      // Issue 43: a long partner wait continues as new with the wait's state (the new run begins again, then resumes asking).
      longWait: { resume: input.resume, continueAsNew: (carry) => continueWaitAsNew<typeof payoutWorkflow>({ payoutId, resume: carry }) },
    });
  }

  if (payout.status === 'succeeded') {
    if (onTheRail && sandboxOutcome === 'reverse' && payout.environment === 'sandbox') {
      describeWait('succeeded; sandbox `reverse` outcome: the rail returns it in about 3 s');
      await timers.wait(SANDBOX_REVERSAL_DELAY_MS, 'sandbox reverse outcome: the rail returns the payout', () => reversal.requested() !== undefined);
      await write('reversed', undefined, undefined, reversal.auditFor());
    } else if (reversal.requested()) {
      await write('reversed', undefined, undefined, reversal.auditFor());
    }
    const operator = reversal.requested();
    if (operator && statusOf(payout) === 'reversed') log.info('payout reversed', { payoutId, requestedBy: operator.requestedBy, reason: operator.reason });
  }
  return finished();
}

async function begin(payoutId: string, desk: ReturnType<typeof attentionDesk>): Promise<BegunPayout> {
  try {
    return await desk.persist('begin payout', () => beginPayout(payoutId).catch(notFoundAsRefusal));
  } catch (error) {
    if (!(error instanceof NotFound)) throw error;
    throw ApplicationFailure.create({
      type: PAYOUT_NOT_FOUND,
      message: `payout ${payoutId} was never written by the API: the payout workflow refuses to run`,
      nonRetryable: true,
    });
  }
}

/** A plain Error: the attention desk rethrows it at once (it is not a database step that gave up). */
class NotFound extends Error {}

function notFoundAsRefusal(error: unknown): never {
  const failure = error instanceof ActivityFailure ? error.cause : error;
  if (failure instanceof ApplicationFailure && failure.type === PAYOUT_NOT_FOUND) throw new NotFound(failure.message);
  throw error;
}

/** The API and the payout-start relay start a run with the record's merchant and environment as search attributes. */
function startedForAnother(payout: PayoutState): string | undefined {
  const attributes = workflowInfo().typedSearchAttributes;
  const merchant = attributes.get(SA.MerchantId);
  const environment = attributes.get(SA.Environment);
  if (merchant !== payout.merchantId || environment !== payout.environment) {
    return `the run was started for merchant ${merchant ?? '(none)'} in ${environment ?? '(none)'}, the stored payout belongs to ${payout.merchantId} in ${payout.environment}`;
  }
  return undefined;
}

/** A transition the store refused (PayoutTransitionRefusedError: compare-and-set, the table, the gate), as the local activity throws it. */
function isTransitionRefusal(error: unknown): boolean {
  const failure = error instanceof ActivityFailure ? error.cause : error;
  return failure instanceof ApplicationFailure && failure.type === PAYOUT_TRANSITION_REFUSED;
}

/** The status as last written (a function, so TypeScript does not narrow it across awaits). */
const statusOf = (payout: PayoutState): PayoutStatus => payout.status;

function refused(message: string): ApplicationFailure {
  return ApplicationFailure.create({ type: PAYOUT_INPUT_REFUSED, message, nonRetryable: true });
}

import { setCurrentDetails, upsertSearchAttributes } from '@temporalio/workflow';
import type { FailureClass } from '../src/domain/failure-classes';
import { LIVE_PAYOUT_DEADLINE_MS } from '../src/domain/live-rail';
import { attentionReason, needsAttentionPairs } from '../src/domain/attention-reason';
import type { PartnerWaitCarry } from '../src/domain/partner-wait';
import type { RefundState } from '../src/domain/refund';
import { refundSearchAttributePairs } from '../src/domain/refund-search-attributes';
import { followPartnerLongWait } from './partner-long-wait';

/** How the refund workflow writes an end and continues a long wait as new (workflows/refund.ts). */
export interface RefundRailHooks {
  finish(to: 'succeeded' | 'failed', failureClass: FailureClass | null): Promise<RefundState>;
  /** This run continues a wait an earlier run began (the refund workflow's input `resume`). */
  resume?: PartnerWaitCarry;
  continueAsNew(carry: PartnerWaitCarry): Promise<never>;
}

/**
 * A live refund on the partner rail (issue 45; MoMo's `POST /disbursement/v1_0/refund` naming the
 * charge's request-to-pay, src/rail/momo-adapter.ts). A refund is money out, so it is followed as a
 * live payout is (workflows/payout-rail.ts): the refund (its reference chosen once, the same request
 * on every retry) is submitted for LIVE_PAYOUT_DEADLINE_MS at most, then the partner's callback or a
 * status poll, until its word: SUCCESSFUL (for the refund's amount and currency: another is held,
 * flagged, and asked on), FAILED or a refusal, or `unknown` before any acknowledgement once no
 * submission can be under way. Without it the refund stays pending, its amount reserved,
 * NeedsAttention with the reason, however long it takes; the wait continues as new when its history
 * is long. The end goes through the status gate, which refuses it without the partner's recorded answer.
 */
export async function followLiveRefund(refund: RefundState, hooks: RefundRailHooks): Promise<RefundState> {
  const resume = hooks.resume;
  let flagged = resume?.reason !== undefined;
  setCurrentDetails(
    resume
      ? `on the partner rail: refund sent at ${new Date(resume.startedMs).toISOString()}; waiting for the partner (callback or status poll; run ${resume.runs + 1} of this wait, continued as new to keep its history short)`
      : 'on the partner rail: refund of the charge sent; waiting for the partner (callback or status poll)',
  );
  const answer = await followPartnerLongWait(
    {
      paymentId: refund.id,
      product: 'refund',
      submitUntilMs: resume?.submitUntilMs ?? Date.now() + LIVE_PAYOUT_DEADLINE_MS,
      attention: (reason) => {
        flagged = true;
        upsertSearchAttributes([...refundSearchAttributePairs(refund), ...needsAttentionPairs(attentionReason('waiting', 'partner rail'))]);
        setCurrentDetails(`on the partner rail: ${reason}`);
      },
    },
    { resume, continueAsNew: hooks.continueAsNew },
  );
  if (answer.kind === 'succeeded') return cleared(flagged, await hooks.finish('succeeded', null));
  if (answer.kind === 'failed') return cleared(flagged, await hooks.finish('failed', answer.failureClass));
  // No deadline and no stopEarly: the wait ends only with the partner's word.
  throw new Error(`refund ${refund.id}: the partner wait ended without the partner's word (${answer.kind})`);
}

/** NeedsAttention off once the partner's word ended a refund the wait had flagged. */
function cleared(flagged: boolean, after: RefundState): RefundState {
  if (flagged) upsertSearchAttributes(needsAttentionPairs(null));
  return after;
}

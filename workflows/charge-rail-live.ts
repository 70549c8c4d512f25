import type { ChargeState } from '../src/domain/charge-state';
import type { ChargeStatus } from '../src/domain/charge-status';
import type { FailureClass } from '../src/domain/failure-classes';
import { UNRESOLVED_FAILURE_CLASS } from '../src/domain/sandbox-outcome';
import { PARTNER_RAIL_STEP } from '../src/domain/charge-attention';
import type { AttentionDesk } from './charge-attention';
import type { ResolutionDesk } from './charge-resolution';
import { awaitPartnerWord, type NotFinal, type PartnerWatch } from './partner-answer';
import { startReviewFromWorkflow } from './payment-review-start';
import type { AttemptNote } from './partner-failover';


/**
 * A live charge on the partner rail, ended only by the partner's final answer (issue 43,
 * workflows/partner-answer.ts `untilTheWord`): the request-to-pay goes out until `expires_at` and
 * never after; the status is followed until SUCCESSFUL (succeeded) or FAILED (failed; `expired` at or
 * after `expires_at`), or, before the partner ever acknowledged the request, its confirmation that it
 * never received it (`expired`, partner_unavailable).
 *
 * At `expires_at` the partner is asked at once. Still PENDING there (or no answer): the charge stays
 * `awaiting_action`, its hold where it is, NeedsAttention with the reason, and ends as the partner
 * says, however long (polls back off as before). No payment review is needed for it.
 *
 * An operator's resolution (`charges resolve … --evidence`) asks the partner at once. A final answer
 * ends the charge as the partner says, and the update answers whether the resolution agreed (for
 * `succeeded`: SUCCESSFUL whose transaction id is in the evidence; for `failed`: FAILED). PENDING,
 * `unknown` or no answer: the resolution is refused, nothing changes, the wait goes on. A SUCCESSFUL
 * whose amount or currency differ from ours succeeds (the money moved) and is flagged for review.
 */
export async function followLiveChargeUntilTheWord(
  charge: ChargeState,
  desk: AttentionDesk,
  finish: (to: ChargeStatus, failureClass: FailureClass | null) => Promise<ChargeState>,
  resolutions?: ResolutionDesk,
  continues?: PartnerWatch['continues'],
  /** A live card charge (workflows/charge-card-live.ts): the hosted page sent it at `atMs`; nothing is submitted from here. */
  submitted?: { atMs: number; acknowledged: boolean },
  /** Issue 46 (RAIL_FAILOVER_PATCH): the first submission may fail over to the next partner of the charge's route; never a card's. */
  failsOver?: AttemptNote,
): Promise<ChargeState> {
  const expiresMs = Date.parse(charge.expiresAt);
  resolutions?.open('partner');
  const answer = await awaitPartnerWord({
    paymentId: charge.id,
    product: 'collection',
    submitUntilMs: submitted ? submitted.atMs : expiresMs,
    ...(submitted ? { submittedElsewhere: { acknowledged: submitted.acknowledged } } : {}),
    ...(failsOver && !submitted ? { failsOver } : {}),
    deadlineMs: expiresMs,
    attention: (reason) => desk.flag(PARTNER_RAIL_STEP, reason),
    untilTheWord: {
      asked: () => resolutions?.requested() !== undefined,
      notFinal: (last) => {
        if (resolutions) desk.flag(PARTNER_RAIL_STEP, resolutions.refuse(last));
      },
      pastDeadline: (last) => desk.flag(PARTNER_RAIL_STEP, pastExpiryReason(charge, last)),
    },
    // Issue 43 (CHARGE_WAIT_CONTINUES_PATCH): a long wait continues as new, carrying it.
    ...(continues ? { continues } : {}),
  });
  resolutions?.close();
  switch (answer.kind) {
    case 'succeeded': {
      resolutions?.partnerSaid({ kind: 'succeeded', ...(answer.financialTransactionId ? { financialTransactionId: answer.financialTransactionId } : {}) });
      const after = await finish('succeeded', null);
      if (answer.mismatch) await review(charge, `the partner's SUCCESSFUL differs from the charge: ${answer.mismatch}`);
      return after;
    }
    case 'failed':
      resolutions?.partnerSaid({ kind: 'failed', reason: answer.reason });
      // The partner's FAILED (or its confirmation that it never received the request) at or after expires_at: the charge expired.
      return finish(Date.now() >= expiresMs ? 'expired' : 'failed', answer.failureClass);
    default:
      // untilTheWord never ends without the partner's final answer.
      throw new Error(`charge ${charge.id}: the partner's wait ended without a final answer (${answer.kind})`);
  }
}

function pastExpiryReason(charge: ChargeState, last: NotFinal): string {
  const said =
    last === 'pending' ? 'still says PENDING'
    : last === 'unknown' ? 'says it does not know the request (after acknowledging it)'
    : last === 'differs' ? 'says SUCCESSFUL for another amount or currency than the charge\'s'
    : 'did not answer';
  return (
    `expires_at ${charge.expiresAt} passed and the partner ${said} for request-to-pay ${charge.id}: the charge stays awaiting_action and the customer's hold stays where it is; ` +
    `the engine keeps asking and the charge ends as the partner says (the request-to-pay may still be approved: the protocol has no cancel)`
  );
}

function review(charge: ChargeState, reason: string) {
  return startReviewFromWorkflow({ paymentId: charge.id, product: 'collection', merchantId: charge.merchantId, environment: charge.environment, source: 'late_watch', reason });
}

/**
 * Runs started before PARTNER_DECIDES_LIVE_CHARGE_PATCH only (kept so their histories replay).
 * A live charge on the partner rail, ended only by the partner's word (issue 29,
 * workflows/partner-answer.ts): the request-to-pay goes out until `expires_at` and never after; the
 * status is followed until SUCCESSFUL or FAILED. At `expires_at` the partner is asked once more; a
 * request-to-pay still pending there (the protocol has no cancel: the customer may still approve)
 * expires the charge, and a payment review (workflows/payment-review.ts) keeps asking the partner, so
 * a late SUCCESSFUL is recorded as money that moved, never dropped.
 *
 * An operator's resolution (`charges resolve … --evidence`, required for live) stops the wait only
 * after the partner, asked once more, still has no final answer; a final answer wins and the
 * resolution is refused saying what the partner answered (workflows/charge-resolution.ts). A
 * resolved charge is watched by a payment review too, so the partner's later word is checked against
 * the operator's evidence. A SUCCESSFUL whose amount or currency differ from ours succeeds (the money
 * moved) and is flagged for review with the difference.
 */
export async function followLiveChargeToTheWord(
  charge: ChargeState,
  desk: AttentionDesk,
  finish: (to: ChargeStatus, failureClass: FailureClass | null) => Promise<ChargeState>,
  resolutions?: ResolutionDesk,
): Promise<ChargeState> {
  const expiresMs = Date.parse(charge.expiresAt);
  const review = (reason: string) =>
    startReviewFromWorkflow({ paymentId: charge.id, product: 'collection', merchantId: charge.merchantId, environment: charge.environment, source: 'late_watch', reason });
  resolutions?.open();
  const answer = await awaitPartnerWord({
    paymentId: charge.id,
    product: 'collection',
    submitUntilMs: expiresMs,
    deadlineMs: expiresMs,
    attention: (reason) => desk.flag('partner rail', reason),
    stopEarly: () => resolutions?.requested() !== undefined,
  });
  resolutions?.close();
  switch (answer.kind) {
    case 'succeeded': {
      const after = await finish('succeeded', null);
      if (answer.mismatch) await review(`the partner's SUCCESSFUL differs from the charge: ${answer.mismatch}`);
      return after;
    }
    case 'failed':
      return finish('failed', answer.failureClass);
    case 'stopped': {
      const resolved = resolutions!.requested()!;
      const after = await finish(resolved.to, resolved.failureClass);
      await review(
        `resolved by an operator as ${resolved.to} with the partner's evidence "${resolved.evidence ?? 'none'}" while the partner had no final answer; ` +
          `the engine keeps asking the partner and checks its word against that`,
      );
      return after;
    }
    case 'deadline': {
      const after = await finish('expired', UNRESOLVED_FAILURE_CLASS);
      await review(
        `expired at ${charge.expiresAt} while the partner's last status was ${answer.lastStatus}: the request-to-pay may still be approved (the protocol has no cancel); ` +
          `watching the partner for a late answer`,
      );
      return after;
    }
  }
}

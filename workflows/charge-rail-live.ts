import type { ChargeState } from '../src/domain/charge-state';
import type { ChargeStatus } from '../src/domain/charge-status';
import type { FailureClass } from '../src/domain/failure-classes';
import { UNRESOLVED_FAILURE_CLASS } from '../src/domain/sandbox-outcome';
import type { AttentionDesk } from './charge-attention';
import type { ResolutionDesk } from './charge-resolution';
import { awaitPartnerWord } from './partner-answer';
import { startReviewFromWorkflow } from './payment-review-start';

/**
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

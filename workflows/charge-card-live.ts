import { condition, setHandler } from '@temporalio/workflow';
import type { ChargeState } from '../src/domain/charge-state';
import type { ChargeStatus } from '../src/domain/charge-status';
import type { FailureClass } from '../src/domain/failure-classes';
import type { CardWindow } from '../src/domain/live-card';
import type { AttentionDesk } from './charge-attention';
import { readCardWindow } from './charge-activities';
import { followLiveChargeUntilTheWord } from './charge-rail-live';
import type { ResolutionDesk } from './charge-resolution';
import { cardSubmittedSignal } from './messages';
import { partnerCallbackSignal } from './partner-follow';
import type { PartnerWatch } from './partner-answer';

/**
 * A live card charge (issue 45, src/domain/live-card.ts). The hosted checkout page collects the card
 * and sends it to the aggregator itself, so this run never sees it:
 *
 * 1. Wait for the page's `cardSubmitted` (a wake-up; the aggregator's webhook wakes it too) until
 *    `expires_at`, then read the submission. No
 *    card by then: close the card window (one row per charge, so the page can no longer send one) and
 *    expire: nothing ever reached the aggregator. The page may win that race: then its submission is
 *    followed as if the signal had come.
 * 2. The aggregator refused the card at once (an expired card, an invalid number): its word, the
 *    charge fails (`expired` at or after `expires_at`) with the aggregator's reason.
 * 3. Otherwise the charge is followed on its reference until the aggregator's final answer, as any
 *    live charge (workflows/charge-rail-live.ts), except that nothing is ever submitted again (only
 *    the page holds the card): a submission the aggregator never acknowledged and does not know,
 *    asked once more after the page's call can no longer be in flight, failed (`partner_unavailable`).
 *    The customer's challenge (one-time code, 3-D Secure redirect) keeps it pending meanwhile.
 *
 * A run continued as new (a long wait) goes straight to step 3 with what it carried.
 */
export async function followLiveCardCharge(
  charge: ChargeState,
  desk: AttentionDesk,
  finish: (to: ChargeStatus, failureClass: FailureClass | null) => Promise<ChargeState>,
  resolutions?: ResolutionDesk,
  continues?: PartnerWatch['continues'],
): Promise<ChargeState> {
  const resume = continues?.resume;
  if (resume) return followLiveChargeUntilTheWord(charge, desk, finish, resolutions, continues, { atMs: resume.submitUntilMs, acknowledged: resume.acknowledged });
  const window = await awaitCard(charge, desk);
  if (window.state === 'closed') return finish('expired', null);
  const atExpiry = Date.now() >= Date.parse(charge.expiresAt);
  if (window.outcome === 'refused') return finish(atExpiry ? 'expired' : 'failed', window.failureClass ?? 'declined');
  const acknowledged = window.outcome === 'accepted' || window.outcome === 'duplicate';
  return followLiveChargeUntilTheWord(charge, desk, finish, resolutions, continues, { atMs: Date.parse(window.submittedAt), acknowledged });
}

/** Step 1: the page's submission, or the window closed at expiry without one. */
async function awaitCard(charge: ChargeState, desk: AttentionDesk): Promise<Exclude<CardWindow, { state: 'open' }>> {
  let woken = false;
  const wake = () => {
    woken = true;
  };
  setHandler(cardSubmittedSignal, wake);
  // The aggregator's webhook (a partner callback) wakes it too: the page's own wake-up may not have
  // reached Temporal. The partner wait below takes this signal's handler over.
  setHandler(partnerCallbackSignal, wake);
  const expiresMs = Date.parse(charge.expiresAt);
  for (;;) {
    const untilExpiry = expiresMs - Date.now();
    if (untilExpiry > 0 && !woken) await condition(() => woken, untilExpiry);
    const close = !woken;
    woken = false;
    const window = await desk.persist(close ? 'card: close the window at expires_at' : 'card: read the hosted page’s submission', () => readCardWindow({ chargeId: charge.id, close }));
    if (window.state !== 'open') return window;
  }
}

import type { FailureClass } from './failure-classes';

/**
 * A live card charge (issue 45): the hosted checkout page is the only thing that sees the card; it
 * sends it to the aggregator itself and tells the charge workflow (`cardSubmitted`, a wake-up), which
 * then follows the aggregator's word on the charge's reference as for any live charge. Without a
 * card by `expires_at` the workflow closes the card window (src/persistence/charges/card-submission-store.ts)
 * and the charge expires: nothing was ever sent. Neither the number nor the security code is ever
 * part of a workflow's history: only what is here.
 */

/** patched() id: a live card charge waits for its hosted page's card, then follows the aggregator. */
export const LIVE_CARD_CHARGE_PATCH = 'live-card-charge';

/** The signal the hosted page sends once it claimed the charge and sent the card (no payload: a wake-up). */
export const CARD_SUBMITTED_SIGNAL = 'cardSubmitted';

/** What the charge workflow reads of the page's submission (activity answer, so in its history: nothing of the card). */
export type CardWindow =
  /** No card yet (a wake-up came early). */
  | { state: 'open' }
  /** The window closed at expiry without a card: nothing was ever sent to the aggregator. */
  | { state: 'closed' }
  /**
   * The page claimed the charge at `submittedAt` and sent the card. `outcome` is the aggregator's
   * answer to it (null while the page has not recorded one): `refused` ends the charge with the
   * aggregator's reason; `no_answer` (or none) may have reached it: the status says.
   */
  | { state: 'submitted'; submittedAt: string; outcome: 'accepted' | 'duplicate' | 'refused' | 'no_answer' | null; reason?: string; failureClass?: FailureClass };

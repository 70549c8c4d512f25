import { productOfResource, type RailResource } from '../../partner-rail';
import { behaviourOf, endingOf as momoEndingOf, type Behaviour, type Timing } from '../../fake-partner/behaviours';
import type { AggregatorErrorCode } from '../errors';

export { BEHAVIOUR_BY_SUFFIX, REFUND_BEHAVIOUR_PREFIX, behaviourOf, refundBehaviourOf, type Behaviour } from '../../fake-partner/behaviours';

/**
 * What the fake aggregator plays: the MoMo fake's table (src/rail/fake-partner/behaviours.ts), by
 * the same last four digits, so operators learn one table (docs/aggregator.md, "The fake
 * aggregator"). The party is the charge's phone number or payer account, the transfer's
 * account_number (a wallet's number or a bank account); a refund plays what the payer of its charge
 * chose (`…01NN` plays `00NN`). The timings are the MoMo fake's; the failures are the aggregator's
 * codes (errors.ts) in place of MoMo's reasons.
 *
 * A bank-transfer charge's "final" moment is the customer paying (or, for the failing behaviours,
 * the bank refusing): unpaid at its `account_expiration`, it fails ACCOUNT_EXPIRED.
 */

/** MoMo's reasons of the shared endings, as the aggregator's codes. */
const FAILURE_CODE: Readonly<Record<string, AggregatorErrorCode>> = {
  NOT_ENOUGH_FUNDS: 'INSUFFICIENT_FUNDS',
  PAYEE_NOT_ALLOWED_TO_RECEIVE: 'RECIPIENT_NOT_ALLOWED',
};

export type FakeFinal = { status: 'successful' } | { status: 'failed'; code: string };

export interface FakeEnding {
  /** The final status (null: pending forever, or until a bank transfer's expiry). */
  final: FakeFinal | null;
  finalAfterMs: number;
  /** Webhooks to send, each this long after acceptance (empty: none, whatever ends it). */
  webhookDelaysMs: number[];
}

/**
 * A card charge's own behaviours, by the card number's last four digits (docs/aggregator.md, "The
 * fake aggregator"), beside the shared table (which a card plays too, `0002` refused INVALID_CARD):
 * - `0020`: an OTP challenge (validate-charge with FAKE_CARD_OTP: then successful at approveAfterMs;
 *   another OTP: failed INVALID_OTP);
 * - `0021`: a 3-D Secure redirect to the fake's page (authenticate: successful; cancel: failed
 *   CUSTOMER_DECLINED);
 * - `0022`: accepted, then failed ISSUER_DECLINED ("Do Not Honour") at approveAfterMs;
 * - `0023`: refused at once, EXPIRED_CARD, whatever the expiry says.
 * A challenge never passed fails CHARGE_TIMEOUT at challengeExpiryMs.
 */
export type CardBehaviour = 'otp_challenge' | 'redirect_challenge' | 'issuer_declined' | 'expired_card';

export const CARD_BEHAVIOUR_BY_SUFFIX: Readonly<Record<string, CardBehaviour>> = {
  '0020': 'otp_challenge',
  '0021': 'redirect_challenge',
  '0022': 'issuer_declined',
  '0023': 'expired_card',
};

/** What the fake plays for a transaction: the shared table's behaviours, and a card's own. */
export type AggregatorBehaviour = Behaviour | CardBehaviour;

/** A card charge's behaviour, by its number's last four digits: a card's own first, then the shared table. */
export function cardBehaviourOf(last4: string): AggregatorBehaviour {
  return Object.hasOwn(CARD_BEHAVIOUR_BY_SUFFIX, last4) ? CARD_BEHAVIOUR_BY_SUFFIX[last4] : behaviourOf(last4);
}

function isCardBehaviour(behaviour: AggregatorBehaviour): behaviour is CardBehaviour {
  return Object.values(CARD_BEHAVIOUR_BY_SUFFIX).includes(behaviour as CardBehaviour);
}

/** How a transaction of `resource` that plays `behaviour` ends (a refund takes the disbursement's late timing). */
export function endingOf(behaviour: AggregatorBehaviour, timing: Timing, resource: RailResource): FakeEnding {
  if (isCardBehaviour(behaviour)) {
    const at = timing.approveAfterMs;
    // A challenge's end is the customer's (cards.ts, three-ds.ts) or its expiry (books.ts); an expired card is never kept.
    if (behaviour === 'issuer_declined') return { final: { status: 'failed', code: 'ISSUER_DECLINED' }, finalAfterMs: at, webhookDelaysMs: [at] };
    return { final: null, finalAfterMs: at, webhookDelaysMs: [] };
  }
  const ending = momoEndingOf(behaviour, timing, productOfResource(resource));
  const final: FakeFinal | null = ending.final === null ? null : ending.final.status === 'SUCCESSFUL' ? { status: 'successful' } : { status: 'failed', code: FAILURE_CODE[ending.final.reason] ?? 'CUSTOMER_DECLINED' };
  return { final, finalAfterMs: ending.finalAfterMs, webhookDelaysMs: ending.callbackDelaysMs };
}

/** Whether a behaviour answers a repeated reference with 400 TRANSACTION_IN_PROGRESS (it validates before it de-duplicates) rather than 409. */
export function refusesCopies(behaviour: AggregatorBehaviour): boolean {
  return behaviour === 'duplicate_refused' || behaviour === 'pending_duplicate_refused';
}

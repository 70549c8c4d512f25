import { productOfResource, type RailResource } from '../../partner-rail';
import { endingOf as momoEndingOf, type Behaviour, type Timing } from '../../fake-partner/behaviours';
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

/** How a transaction of `resource` that plays `behaviour` ends (a refund takes the disbursement's late timing). */
export function endingOf(behaviour: Behaviour, timing: Timing, resource: RailResource): FakeEnding {
  const ending = momoEndingOf(behaviour, timing, productOfResource(resource));
  const final: FakeFinal | null = ending.final === null ? null : ending.final.status === 'SUCCESSFUL' ? { status: 'successful' } : { status: 'failed', code: FAILURE_CODE[ending.final.reason] ?? 'CUSTOMER_DECLINED' };
  return { final, finalAfterMs: ending.finalAfterMs, webhookDelaysMs: ending.callbackDelaysMs };
}

/** Whether a behaviour answers a repeated reference with 400 TRANSACTION_IN_PROGRESS (it validates before it de-duplicates) rather than 409. */
export function refusesCopies(behaviour: Behaviour): boolean {
  return behaviour === 'duplicate_refused' || behaviour === 'pending_duplicate_refused';
}

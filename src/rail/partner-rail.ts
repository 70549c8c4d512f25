import type { FailureClass } from '../domain/failure-classes';
import type { RailResource } from '../domain/rail-resource';

/**
 * The rail that moves live money (issue 20), behind one interface with two implementations: the
 * sandbox simulator (timers in the workflows, src/domain/sandbox-outcome.ts) and a mobile-money
 * partner adapter speaking a protocol modelled on the public MTN MoMo Open API
 * (src/rail/momo-adapter.ts), played locally by the fake partner (src/rail/fake-partner/).
 *
 * Every request carries a reference (`X-Reference-Id`, a UUID v4) that we choose once, store on the
 * payment before the first call, and send again on every retry: a retried request is the same
 * request, and the partner answers a second submission of a reference with `duplicate`.
 */

/** Which partner product: collections (request-to-pay, charges) or disbursements (transfer, payouts and settlements). */
export type RailProduct = 'collection' | 'disbursement';

/** What one partner reference names: `collection`, `disbursement` or `refund` (src/domain/rail-resource.ts, issue 45). */
export type { RailResource } from '../domain/rail-resource';

/** The partner product a resource belongs to: its token, credentials and statement. */
export function productOfResource(resource: RailResource): RailProduct {
  return resource === 'refund' ? 'disbursement' : resource;
}

export interface RailParty {
  /**
   * `MSISDN` (a phone number, digits only, with country code), `BANK_ACCOUNT` (`<bank code>:<account
   * number>`) or `CARD` (issue 45: a card payer, its last four digits only, e.g. `4242`: the party of
   * a card charge's refund, which repays the card the aggregator charged; a card is never a payee, and
   * its number never reaches a workflow: the charge itself goes through AggregatorCards, not `submit`).
   */
  partyIdType: 'MSISDN' | 'BANK_ACCOUNT' | 'CARD';
  partyId: string;
}

export interface RailRequest {
  /** Our reference (UUID v4), kept on the payment: the same on every retry. */
  referenceId: string;
  /** Minor units, as everywhere in the engine; the adapter converts to the partner's format. */
  amount: number;
  currency: string;
  /** Our id of the payment (`txn_…`, `po_…`, `stl_…`): the partner's `externalId`. */
  externalId: string;
  /** The payer of a request-to-pay, the payee of a transfer. */
  party: RailParty;
  /** Shown to the customer (payerMessage / payeeNote). */
  message: string;
  /**
   * A refund only: the reference of the request-to-pay it refunds (MoMo's `referenceIdToRefund`).
   * `party` is then that request-to-pay's payer, who gets the money back (MoMo's refund body names no party).
   */
  referenceIdToRefund?: string;
  /**
   * A charge only (issue 45): its `expires_at` (ISO). The aggregator's bank transfer keeps its account
   * open until then (`expires`), so the account and the charge end together.
   */
  expiresAt?: string;
}

/**
 * What the customer must do for a collection the partner accepted (issue 45: the aggregator's bank
 * transfer gives an account to pay into before an expiry). Shown on the hosted checkout page; never
 * part of a workflow's history beyond what is here (no card data ever is).
 */
export interface PaymentInstructions {
  kind: 'bank_transfer';
  bankName: string;
  accountNumber: string;
  accountName: string | null;
  /** What to pay, in minor units of `currency` (the partner may name a different amount: compare). */
  amount: number;
  currency: string;
  /** ISO instant after which the account takes no more payments for this charge. */
  expiresAt: string;
}

/** What the partner said to a submission. */
export type RailSubmitResult =
  /** Accepted for processing (HTTP 202): the answer comes by callback or status. */
  | { kind: 'accepted'; instructions?: PaymentInstructions }
  /** The partner already has this reference (a retried submission): as accepted, the status tells the rest. */
  | { kind: 'duplicate'; instructions?: PaymentInstructions }
  /**
   * Refused outright (4xx with a reason): a final failure. `retryElsewhere` (issue 46): the partner's
   * error table marks the reason as the partner's own trouble, safe and sensible to try on another
   * partner (src/rail/momo-reasons.ts MOMO_RETRY_ELSEWHERE, src/rail/aggregator/errors.ts `elsewhere`).
   */
  | { kind: 'refused'; reason: string; failureClass: FailureClass; retryElsewhere?: boolean };

/**
 * The amount and currency the partner's answer names, when it names them (a MoMo status or callback
 * body carries both): `amount` in minor units of `currency`. Absent when the body omits them or they
 * cannot be read (`amount` also when the currency has no known exponent); the caller compares them
 * with the payment's own.
 */
export interface RailStatusAmount {
  amount?: number;
  currency?: string;
}

/** What the partner says of a reference now. */
export type RailStatus =
  /** Not final yet; a bank transfer still open carries its instructions (the aggregator's verify answer). */
  | { status: 'pending'; instructions?: PaymentInstructions }
  | ({ status: 'succeeded'; financialTransactionId: string } & RailStatusAmount)
  | ({ status: 'failed'; reason: string; failureClass: FailureClass } & RailStatusAmount)
  /** The partner does not know the reference (never received: submit it again, same reference). */
  | { status: 'unknown' };

/**
 * A transient trouble talking to the partner (a 5xx, a timeout, a refused connection, a bad answer):
 * the caller retries with the same reference. Thrown by every method; `retryable` is always true.
 *
 * `notReached` (issue 46) is true only when the request provably never reached the partner: the
 * connection was refused, its name did not resolve, or it was never established within the timeout
 * (nothing was written to the partner). A timeout after sending, a reset connection or a 5xx is not
 * that: the partner may have the request. Only a not-reached submission may fail over to another
 * partner (docs/partner-rail.md, "Routing and failover").
 */
export class RailUnavailable extends Error {
  readonly retryable = true;
  constructor(message: string, readonly status?: number, readonly notReached = false) {
    super(message);
    this.name = 'RailUnavailable';
  }
}

export interface PartnerRail {
  /** `collection`: request-to-pay; `disbursement`: transfer; `refund`: refund of a request-to-pay (`referenceIdToRefund`). Idempotent per `referenceId`. */
  submit(resource: RailResource, request: RailRequest): Promise<RailSubmitResult>;
  /** The status of a reference (GET …/{referenceId}). */
  status(resource: RailResource, referenceId: string): Promise<RailStatus>;
}

/** What the API's callback route needs to check a callback (src/rail/momo-callback.ts): the secret its URLs are signed with. */
export interface PartnerCallbackSettings {
  callbackSecret: string;
  /** At most one signal per payment per this window (default CALLBACK_DEBOUNCE_MS, src/persistence/partner/callback-signal-store.ts); tests shorten it. */
  debounceMs?: number;
  /** At most this many signals in a payment's life (default CALLBACK_SIGNAL_CAP); tests lower it. */
  signalCap?: number;
}

/** A callback from the partner, once its authenticity is checked (src/rail/momo-callback.ts). */
export interface RailCallback {
  product: RailResource;
  referenceId: string;
  /** What the callback body claims; the workflow confirms it with `status` before acting on it. */
  claimed: RailStatus;
}

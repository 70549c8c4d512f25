import { statementAmount } from '../amount';
import { BANK_TRANSFER_TYPE, WEBHOOK_EVENT, type BankTransferAuthorization, type ChargeData, type RefundData, type TransferData, type WebhookBody } from '../protocol';
import { CARD_PATH, CARD_TYPE, CARD_WEBHOOK_EVENT_TYPE, type CardAuthorization, type CardData } from '../card-protocol';
import { DUPLICATE_REFERENCE, errorAnswer } from '../errors';
import type { FakeAggregatorTransaction } from './books';
import { refusesCopies } from './behaviours';

/** The fake's kept transactions in the aggregator's words (protocol.ts): its answers' `data` and its webhooks' bodies. */

/** Minor units as the aggregator's JSON number. */
export function wireAmount(minorUnits: number, currency: string): number {
  return Number(statementAmount(minorUnits, currency));
}

/** The fake's OTP: validate-charge takes this one only (docs/aggregator.md, "The fake aggregator"). */
export const FAKE_CARD_OTP = '123456';

/** What a charge awaiting an OTP says to the customer (its `processor_response`). */
export const FAKE_OTP_PROMPT = `Enter the OTP sent to the phone number registered with your card (the fake aggregator's OTP is ${FAKE_CARD_OTP})`;

/** A card charge's `meta.authorization` while its challenge awaits the customer. */
function cardAuthorizationOf(t: FakeAggregatorTransaction): CardAuthorization | undefined {
  if (!t.challenge || t.challenge.state !== 'awaiting' || t.status !== 'pending') return undefined;
  if (t.challenge.mode === 'otp') return { mode: 'otp', endpoint: CARD_PATH.validateCharge };
  return t.challenge.url ? { mode: 'redirect', redirect: t.challenge.url } : undefined;
}

/** A charge's `card`: the fake's record of it, as Flutterwave shows a card. */
export function cardView(t: FakeAggregatorTransaction): CardData | undefined {
  if (!t.card) return undefined;
  return { first_6digits: t.card.first6, last_4digits: t.card.last4, issuer: 'FAKE AGGREGATOR TEST ISSUER', country: 'GH', type: t.card.brand === 'amex' ? 'AMEX' : t.card.brand.toUpperCase(), token: t.card.token, expiry: t.card.expiry };
}

/** A charge's `meta.authorization`, while open: a bank transfer's account to pay into, a card's OTP or 3-D Secure step. */
export function authorizationOf(t: FakeAggregatorTransaction): BankTransferAuthorization | CardAuthorization | undefined {
  if (t.card) return cardAuthorizationOf(t);
  if (!t.instructions || t.status !== 'pending') return undefined;
  const amount = wireAmount(t.askedAmount, t.currency);
  const expiresAt = new Date(t.instructions.expiresAt).toISOString();
  return {
    mode: 'banktransfer',
    transfer_reference: t.flwRef,
    transfer_account: t.instructions.accountNumber,
    transfer_bank: t.instructions.bankName,
    transfer_account_name: t.instructions.accountName,
    transfer_amount: amount,
    transfer_note: `Transfer exactly ${amount} ${t.currency} to ${t.instructions.accountNumber} before ${expiresAt}`,
    account_expiration: expiresAt,
  };
}

/** A pending charge's words: what the customer is to do. */
function pendingWordsOf(t: FakeAggregatorTransaction): string {
  if (t.paymentType === BANK_TRANSFER_TYPE) return 'Awaiting the customer\u2019s transfer';
  if (t.challenge?.state === 'awaiting') return t.challenge.mode === 'otp' ? FAKE_OTP_PROMPT : 'Redirect the customer to authenticate the payment (3-D Secure)';
  return t.paymentType === CARD_TYPE ? 'Awaiting the card issuer' : 'Awaiting the customer\u2019s authorization';
}

export function chargeView(t: FakeAggregatorTransaction): ChargeData {
  const authorization = authorizationOf(t);
  const pendingWords = pendingWordsOf(t);
  const card = cardView(t);
  return {
    id: t.id,
    tx_ref: t.referenceId,
    flw_ref: t.flwRef,
    amount: wireAmount(t.amount, t.currency),
    charged_amount: wireAmount(t.amount, t.currency),
    currency: t.currency,
    status: t.status,
    payment_type: t.paymentType,
    processor_response: t.status === 'successful' ? 'Approved' : t.status === 'failed' ? (t.failure?.message ?? '') : pendingWords,
    ...(t.failure ? { failure_code: t.failure.code } : {}),
    narration: t.narration,
    created_at: new Date(t.acceptedAt).toISOString(),
    ...(card ? { card } : {}),
    meta: { external_id: t.externalId, ...(authorization ? { authorization } : {}) },
  };
}

export function transferView(t: FakeAggregatorTransaction, created = false): TransferData {
  return {
    id: t.id,
    account_number: t.partyKind === 'BANK_ACCOUNT' ? t.partyId.slice(t.partyId.indexOf(':') + 1) : t.partyId,
    bank_code: t.accountBank ?? '',
    full_name: t.beneficiaryName ?? 'N/A',
    created_at: new Date(t.acceptedAt).toISOString(),
    currency: t.currency,
    amount: wireAmount(t.amount, t.currency),
    fee: 0,
    status: t.status === 'successful' ? 'SUCCESSFUL' : t.status === 'failed' ? 'FAILED' : created ? 'NEW' : 'PENDING',
    reference: t.referenceId,
    narration: t.narration,
    complete_message: t.status === 'successful' ? 'Transaction was successful' : (t.failure?.message ?? ''),
    ...(t.failure ? { failure_code: t.failure.code } : {}),
    meta: { external_id: t.externalId },
  };
}

export function refundView(t: FakeAggregatorTransaction): RefundData {
  return {
    id: t.id,
    tx_id: t.charge?.id ?? 0,
    tx_ref: t.charge?.referenceId ?? '',
    flw_ref: t.flwRef,
    reference: t.referenceId,
    amount_refunded: wireAmount(t.amount, t.currency),
    currency: t.currency,
    status: t.status === 'successful' ? 'completed' : t.status,
    comments: t.narration,
    complete_message: t.status === 'successful' ? 'Refund completed' : (t.failure?.message ?? ''),
    ...(t.failure ? { failure_code: t.failure.code } : {}),
    created_at: new Date(t.acceptedAt).toISOString(),
    meta: { external_id: t.externalId },
  };
}

export function viewOf(t: FakeAggregatorTransaction): ChargeData | TransferData | RefundData {
  return t.resource === 'collection' ? chargeView(t) : t.resource === 'disbursement' ? transferView(t) : refundView(t);
}

export function webhookBody(t: FakeAggregatorTransaction): WebhookBody {
  const chargeType = t.paymentType === BANK_TRANSFER_TYPE ? 'BANK_TRANSFER_TRANSACTION' : t.paymentType === CARD_TYPE ? CARD_WEBHOOK_EVENT_TYPE : 'MOBILEMONEY_TRANSACTION';
  const type = t.resource === 'collection' ? chargeType : t.resource === 'disbursement' ? 'Transfer' : 'Refund';
  return { event: WEBHOOK_EVENT[t.resource], 'event.type': type, data: viewOf(t) };
}

/** An HTTP answer of the fake: its status, its JSON body, and how long it waits before sending it (`slow`). */
export interface Reply {
  status: number;
  body?: unknown;
  delayMs?: number;
}

/**
 * The answer to a second submission of a kept reference: 409 DUPLICATE_REFERENCE with the kept
 * object (and a bank transfer's instructions, so a retry still shows the customer where to pay), or,
 * for `0013`/`0014` (an aggregator that validates before it de-duplicates), 400 TRANSACTION_IN_PROGRESS.
 */
export function duplicateReply(t: FakeAggregatorTransaction): Reply {
  if (refusesCopies(t.behaviour)) return errorAnswer('TRANSACTION_IN_PROGRESS');
  const authorization = authorizationOf(t);
  return {
    status: DUPLICATE_REFERENCE.httpStatus,
    body: { status: 'error', code: DUPLICATE_REFERENCE.code, message: DUPLICATE_REFERENCE.message, data: viewOf(t), ...(authorization ? { meta: { authorization } } : {}) },
  };
}

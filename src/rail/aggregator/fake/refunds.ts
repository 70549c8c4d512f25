import { errorAnswer } from '../errors';
import { statementAmount } from '../amount';
import { refundBehaviourOf } from './behaviours';
import type { SubmitContext } from './books';
import { amountField, externalIdOf, invalid, isBody, isReply, referenceField, textField } from './fields';
import { duplicateReply, refundView, type Reply } from './views';

/**
 * `POST /v3/transactions/{id}/refund` (docs/aggregator.md, "Refunds"), checked as the aggregator
 * would against its books, in this order:
 * - `reference` (ours, the refund's idempotency key: a deviation) required; a kept one is a duplicate
 *   (409, or 400 TRANSACTION_IN_PROGRESS for `0113`/`0114`) before anything else is checked;
 * - the charge `{id}`: kept (404 TRANSACTION_NOT_FOUND), successful (REFUND_NOT_ALLOWED), in the
 *   refund's currency (REFUND_CURRENCY_MISMATCH);
 * - the amount (required here: a deviation, Flutterwave refunds all when it is left out), and with
 *   the charge's refunds not failed (pending ones included: they may still pay) at most the charge's
 *   amount as the aggregator recorded it (REFUND_EXCEEDS_AMOUNT; exactly all of it is allowed);
 * then it plays what the charge's payer chose (`…01NN` plays `00NN`, a card's by its last four
 * digits), paying that payer back (a card charge: the card).
 */
export function submitRefund({ books, slowMs }: SubmitContext, chargeId: number, body: unknown): Reply {
  if (!isBody(body)) return invalid('the body must be a JSON object');
  const reference = referenceField(body, 'reference');
  if (isReply(reference)) return reference;
  const known = books.get('refund', reference);
  if (known) return duplicateReply(known);

  const charge = books.chargeById(chargeId);
  if (!charge) return errorAnswer('TRANSACTION_NOT_FOUND');
  if (charge.status !== 'successful') return errorAnswer('REFUND_NOT_ALLOWED', `Only successful transactions can be refunded: transaction ${chargeId} is ${charge.status}`);
  const currency = body.currency === undefined ? charge.currency : body.currency;
  if (currency !== charge.currency) return errorAnswer('REFUND_CURRENCY_MISMATCH', `Refund currency is not the transaction's currency: ${charge.currency}`);
  const amount = amountField(body, charge.currency);
  if (isReply(amount)) return amount;
  const refunded = books
    .refundsOf(charge.referenceId)
    .filter((r) => r.status !== 'failed')
    .reduce((sum, r) => sum + r.askedAmount, 0);
  if (refunded + amount > charge.amount) {
    const left = Math.max(0, charge.amount - refunded);
    return errorAnswer('REFUND_EXCEEDS_AMOUNT', `Refund amount exceeds the amount left to refund: ${statementAmount(left, charge.currency)} ${charge.currency} of ${statementAmount(charge.amount, charge.currency)}`);
  }

  const behaviour = refundBehaviourOf(charge.partyId);
  if (behaviour === 'refuse_now') return errorAnswer(charge.partyKind === 'BANK_ACCOUNT' ? 'INVALID_ACCOUNT' : charge.partyKind === 'CARD' ? 'INVALID_CARD' : 'INVALID_PHONE');
  if (behaviour === 'error_once' && !books.failedOnce('refund', reference)) return errorAnswer('PROCESSOR_ERROR');
  const refund = books.accept({
    resource: 'refund',
    referenceId: reference,
    behaviour,
    paymentType: 'refund',
    partyId: charge.partyId,
    partyKind: charge.partyKind,
    accountBank: charge.accountBank,
    beneficiaryName: null,
    externalId: externalIdOf(body),
    narration: textField(body, 'comments'),
    currency: charge.currency,
    askedAmount: amount,
    charge: { referenceId: charge.referenceId, id: charge.id },
    webhookUrl: null,
  });
  return { status: 200, body: { status: 'success', message: 'Transaction refund initiated', data: refundView(refund) }, ...(behaviour === 'slow' ? { delayMs: slowMs } : {}) };
}

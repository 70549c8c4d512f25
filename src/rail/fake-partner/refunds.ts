import { isReferenceId, type MomoSubmission } from '../momo-protocol';
import { formatMomoAmount, parseMomoAmount } from '../momo-amount';
import { REFUND_REFUSAL } from '../momo-reasons';
import { refundBehaviourOf, type Behaviour } from './behaviours';
import { submissionFields } from './submission';
import type { FakeTransactions } from './transactions';

/** A refund the fake takes (its kept body and what it plays), or its refusal (nothing kept). */
export type RefundVerdict =
  | { accepted: MomoSubmission; behaviour: Behaviour }
  | { refused: { status: number; code: string; message: string } };

const refused = (status: number, code: string, message: string): RefundVerdict => ({ refused: { status, code, message } });

/**
 * A refund's body (`POST /disbursement/v1_0/refund`, issue 45), checked as a partner would check it
 * against its own books (docs/partner-rail.md, "Refunds"):
 * - the body: amount, currency, externalId as any submission, and `referenceIdToRefund` a UUID
 *   (400 `INVALID_REQUEST`); no party is read (MoMo's refund names none);
 * - `referenceIdToRefund` names a request-to-pay the fake keeps (404 `REFERENCE_ID_TO_REFUND_NOT_FOUND`),
 *   SUCCESSFUL (400 `NOT_ALLOWED`), in the refund's currency (400 `INVALID_CURRENCY`);
 * - its refunds not FAILED (PENDING ones included: they may still pay), at the amounts asked, and this
 *   one come to at most the request-to-pay's amount as the partner's record has it (400
 *   `REFUND_EXCEEDS_ORIGINAL_AMOUNT`).
 * A second submission of a refund's reference never reaches this: it is a duplicate (409, or 400 for
 * `0113`/`0114`), answered before, as for every submission.
 *
 * The refund kept names, as `payee`, the request-to-pay's payer (who gets the money back: its status
 * answer has a transfer's shape and its statement line the payer as its party), and plays what that
 * payer chooses (refundBehaviourOf: `…01NN` plays `00NN`).
 */
export function checkRefund(transactions: FakeTransactions, body: unknown): RefundVerdict {
  const fields = submissionFields(body);
  if (typeof fields === 'string') return refused(400, 'INVALID_REQUEST', fields);
  const referenceIdToRefund = (body as Record<string, unknown>).referenceIdToRefund;
  if (!isReferenceId(referenceIdToRefund)) return refused(400, 'INVALID_REQUEST', 'referenceIdToRefund must be the X-Reference-Id (a UUID) of the request-to-pay to refund');

  const original = transactions.get('collection', referenceIdToRefund);
  if (!original) return refused(404, REFUND_REFUSAL.unknownOriginal, `No request-to-pay ${referenceIdToRefund} to refund.`);
  if (original.state.status !== 'SUCCESSFUL') return refused(400, REFUND_REFUSAL.notSuccessful, `The request-to-pay ${referenceIdToRefund} is ${original.state.status}: only a SUCCESSFUL one can be refunded.`);
  const { currency } = original.state;
  if (fields.currency !== currency) return refused(400, REFUND_REFUSAL.otherCurrency, `The request-to-pay ${referenceIdToRefund} is in ${currency}, the refund in ${fields.currency}.`);

  const asked = parseMomoAmount(fields.amount, currency);
  const paid = parseMomoAmount(original.state.amount, currency);
  if (asked === undefined || paid === undefined) return refused(400, 'INVALID_REQUEST', `amount ${fields.amount} is not an amount of ${currency}`);
  const refunded = transactions
    .refundsOf(referenceIdToRefund)
    .filter((refund) => refund.state.status !== 'FAILED')
    .reduce((sum, refund) => sum + (parseMomoAmount(refund.askedAmount, currency) ?? 0), 0);
  if (refunded + asked > paid) {
    return refused(400, REFUND_REFUSAL.exceedsOriginal, `The request-to-pay ${referenceIdToRefund} paid ${original.state.amount} ${currency}, its refunds not FAILED come to ${refunded === 0 ? 'nothing' : `${formatMomoAmount(refunded, currency)} ${currency}`}, and this one asks ${fields.amount} ${currency}.`);
  }

  const payee = original.state.payer;
  return {
    accepted: { ...fields, referenceIdToRefund, ...(payee ? { payee: { ...payee } } : {}) },
    behaviour: refundBehaviourOf(payee?.partyId ?? ''),
  };
}

import { errorAnswer } from '../errors';
import { WALLET_NETWORK_CODES } from '../protocol';
import { behaviourOf } from './behaviours';
import type { SubmitContext } from './books';
import { ACCOUNT_NUMBER, BANK_CODE, PHONE, amountField, currencyField, externalIdOf, invalid, isBody, isReply, referenceField, textField } from './fields';
import { duplicateReply, transferView, type Reply } from './views';

/**
 * `POST /v3/transfers` (docs/aggregator.md, "Disbursements"): the reference (a kept one is a
 * duplicate before anything else is checked), the currency, the amount, `account_bank` (a bank code,
 * or a wallet network: MTN, VODAFONE, AIRTELTIGO, TELECEL, MPS, FMM) and `account_number` (a bank
 * account, or the wallet's phone number), an optional `callback_url`; then the behaviour of the
 * account number's last four digits. Accepted: 200 `Transfer Queued Successfully`, status NEW.
 */
export function submitTransfer({ books, slowMs, declining }: SubmitContext, body: unknown): Reply {
  if (!isBody(body)) return invalid('the body must be a JSON object');
  const reference = referenceField(body, 'reference');
  if (isReply(reference)) return reference;
  const known = books.get('disbursement', reference);
  if (known) return duplicateReply(known);
  if (declining?.()) return errorAnswer('SERVICE_DECLINING');

  const currency = currencyField(body);
  if (isReply(currency)) return currency;
  const amount = amountField(body, currency);
  if (isReply(amount)) return amount;
  const bank = body.account_bank;
  if (typeof bank !== 'string' || !BANK_CODE.test(bank)) return errorAnswer('INVALID_BANK');
  const wallet = WALLET_NETWORK_CODES.has(bank.toUpperCase());
  const account = body.account_number;
  if (wallet && (typeof account !== 'string' || !PHONE.test(account))) return errorAnswer('INVALID_PHONE');
  if (typeof account !== 'string' || !ACCOUNT_NUMBER.test(account)) return errorAnswer('INVALID_ACCOUNT');
  const callbackUrl = body.callback_url;
  if (callbackUrl !== undefined && (typeof callbackUrl !== 'string' || !/^https?:\/\/[^/\s]+/i.test(callbackUrl))) return invalid('callback_url must be an http(s) URL');

  const partyId = wallet ? account : `${bank}:${account}`;
  const behaviour = behaviourOf(partyId);
  if (behaviour === 'refuse_now') return errorAnswer(wallet ? 'INVALID_PHONE' : 'INVALID_ACCOUNT');
  if (behaviour === 'error_once' && !books.failedOnce('disbursement', reference)) return errorAnswer('PROCESSOR_ERROR');
  const transfer = books.accept({
    resource: 'disbursement',
    referenceId: reference,
    behaviour,
    paymentType: 'transfer',
    partyId,
    partyKind: wallet ? 'MSISDN' : 'BANK_ACCOUNT',
    accountBank: wallet ? bank.toUpperCase() : bank,
    beneficiaryName: textField(body, 'beneficiary_name', 100) || null,
    externalId: externalIdOf(body),
    narration: textField(body, 'narration'),
    currency,
    askedAmount: amount,
    charge: null,
    webhookUrl: typeof callbackUrl === 'string' ? callbackUrl : null,
  });
  return { status: 200, body: { status: 'success', message: 'Transfer Queued Successfully', data: transferView(transfer, true) }, ...(behaviour === 'slow' ? { delayMs: slowMs } : {}) };
}

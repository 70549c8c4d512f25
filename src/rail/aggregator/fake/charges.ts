import { errorAnswer } from '../errors';
import { BANK_TRANSFER_TYPE, GHANA_NETWORKS, MAX_BANK_TRANSFER_EXPIRES_S, MOBILE_MONEY_CHARGE_TYPE } from '../protocol';
import { behaviourOf } from './behaviours';
import type { SubmitContext } from './books';
import { ACCOUNT_NUMBER, BANK_CODE, PHONE, amountField, currencyField, externalIdOf, invalid, isBody, isReply, referenceField, textField } from './fields';
import { authorizationOf, chargeView, duplicateReply, type Reply } from './views';

const GHANA_CHARGE_NETWORKS = new Set(GHANA_NETWORKS.map((n) => n.charge));

/**
 * `POST /v3/charges?type=…` (docs/aggregator.md, "Collections"), but `type=card` (cards.ts): checked
 * as the aggregator would, in this order: the type (an unknown one: UNSUPPORTED_PAYMENT_TYPE), the tx_ref, a tx_ref already kept (a duplicate, before anything else,
 * so a retry is never refused for its body), then the currency (the type's), the amount, the payer
 * (a phone number and, in Ghana, its network; a bank transfer's payer account), then the behaviour
 * of the payer's last four digits. Accepted: 200 `Charge initiated` with the pending charge, and a
 * bank transfer's account to pay into as `meta.authorization`.
 */
export function submitCharge({ books, slowMs, declining }: SubmitContext, type: string | null, body: unknown): Reply {
  const bankTransfer = type === BANK_TRANSFER_TYPE;
  const currencies = Object.entries(MOBILE_MONEY_CHARGE_TYPE).filter(([, t]) => t === type).map(([c]) => c);
  if (!bankTransfer && currencies.length === 0) return errorAnswer('UNSUPPORTED_PAYMENT_TYPE', `Invalid charge type "${(type ?? '').slice(0, 40)}"`);
  if (!isBody(body)) return invalid('the body must be a JSON object');
  const txRef = referenceField(body, 'tx_ref');
  if (isReply(txRef)) return txRef;
  const known = books.get('collection', txRef);
  if (known) return duplicateReply(known);
  if (declining?.()) return errorAnswer('SERVICE_DECLINING');

  const currency = currencyField(body);
  if (isReply(currency)) return currency;
  if (!bankTransfer && !currencies.includes(currency)) return errorAnswer('UNSUPPORTED_CURRENCY', `Currency ${currency} is not supported for ${type}`);
  const amount = amountField(body, currency);
  if (isReply(amount)) return amount;

  let partyId: string;
  let accountBank: string | null;
  if (bankTransfer) {
    const bank = body.account_bank;
    const account = body.account_number;
    // The payer's bank is optional: the money comes into the account this answer gives.
    if (bank !== undefined && (typeof bank !== 'string' || !BANK_CODE.test(bank))) return errorAnswer('INVALID_BANK');
    if (typeof account !== 'string' || !ACCOUNT_NUMBER.test(account)) return errorAnswer('INVALID_ACCOUNT');
    partyId = typeof bank === 'string' ? `${bank}:${account}` : account;
    accountBank = typeof bank === 'string' ? bank : null;
  } else {
    const phone = body.phone_number;
    if (typeof phone !== 'string' || !PHONE.test(phone)) return errorAnswer('INVALID_PHONE');
    accountBank = null;
    if (currency === 'GHS') {
      if (typeof body.network !== 'string' || !GHANA_CHARGE_NETWORKS.has(body.network.toUpperCase())) return invalid(`network must be one of ${[...GHANA_CHARGE_NETWORKS].join(', ')}`);
      accountBank = body.network.toUpperCase();
    }
    if (type === MOBILE_MONEY_CHARGE_TYPE.XOF && (typeof body.country !== 'string' || !/^[A-Z]{2}$/.test(body.country))) return invalid('country is required for a francophone mobile-money charge');
    partyId = phone;
  }

  // A bank transfer's `expires`: the seconds its account stays open (Flutterwave: at most 432000, 5 days).
  const expires = body.expires;
  if (expires !== undefined && (!bankTransfer || typeof expires !== 'number' || !Number.isInteger(expires) || expires < 1 || expires > MAX_BANK_TRANSFER_EXPIRES_S)) {
    return invalid(`expires must be a whole number of seconds from 1 to ${MAX_BANK_TRANSFER_EXPIRES_S}, for a bank transfer only`);
  }

  const behaviour = behaviourOf(partyId);
  if (behaviour === 'refuse_now') return errorAnswer(bankTransfer ? 'INVALID_ACCOUNT' : 'INVALID_PHONE');
  if (behaviour === 'error_once' && !books.failedOnce('collection', txRef)) return errorAnswer('PROCESSOR_ERROR');
  const charge = books.accept({
    resource: 'collection',
    referenceId: txRef,
    behaviour,
    paymentType: bankTransfer ? BANK_TRANSFER_TYPE : (type as string),
    partyId,
    partyKind: bankTransfer ? 'BANK_ACCOUNT' : 'MSISDN',
    accountBank,
    beneficiaryName: null,
    externalId: externalIdOf(body),
    narration: textField(body, 'narration'),
    currency,
    askedAmount: amount,
    charge: null,
    webhookUrl: null,
    ...(typeof expires === 'number' ? { openForMs: expires * 1000 } : {}),
  });
  const authorization = authorizationOf(charge);
  return { status: 200, body: { status: 'success', message: 'Charge initiated', data: chargeView(charge), ...(authorization ? { meta: { authorization } } : {}) }, ...(behaviour === 'slow' ? { delayMs: slowMs } : {}) };
}

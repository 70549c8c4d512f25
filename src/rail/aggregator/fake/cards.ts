import { randomBytes } from 'node:crypto';
import { errorAnswer } from '../errors';
import { decryptCardPayload } from '../card-crypto';
import { cardBrand, isCardNumber, isCvv, isExpired, isExpiry } from '../card-input';
import { CARD_PATH, CARD_TYPE } from '../card-protocol';
import { cardBehaviourOf } from './behaviours';
import type { FakeBooks, FakeCard, FakeChallenge, SubmitContext } from './books';
import { amountField, currencyField, externalIdOf, invalid, isBody, isReply, referenceField, textField } from './fields';
import { authorizationOf, chargeView, duplicateReply, FAKE_CARD_OTP, type Reply } from './views';

/** What the fake needs to take cards: whether the account takes them, the key their payload is encrypted with, its own address (for its 3-D Secure page). */
export interface FakeCardSettings {
  enabled: boolean;
  encryptionKey: string;
  baseUrl: () => string;
}

/**
 * `POST /v3/charges?type=card` `{client}` (docs/aggregator.md, "Cards"), checked as the aggregator
 * would, in this order: cards on the account (CARD_NOT_AVAILABLE), `client` decrypted with the
 * encryption key (ENCRYPTION_FAILED), the tx_ref (a kept one is a duplicate before anything else),
 * the currency, the amount, the card (a Luhn-valid 12-19 digit number and a 3-4 digit CVV:
 * INVALID_CARD; an expiry in the past: EXPIRED_CARD), the redirect_url, then the behaviour of the
 * number's last four digits (`0002` INVALID_CARD, `0023` EXPIRED_CARD, `0020` an OTP, `0021` a 3-D
 * Secure page, `0022` an issuer's decline, the rest as the shared table).
 *
 * The number and the CVV live in this function's variables only: the fake keeps the brand, the first
 * six and last four digits, the expiry and a token of its own, and never logs or records the payload.
 */
export function submitCardCharge({ books, slowMs }: SubmitContext, cards: FakeCardSettings, body: unknown): Reply {
  if (!cards.enabled) return errorAnswer('CARD_NOT_AVAILABLE');
  if (!isBody(body) || typeof body.client !== 'string' || body.client === '') return invalid('client is required: the card payload, encrypted');
  const payload = decryptCardPayload(cards.encryptionKey, body.client);
  if (!isBody(payload)) return errorAnswer('ENCRYPTION_FAILED');
  const txRef = referenceField(payload, 'tx_ref');
  if (isReply(txRef)) return txRef;
  const known = books.get('collection', txRef);
  if (known) return duplicateReply(known);

  const currency = currencyField(payload);
  if (isReply(currency)) return currency;
  const amount = amountField(payload, currency);
  if (isReply(amount)) return amount;
  const number = typeof payload.card_number === 'string' ? payload.card_number.replace(/[\s-]+/g, '') : '';
  if (!isCardNumber(number) || typeof payload.cvv !== 'string' || !isCvv(payload.cvv)) return errorAnswer('INVALID_CARD');
  const month = twoDigits(payload.expiry_month);
  const year = twoDigits(payload.expiry_year);
  if (month === undefined || year === undefined || !isExpiry(month, 2000 + year)) return invalid('expiry_month and expiry_year must be two digits each (MM, YY)');
  if (isExpired(month, 2000 + year, new Date())) return errorAnswer('EXPIRED_CARD');
  const redirectUrl = payload.redirect_url;
  if (typeof redirectUrl !== 'string' || !/^https?:\/\/[^/\s]+/i.test(redirectUrl) || redirectUrl.length > 2048) return invalid('redirect_url must be an http(s) URL');

  const last4 = number.slice(-4);
  const behaviour = cardBehaviourOf(last4);
  if (behaviour === 'refuse_now') return errorAnswer('INVALID_CARD');
  if (behaviour === 'expired_card') return errorAnswer('EXPIRED_CARD');
  if (behaviour === 'error_once' && !books.failedOnce('collection', txRef)) return errorAnswer('PROCESSOR_ERROR');
  const card: FakeCard = {
    brand: cardBrand(number),
    first6: number.slice(0, 6),
    last4,
    token: `flw-t1nf-${randomBytes(12).toString('hex')}-m03k`,
    expiry: `${String(month).padStart(2, '0')}/${String(year).padStart(2, '0')}`,
  };
  const challenge: FakeChallenge | null = behaviour === 'otp_challenge' ? { mode: 'otp', state: 'awaiting', url: null } : behaviour === 'redirect_challenge' ? { mode: 'redirect', state: 'awaiting', url: null } : null;
  const charge = books.accept({
    resource: 'collection',
    referenceId: txRef,
    behaviour,
    paymentType: CARD_TYPE,
    partyId: `${card.first6}******${card.last4}`,
    partyKind: 'CARD',
    accountBank: null,
    beneficiaryName: null,
    externalId: externalIdOf(payload),
    narration: textField(payload, 'narration'),
    currency,
    askedAmount: amount,
    charge: null,
    webhookUrl: null,
    card,
    challenge,
    redirectUrl,
  });
  if (charge.challenge?.mode === 'redirect') charge.challenge.url = `${cards.baseUrl()}${CARD_PATH.fakeThreeDs}${encodeURIComponent(charge.flwRef)}`;
  const authorization = authorizationOf(charge);
  return { status: 200, body: { status: 'success', message: 'Charge initiated', data: chargeView(charge), ...(authorization ? { meta: { authorization } } : {}) }, ...(behaviour === 'slow' ? { delayMs: slowMs } : {}) };
}

/**
 * `POST /v3/validate-charge` `{otp, flw_ref, type: 'card'}`: the customer's OTP for a charge awaiting
 * one. FAKE_CARD_OTP passes it (successful at approveAfterMs, one webhook); any other fails the
 * charge (400 INVALID_OTP, the charge failed INVALID_OTP, one webhook). A charge whose OTP step is
 * over answers 200 with the charge as it is (a retried validation changes nothing); one that awaits
 * no OTP, 400 INVALID_REQUEST; an unknown flw_ref, 404 TRANSACTION_NOT_FOUND.
 */
export function validateCharge(books: FakeBooks, body: unknown): Reply {
  if (!isBody(body)) return invalid('the body must be a JSON object');
  if (typeof body.flw_ref !== 'string' || body.flw_ref === '') return invalid('flw_ref is required');
  if (typeof body.otp !== 'string' || body.otp === '') return invalid('otp is required');
  if (body.type !== undefined && body.type !== CARD_TYPE) return invalid('type must be card');
  const charge = books.chargeByFlwRef(body.flw_ref);
  if (!charge) return errorAnswer('TRANSACTION_NOT_FOUND');
  if (charge.challenge?.mode !== 'otp') return invalid('This charge awaits no OTP');
  if (charge.challenge.state === 'awaiting' && charge.status === 'pending') {
    if (body.otp !== FAKE_CARD_OTP) {
      books.failChallenge(charge, 'failed', 'INVALID_OTP');
      return errorAnswer('INVALID_OTP');
    }
    books.passChallenge(charge, 'after_approval');
  }
  return { status: 200, body: { status: 'success', message: 'Charge validated', data: chargeView(charge) } };
}

function twoDigits(value: unknown): number | undefined {
  const text = typeof value === 'number' && Number.isInteger(value) ? String(value).padStart(2, '0') : value;
  return typeof text === 'string' && /^[0-9]{2}$/.test(text) ? Number(text) : undefined;
}

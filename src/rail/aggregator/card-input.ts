import cardValidator from 'card-validator';
import luhn10 from 'card-validator/dist/luhn-10';

/**
 * A card as the customer typed it on the hosted checkout page, and what may be said of it without
 * any network call (docs/aggregator.md, "Cards"): its brand, whether it can be sent at all. Shared by
 * the card client (card.ts) and the fake aggregator, which checks a decrypted card the same way.
 *
 * Nothing here keeps, logs or repeats a card number or a CVV: every message is the customer's words
 * for what is wrong, never the value.
 */
export interface CardInput {
  /** The card number (PAN); spaces and dashes are ignored. */
  number: string;
  /** 1 to 12. */
  expiryMonth: number;
  /** Four digits (2031). */
  expiryYear: number;
  /** The security code: 3 or 4 digits. */
  cvv: string;
}

/** The shortest and longest card numbers (ISO/IEC 7812). */
export const CARD_NUMBER_DIGITS = { min: 12, max: 19 } as const;

/** credit-card-type's names where ours are shorter. */
const BRAND_NAMES: Readonly<Record<string, string>> = { 'american-express': 'amex', 'diners-club': 'diners' };

/** The number's digits: spaces and dashes dropped. */
export function cardDigits(number: string): string {
  return number.replace(/[\s-]+/g, '');
}

/** The card number's last four digits. */
export function lastFour(number: string): string {
  return cardDigits(number).slice(-4);
}

/**
 * The card's brand from its number's prefix, lower case (`visa`, `mastercard`, `verve`, `amex`,
 * `discover`, `unionpay`, …), by braintree's card-validator; `unknown` when no single brand matches.
 */
export function cardBrand(number: string): string {
  const type = cardValidator.number(cardDigits(number)).card?.type;
  return type ? (BRAND_NAMES[type] ?? type) : 'unknown';
}

/** Whether a number is 12 to 19 digits and passes the Luhn check (card-validator's). */
export function isCardNumber(number: string): boolean {
  const digits = cardDigits(number);
  return new RegExp(`^[0-9]{${CARD_NUMBER_DIGITS.min},${CARD_NUMBER_DIGITS.max}}$`).test(digits) && luhn10(digits);
}

/** Whether a month and four-digit year name a real expiry. */
export function isExpiry(month: number, year: number): boolean {
  return Number.isInteger(month) && month >= 1 && month <= 12 && Number.isInteger(year) && year >= 2000 && year <= 2099;
}

/** Whether a card expiring at the end of `month`/`year` has expired at `now` (UTC). */
export function isExpired(month: number, year: number, now: Date): boolean {
  const nowYear = now.getUTCFullYear();
  return year < nowYear || (year === nowYear && month < now.getUTCMonth() + 1);
}

export function isCvv(cvv: string): boolean {
  return /^[0-9]{3,4}$/.test(cvv);
}

export const CARD_PROBLEMS = {
  number: 'The card number is not valid: check it and try again.',
  expiry: 'The expiry date is not valid: enter the month and year printed on the card.',
  expired: 'This card has expired: use another card.',
  cvv: 'The security code (CVV) must be the 3 or 4 digits on the card.',
} as const;

/**
 * A customer-facing reason why the card cannot be sent, or null: a number that is not 12 to 19
 * digits passing the Luhn check, an expiry that is not a month and a four-digit year, an expiry in
 * the past (a card is good to the end of its expiry month, UTC), a CVV that is not 3 or 4 digits.
 * The brand is not checked (the aggregator decides which brands it takes).
 */
export function cardProblem(card: CardInput, now: Date): string | null {
  if (typeof card.number !== 'string' || !isCardNumber(card.number)) return CARD_PROBLEMS.number;
  if (!isExpiry(card.expiryMonth, card.expiryYear)) return CARD_PROBLEMS.expiry;
  if (isExpired(card.expiryMonth, card.expiryYear, now)) return CARD_PROBLEMS.expired;
  if (typeof card.cvv !== 'string' || !isCvv(card.cvv)) return CARD_PROBLEMS.cvv;
  return null;
}

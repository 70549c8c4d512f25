import type { SimCard } from './types';

/**
 * The simulation's cards (issue 45): a Luhn-valid number of a brand's prefix ending in the four digits
 * that pick the fake aggregator's behaviour (docs/aggregator.md, "The fake aggregator"), as
 * test/support/test-cards.ts makes them. Built when the step runs from the plan's ending: a plan holds
 * no card number.
 */

const PREFIX: Readonly<Record<string, string>> = { visa: '4000', mastercard: '5200' };

export function luhnValid(number: string): boolean {
  let sum = 0;
  for (let i = 0; i < number.length; i++) {
    let digit = Number(number[number.length - 1 - i]);
    if (i % 2 === 1) digit = digit * 2 > 9 ? digit * 2 - 9 : digit * 2;
    sum += digit;
  }
  return sum % 10 === 0;
}

/** A 16-digit Luhn-valid number of `brand` ending in `last4`. */
export function cardNumber(last4: string, brand = 'visa'): string {
  const prefix = PREFIX[brand] ?? PREFIX.visa!;
  for (let d = 0; d <= 9; d++) {
    const number = `${prefix}${'0'.repeat(16 - prefix.length - 5)}${d}${last4}`;
    if (luhnValid(number)) return number;
  }
  throw new Error(`no Luhn-valid card for ${prefix}…${last4}`);
}

/** The card a step's customer types: its number from the ending, an expiry years ahead, a CVV. */
export function simCard(last4: string, brand = 'visa'): SimCard {
  return { number: cardNumber(last4, brand), expiryMonth: 12, expiryYear: 2031, cvv: '731' };
}

/** The fake aggregator's one-time code (FAKE_CARD_OTP) and one it refuses. */
export const RIGHT_OTP = '123456';
export const WRONG_OTP = '000000';

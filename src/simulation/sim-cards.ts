import { testCardNumber } from '../rail/aggregator/fake/test-cards';
import type { SimCard } from './types';

/**
 * The simulation's cards (issue 45): a Luhn-valid number of a brand's prefix ending in the four digits
 * that pick the fake aggregator's behaviour (docs/aggregator.md, "The fake aggregator"), made by the
 * fake's own `testCardNumber`. Built when the step runs from the plan's ending: a plan holds no card
 * number.
 */

const PREFIX: Readonly<Record<string, string>> = { visa: '4000', mastercard: '5200' };

/** A 16-digit Luhn-valid number of `brand` ending in `last4`. */
export function cardNumber(last4: string, brand = 'visa'): string {
  return testCardNumber(last4, PREFIX[brand] ?? PREFIX.visa!);
}

/** The card a step's customer types: its number from the ending, an expiry years ahead, a CVV. */
export function simCard(last4: string, brand = 'visa'): SimCard {
  return { number: cardNumber(last4, brand), expiryMonth: 12, expiryYear: 2031, cvv: '731' };
}

/** The fake aggregator's one-time code (FAKE_CARD_OTP) and one it refuses. */
export const RIGHT_OTP = '123456';
export const WRONG_OTP = '000000';

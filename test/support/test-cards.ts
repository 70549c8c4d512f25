/**
 * Card numbers for the fake aggregator's behaviours (docs/aggregator.md, "The fake aggregator"): a
 * Luhn-valid number of a brand's prefix that ends in the four digits that pick the behaviour.
 */
export function cardEnding(last4: string, prefix = '4000', length = 16): string {
  for (let d = 0; d <= 9; d++) {
    const number = `${prefix}${'0'.repeat(length - prefix.length - 5)}${d}${last4}`;
    if (luhnValid(number)) return number;
  }
  throw new Error(`no Luhn-valid card for ${prefix}…${last4}`);
}

export function luhnValid(number: string): boolean {
  let sum = 0;
  for (let i = 0; i < number.length; i++) {
    let digit = Number(number[number.length - 1 - i]);
    if (i % 2 === 1) digit = digit * 2 > 9 ? digit * 2 - 9 : digit * 2;
    sum += digit;
  }
  return sum % 10 === 0;
}

/** A card's expiry a few years ahead, as the form takes it (MM/YY). */
export const FUTURE_EXPIRY = '12/31';

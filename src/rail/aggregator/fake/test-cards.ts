import { isCardNumber } from '../card-input';

/**
 * A card number for the fake aggregator's behaviours (docs/aggregator.md, "The fake aggregator"): of
 * `prefix` (a Visa by default), `length` digits, ending in the four digits that pick the behaviour,
 * made Luhn-valid by the one digit before them. For tests, the simulator and anyone trying the fake.
 */
export function testCardNumber(last4: string, prefix = '4000', length = 16): string {
  if (!/^[0-9]{4}$/.test(last4)) throw new Error(`the behaviour's ending must be four digits, not "${last4}"`);
  for (let d = 0; d <= 9; d++) {
    const number = `${prefix}${'0'.repeat(length - prefix.length - 5)}${d}${last4}`;
    if (isCardNumber(number)) return number;
  }
  throw new Error(`no Luhn-valid card number ${prefix}…${last4} of ${length} digits`);
}

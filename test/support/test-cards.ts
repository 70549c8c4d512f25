/**
 * Card numbers for the fake aggregator's behaviours: a Luhn-valid number of a brand's prefix that
 * ends in the four digits that pick the behaviour (src/rail/aggregator/fake/test-cards.ts).
 */
export { testCardNumber as cardEnding } from '../../src/rail/aggregator/fake/test-cards';

/** A card's expiry a few years ahead, as the form takes it (MM/YY). */
export const FUTURE_EXPIRY = '12/31';

import { RailRequestInvalid } from '../rail-errors';
import { CURRENCY_EXPONENTS, formatMomoAmount, parseMomoAmount } from '../momo-amount';

/**
 * Amounts on the aggregator's wire: a JSON number of major units (`150.05` for 15005 pesewas,
 * `5000` for 5000 UGX), as Flutterwave sends and takes them, while the engine counts integer minor
 * units. The exponents are the engine's (src/rail/momo-amount.ts CURRENCY_EXPONENTS, kept equal to
 * the seeded currencies list): one table for both partners.
 *
 * Exact both ways: a number is written from the decimal text of the minor units, and read back
 * through its shortest decimal text (what JavaScript's String gives and JSON carries), never by
 * multiplying floats.
 */

/**
 * The most significant digits a JSON number carries exactly through a double: 15. An amount with
 * more cannot be sent as a number without rounding (10^15 minor units: ten thousand billion cedis).
 */
export const MAX_EXACT_DIGITS = 15;

/** Minor units to the aggregator's number: 15005 GHS → 150.05, 5000 UGX → 5000. RailRequestInvalid for an amount or currency that cannot be sent exactly. */
export function toAggregatorAmount(minorUnits: number, currency: string): number {
  const text = formatMomoAmount(minorUnits, currency);
  if (String(minorUnits).length > MAX_EXACT_DIGITS) throw new RailRequestInvalid(`amount ${minorUnits} has more than ${MAX_EXACT_DIGITS} digits: the aggregator's number cannot carry it exactly`);
  const value = Number(text);
  if (parseMomoAmount(String(value), currency) !== minorUnits) throw new RailRequestInvalid(`amount ${minorUnits} ${currency} does not survive the aggregator's number format`);
  return value;
}

/**
 * The aggregator's amount (a JSON number, or a decimal string as some answers give it) back to minor
 * units of `currency`; undefined when it is not a plain non-negative decimal with at most the
 * currency's decimals, or the currency has no known exponent.
 */
export function fromAggregatorAmount(value: unknown, currency: string): number | undefined {
  let text: string;
  if (typeof value === 'number') {
    if (!Number.isFinite(value) || value < 0) return undefined;
    text = String(value);
    if (/e/i.test(text)) return undefined;
  } else if (typeof value === 'string') {
    text = value;
  } else {
    return undefined;
  }
  return parseMomoAmount(text, currency);
}

/** Minor units (zero included) as a statement shows them: the decimal string of major units ("150.05", "0.00"), as on MoMo's statement. */
export function statementAmount(minorUnits: number, currency: string): string {
  if (minorUnits !== 0) return formatMomoAmount(minorUnits, currency);
  const exponent = CURRENCY_EXPONENTS[currency] ?? 0;
  return exponent === 0 ? '0' : `0.${'0'.repeat(exponent)}`;
}

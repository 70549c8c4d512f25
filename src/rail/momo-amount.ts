import { RailRequestInvalid } from './rail-errors';

/**
 * Amounts on the partner's wire: a decimal string of major units (`"150.00"` for 15000 pesewas),
 * while the engine counts integer minor units everywhere (SPEC 1).
 *
 * The exponents are those of the seeded currencies reference list
 * (migrations/Migration20261122000002_reference_data.ts, `minor_units`; a unit test keeps the two
 * equal), plus EUR, the only currency of the public MoMo sandbox.
 */
export const CURRENCY_EXPONENTS: Readonly<Record<string, number>> = {
  GHS: 2,
  NGN: 2,
  KES: 2,
  UGX: 0,
  TZS: 2,
  RWF: 0,
  XOF: 0,
  ZAR: 2,
  USD: 2,
  EUR: 2,
};

/**
 * Minor units to the partner's decimal string: 15000 GHS → "150.00", 5000 UGX → "5000". An amount
 * that is not a positive safe integer, or a currency without a known exponent: RailRequestInvalid.
 */
export function formatMomoAmount(minorUnits: number, currency: string): string {
  const exponent = Object.hasOwn(CURRENCY_EXPONENTS, currency) ? CURRENCY_EXPONENTS[currency] : undefined;
  if (exponent === undefined) throw new RailRequestInvalid(`no known minor-unit exponent for currency "${currency}"`);
  if (!Number.isSafeInteger(minorUnits) || minorUnits <= 0) throw new RailRequestInvalid(`amount must be a positive whole number of minor units, got ${minorUnits}`);
  if (exponent === 0) return String(minorUnits);
  const digits = String(minorUnits).padStart(exponent + 1, '0');
  return `${digits.slice(0, -exponent)}.${digits.slice(-exponent)}`;
}

/**
 * The partner's decimal string back to minor units ("150.00" or "150" GHS → 15000), undefined when
 * it is not a plain non-negative decimal with at most the currency's decimals.
 */
export function parseMomoAmount(text: string, currency: string): number | undefined {
  const exponent = Object.hasOwn(CURRENCY_EXPONENTS, currency) ? CURRENCY_EXPONENTS[currency] : undefined;
  if (exponent === undefined) return undefined;
  const match = /^([0-9]{1,16})(?:\.([0-9]+))?$/.exec(text.trim());
  if (!match) return undefined;
  const fraction = (match[2] ?? '').replace(/0+$/, '');
  if (fraction.length > exponent) return undefined;
  const value = Number(match[1] + fraction.padEnd(exponent, '0'));
  return Number.isSafeInteger(value) ? value : undefined;
}

/**
 * How amounts and times read, wherever a person sees them (notifications, checkout, the portal).
 * Exact for any integer amount in minor units (string arithmetic, no floating point).
 */

/** A currency's ISO 4217 decimals as Intl knows them; 2 for a code it does not know. */
export function currencyDecimals(currency: string): number {
  try {
    return new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
  } catch {
    return 2;
  }
}

/** Signed minor units as a plain major-unit decimal: -40000 with 2 decimals → `-400.00`. */
export function majorDecimal(amount: number | bigint | string, minorUnits: number): string {
  const text = String(amount);
  const negative = text.startsWith('-');
  const digits = (negative ? text.slice(1) : text).padStart(minorUnits + 1, '0');
  const whole = digits.slice(0, digits.length - minorUnits);
  const fraction = minorUnits > 0 ? `.${digits.slice(digits.length - minorUnits)}` : '';
  return `${negative ? '-' : ''}${whole}${fraction}`;
}

/**
 * An amount in minor units as a person reads it: `GHS 1,500.00` (15000 minor units, 2 decimals),
 * `UGX 15,000` (no decimals), `KES -25.00`.
 */
export function formatAmount(amount: number | bigint | string, currency: string, minorUnits: number): string {
  const [whole, fraction] = majorDecimal(amount, minorUnits).split('.');
  const negative = whole.startsWith('-');
  const grouped = (negative ? whole.slice(1) : whole).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `${currency} ${negative ? '-' : ''}${grouped}${fraction === undefined ? '' : `.${fraction}`}`;
}

/** `formatAmount` in the currency's ISO 4217 decimals as Intl knows them (checkout, the portal's payments): `GHS 150.00`. */
export const formatIsoAmount = (amount: number | bigint | string, currency: string): string => formatAmount(amount, currency, currencyDecimals(currency));

/** An ISO 8601 time as `2026-11-26 10:00 UTC`. */
export function formatTime(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

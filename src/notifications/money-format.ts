/**
 * An amount in minor units as a person reads it: `GHS 1,500.00` (15000 minor units, 2 decimals),
 * `UGX 15,000` (no decimals). Exact for any integer (string arithmetic, no floating point).
 */
export function formatAmount(amount: number | string, currency: string, minorUnits: number): string {
  const text = String(amount);
  const negative = text.startsWith('-');
  const digits = (negative ? text.slice(1) : text).padStart(minorUnits + 1, '0');
  const whole = digits.slice(0, digits.length - minorUnits).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  const fraction = minorUnits > 0 ? `.${digits.slice(digits.length - minorUnits)}` : '';
  return `${currency} ${negative ? '-' : ''}${whole}${fraction}`;
}

/** An ISO 8601 time as `2026-11-26 10:00 UTC`. */
export function formatTime(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

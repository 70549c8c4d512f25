import type { Orm } from '../../persistence/orm';
import { listCurrencies } from '../../persistence/reference-store';

/** Minor units per currency code (the reference list, GET /v1/reference/currencies). */
export type MinorUnits = ReadonlyMap<string, number>;

export async function minorUnitsOf(orm: Orm): Promise<MinorUnits> {
  return new Map((await listCurrencies(orm)).map((c) => [c.code, c.minor_units]));
}

/** A currency's minor units: the reference list's, else what Intl knows, else 2. */
function digitsOf(currency: string, units: MinorUnits): number {
  const known = units.get(currency);
  if (known !== undefined) return known;
  try {
    return new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
  } catch {
    return 2;
  }
}

/**
 * Signed minor units (an exact integer: number, bigint or decimal text) as a plain major-unit decimal,
 * e.g. -40000 GHS → "-400.00". Exact for any size (BigInt; balances may pass 2^53).
 */
export function majorDecimal(amount: number | bigint | string, currency: string, units: MinorUnits): string {
  const value = BigInt(amount);
  const digits = digitsOf(currency, units);
  const text = (value < 0n ? -value : value).toString().padStart(digits + 1, '0');
  const whole = text.slice(0, text.length - digits);
  const fraction = digits > 0 ? `.${text.slice(text.length - digits)}` : '';
  return `${value < 0n ? '-' : ''}${whole}${fraction}`;
}

/** As majorDecimal, grouped by thousands and with the code: "GHS 1,234.56", "GHS -400.00". */
export function formatMoney(amount: number | bigint | string, currency: string, units: MinorUnits): string {
  const [whole, fraction] = majorDecimal(amount, currency, units).split('.');
  const negative = whole.startsWith('-');
  const grouped = (negative ? whole.slice(1) : whole).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `${currency} ${negative ? '-' : ''}${grouped}${fraction === undefined ? '' : `.${fraction}`}`;
}

/** ISO 8601 UTC as the portal shows it: "2026-11-23 13:05 UTC", in a <time>. */
export function whenHtml(iso: string, escape: (t: string) => string): string {
  return `<time datetime="${escape(iso)}">${escape(iso.slice(0, 16).replace('T', ' '))} UTC</time>`;
}

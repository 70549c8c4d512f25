import type { Orm } from '../../persistence/orm';
import { listCurrencies } from '../../persistence/reference-store';
import { currencyDecimals, formatAmount, majorDecimal as plainDecimal } from '../../domain/money-format';

/** Minor units per currency code (the reference list, GET /v1/reference/currencies). */
export type MinorUnits = ReadonlyMap<string, number>;

export async function minorUnitsOf(orm: Orm): Promise<MinorUnits> {
  return new Map((await listCurrencies(orm)).map((c) => [c.code, c.minor_units]));
}

/** A currency's minor units: the reference list's, else what Intl knows, else 2. */
const digitsOf = (currency: string, units: MinorUnits): number => units.get(currency) ?? currencyDecimals(currency);

/** Signed minor units as a plain major-unit decimal in the currency's minor units: -40000 GHS → "-400.00" (exact). */
export const majorDecimal = (amount: number | bigint | string, currency: string, units: MinorUnits): string => plainDecimal(amount, digitsOf(currency, units));

/** Grouped by thousands and with the code: "GHS 1,234.56", "GHS -400.00". */
export const formatMoney = (amount: number | bigint | string, currency: string, units: MinorUnits): string => formatAmount(amount, currency, digitsOf(currency, units));

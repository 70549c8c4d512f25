/**
 * Live limits are per currency (issue 29): a per-transaction maximum and a daily limit, each in minor
 * units of one currency, since minor units of two currencies cannot be compared or added (5,000 UGX
 * is about one dollar, 5,000 pesewas about four). A live payment is checked against the limits of
 * its own currency; a currency without a limit has none.
 */

/** Currency code → minor units of it. */
export type CurrencyAmounts = Record<string, number>;

const ITEM = /^([A-Za-z]{3}):([1-9][0-9]{0,15})$/;

/**
 * `--live-max-amount` / `--live-daily-limit`: `CUR:N` or a comma-separated list (`GHS:500000,KES:2000000`),
 * N a positive whole number of minor units of CUR. A bare N is refused: it does not say which
 * currency it limits, and no currency is the merchant's own. Returns the amounts by upper-case code,
 * or the reason it cannot be read.
 */
export function parseCurrencyLimits(text: string, option: string): { amounts: CurrencyAmounts } | { error: string } {
  const items = text.split(',').map((s) => s.trim());
  if (items.length === 1 && /^[0-9]+$/.test(items[0])) {
    return { error: `${option} needs a currency: limits are kept per currency (minor units of one currency cannot be compared with another's), so write ${option} CUR:N, e.g. ${option} GHS:${items[0]}` };
  }
  const amounts: CurrencyAmounts = {};
  for (const item of items) {
    const match = ITEM.exec(item);
    const value = match ? Number(match[2]) : NaN;
    if (!match || !Number.isSafeInteger(value)) return { error: `${option} must be CUR:N (a currency code and a positive whole number of its minor units, e.g. GHS:500000), or several separated by commas; got "${item}"` };
    const currency = match[1].toUpperCase();
    if (Object.hasOwn(amounts, currency)) return { error: `${option} names ${currency} twice` };
    amounts[currency] = value;
  }
  return { amounts };
}

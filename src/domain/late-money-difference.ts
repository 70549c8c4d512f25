import { currencyDecimals, majorDecimal } from './money-format';

/** An amount as the partner or we state it: minor units and a currency, either possibly unknown. */
export interface StatedAmount {
  amount: number | null | undefined;
  currency: string | null | undefined;
}

const said = (a: StatedAmount, ours: { currency: string }) => {
  const currency = a.currency ?? ours.currency;
  return `${a.amount == null ? '?' : majorDecimal(a.amount, currencyDecimals(currency))} ${a.currency ?? '?'}`;
};

/**
 * How the partner's late SUCCESSFUL differs from what we asked (issue 43): "partner says 150.00 NGN,
 * we asked 150.00 GHS", or null when they agree (an amount or currency the partner did not state
 * is not a difference). Late money that differs is recorded, never credited, returned or accepted as
 * ours: nothing moves until an operator settles it with the partner.
 */
export function lateMoneyDifference(ours: { amount: number; currency: string }, partner: StatedAmount): string | null {
  const amountDiffers = partner.amount != null && Number(partner.amount) !== ours.amount;
  const currencyDiffers = partner.currency != null && partner.currency !== ours.currency;
  if (!amountDiffers && !currencyDiffers) return null;
  return `partner says ${said(partner, ours)}, we asked ${said({ amount: ours.amount, currency: ours.currency }, ours)}`;
}

/**
 * The prices the engine publishes, written here from its documents and not from its code, so that a
 * fee the engine computes wrongly is seen (the reference model, issue 44):
 * - charges (README.md, "Fees"): platform 1.5 % (mobile money), 1.0 % (bank), 2.9 % (card), rounded
 *   half up; tax 15 % of the fee, rounded half up; the merchant bears both;
 * - payouts (docs/architecture.md, "Payout fees"): 1.00 % mobile money; 0.50 % bank, at least 100
 *   minor units; tax 15 % of the fee.
 * Integer arithmetic on minor units: a percentage as a fraction of 10,000.
 */

export interface ModelFee {
  platform: number;
  tax: number;
}

const CHARGE_PER_10K: Readonly<Record<string, number>> = { mobile_money: 150, bank: 100, card: 290 };
const PAYOUT_PER_10K: Readonly<Record<string, number>> = { mobile_money: 100, bank: 50 };
const PAYOUT_MINIMUM: Readonly<Record<string, number>> = { mobile_money: 0, bank: 100 };
const TAX_PER_10K = 1500;

/** `amount` × `per10k` / 10,000, rounded half up (exact in bigint for any safe integer). */
function share(amount: number, per10k: number): number {
  return Number((BigInt(amount) * BigInt(per10k) + 5000n) / 10000n);
}

/** The fee of a charge; undefined for a channel the documents do not price. */
export function chargeFee(amount: number, channel: string): ModelFee | undefined {
  const rate = CHARGE_PER_10K[channel];
  if (rate === undefined) return undefined;
  const platform = share(amount, rate);
  return { platform, tax: share(platform, TAX_PER_10K) };
}

/** The fee of a payout; undefined for a channel the documents do not price. */
export function payoutFee(amount: number, channel: string): ModelFee | undefined {
  const rate = PAYOUT_PER_10K[channel];
  if (rate === undefined) return undefined;
  const platform = Math.max(share(amount, rate), PAYOUT_MINIMUM[channel]!);
  return { platform, tax: share(platform, TAX_PER_10K) };
}

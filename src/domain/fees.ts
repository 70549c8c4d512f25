import type { Channel } from './charge-status';

/**
 * Fee rules, in basis points of the amount. The merchant bears the fee: the customer pays `amount`,
 * the merchant is credited `amount - platform - tax`.
 */
export const PLATFORM_FEE_BPS: Record<Channel, bigint> = {
  mobile_money: 150n, // 1.50 %
  bank: 100n, // 1.00 %
  card: 290n, // 2.90 %
};

/** Tax charged on the platform fee, in basis points of the fee (15 %). */
export const FEE_TAX_BPS = 1500n;

export interface Fee {
  platform: number;
  tax: number;
  bearer: 'merchant';
}

/** Rounds half up a non-negative bigint ratio. */
function roundedBps(amount: bigint, bps: bigint): bigint {
  return (amount * bps + 5000n) / 10000n;
}

/** Integer fee in minor units; exact for every amount up to 2^53 - 1 because it works in bigint. */
export function computeFee(amount: number, channel: Channel): Fee {
  const platform = roundedBps(BigInt(amount), PLATFORM_FEE_BPS[channel]);
  const tax = roundedBps(platform, FEE_TAX_BPS);
  return { platform: Number(platform), tax: Number(tax), bearer: 'merchant' };
}

export function merchantAmount(amount: number, fee: Fee): number {
  return amount - fee.platform - fee.tax;
}

import type { Orm } from './orm';

export interface MerchantSettings {
  id: string;
  object: 'merchant';
  payout_review_threshold: number;
}

/**
 * `merchants set ID --payout-review-threshold N`: payouts of at least N minor units are held for
 * review (default 5,000,000). Applies to payouts created from now on. Throws for an unknown merchant.
 */
export async function setPayoutReviewThreshold(orm: Orm, merchantId: string, threshold: number): Promise<MerchantSettings> {
  const rows = await orm.em
    .fork()
    .execute<{ id: string; payout_review_threshold: string }[]>(
      `update merchants set payout_review_threshold = ? where id = ? returning id, payout_review_threshold::text as payout_review_threshold`,
      [threshold, merchantId],
    );
  if (rows.length === 0) throw new Error(`merchant ${merchantId} does not exist`);
  return { id: rows[0].id, object: 'merchant', payout_review_threshold: Number(rows[0].payout_review_threshold) };
}

/** Parses `--payout-review-threshold`: a positive integer of minor units below 2^53, or null. */
export function parseThreshold(text: string): number | null {
  if (!/^[1-9][0-9]{0,15}$/.test(text)) return null;
  const value = Number(text);
  return Number.isSafeInteger(value) ? value : null;
}

import type { ChargeRecord } from '../../src/domain/charge';
import { fundMerchant } from './fund-merchant';
import type { Harness, TestMerchant } from './harness';
import { accept, draftCharge, succeed } from './stored-charges';

/**
 * A sandbox charge of `amount` written through the charge store and succeeded (its merchant_amount
 * lands in available), and, optionally, `extraFunds` more available funds.
 */
export async function succeededCharge(h: Harness, merchant: TestMerchant, amount = 15_000, extraFunds = 0): Promise<ChargeRecord> {
  const charge = await succeed(h.orm, (await accept(h.orm, draftCharge(merchant.id, amount))).id);
  if (extraFunds > 0) await fundMerchant(h, merchant.id, extraFunds);
  return charge;
}

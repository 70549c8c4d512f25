import { ACCOUNTS, type Transfer } from '../../src/domain/ledger';
import type { Environment } from '../../src/domain/environment';
import { addToBalances } from '../../src/persistence/ledger/account-balances';
import { postTransfer } from '../../src/persistence/ledger/ledger';
import { randomBase62 } from '../../src/support/new-id';
import type { Harness } from './harness';

/**
 * Credits a test merchant's available balance by `amount` as a captured collection would: one
 * balanced transfer customer_clearing → merchant_available (ledger entries and balance rows in one
 * transaction), so `ledger check` stays balanced. Faster than succeeding sandbox charges, and exact.
 */
export async function fundMerchant(h: Harness, merchantId: string, amount: number, currency = 'GHS', environment: Environment = 'sandbox'): Promise<void> {
  const resourceId = `fund_${randomBase62(24)}`;
  const transfer: Transfer = {
    id: `${resourceId}:capture`,
    kind: 'capture',
    postings: [
      { account: ACCOUNTS.customerClearing, amount: -amount },
      { account: ACCOUNTS.merchantAvailable, amount },
    ],
  };
  await h.orm.em.fork().transactional(async (em) => {
    postTransfer(em, { merchantId, environment, currency, resourceId }, transfer, new Date());
    await em.flush();
    await addToBalances(em, { merchantId, environment, currency }, [transfer]);
  });
}

/** The merchant's balance rows of one currency, by account, as numbers (0 when absent). */
export async function balanceRows(h: Harness, merchantId: string, currency = 'GHS', environment: Environment = 'sandbox'): Promise<Record<string, number>> {
  const rows = await h.orm.em
    .getConnection()
    .execute<{ account: string; amount: string }[]>(`select account, amount::text as amount from account_balances where merchant_id = ? and environment = ? and currency = ?`, [
      merchantId,
      environment,
      currency,
    ]);
  const out: Record<string, number> = { merchant_available: 0, merchant_reserved: 0 };
  for (const r of rows) out[r.account] = Number(r.amount);
  return out;
}

import type { Orm } from '../../src/persistence/orm';
import type { Harness, TestMerchant } from './harness';

export interface LedgerRow {
  transfer_id: string;
  account: string;
  kind: string;
  resource_id: string;
  amount: string;
  /** Rows stored for this (transfer_id, account): 1 unless something posted twice. */
  n: string;
}

export interface StoredEvent {
  id: string;
  type: string;
  sequence: number;
  resource_id: string;
}

/** Every ledger entry of the merchant, with the number of rows per (transfer_id, account). */
export function ledgerRows(h: Harness, merchantId: string): Promise<LedgerRow[]> {
  return h.orm.em.getConnection().execute<LedgerRow[]>(
    `select transfer_id, account, kind, resource_id, sum(amount)::text as amount, count(*)::text as n
     from ledger_entries where merchant_id = ? group by transfer_id, account, kind, resource_id order by transfer_id, account`,
    [merchantId],
  );
}

/** The merchant's whole sandbox event log through the API, oldest first (walks every page). */
export async function allEvents(h: Harness, merchant: TestMerchant): Promise<StoredEvent[]> {
  const all: StoredEvent[] = [];
  for (let after = 0; ; ) {
    const page = await h.request('sandbox', 'GET', `/v1/events?after_sequence=${after}&limit=100`, { key: merchant.testKey });
    if (page.status !== 200) throw new Error(`GET /v1/events answered ${page.status}: ${page.text}`);
    all.push(...(page.json.data as StoredEvent[]));
    if (!page.json.has_more) return all;
    after = all[all.length - 1].sequence;
  }
}

/** The three transfers of a succeeded charge, each posting exactly once, with the exact amounts. */
export function expectSucceededLedger(
  rows: LedgerRow[],
  charge: { id: string; amount: number; merchant_amount: number; fee: { platform: number; tax: number } },
): void {
  const mine = rows.filter((r) => r.resource_id === charge.id);
  for (const r of mine) expect([r.transfer_id, r.account, r.n]).toEqual([r.transfer_id, r.account, '1']);
  expect([...new Set(mine.map((r) => r.transfer_id))].sort()).toEqual([`${charge.id}:capture`, `${charge.id}:hold`, `${charge.id}:hold_void`]);
  const postings = (kind: string) => Object.fromEntries(mine.filter((r) => r.kind === kind).map((r) => [r.account, Number(r.amount)]));
  expect(postings('hold')).toEqual({ customer_clearing: -charge.merchant_amount, merchant_pending: charge.merchant_amount });
  expect(postings('hold_void')).toEqual({ customer_clearing: charge.merchant_amount, merchant_pending: -charge.merchant_amount });
  expect(postings('capture')).toEqual({
    customer_clearing: -charge.amount,
    merchant_available: charge.merchant_amount,
    platform_fee: charge.fee.platform,
    tax: charge.fee.tax,
  });
}

export interface BalanceMismatch {
  merchant_id: string;
  environment: string;
  currency: string;
  account: string;
  /** The balance row's amount, null when the account has entries but no row. */
  balance: string | null;
  /** The sum of the account's entries, null when a row exists without entries. */
  postings: string | null;
}

/**
 * Every account (of one merchant, or of the whole database) whose balance row differs from the sum of
 * its ledger entries, or that has one without the other. Exact: compared as bigint/numeric in SQL.
 */
export function balanceMismatches(orm: Orm, merchantId?: string): Promise<BalanceMismatch[]> {
  const only = merchantId === undefined ? '' : 'where merchant_id = ?';
  return orm.em.getConnection().execute<BalanceMismatch[]>(
    `with sums as (
       select merchant_id, environment, currency, account, sum(amount) as amount from ledger_entries ${only}
       group by merchant_id, environment, currency, account),
     rows as (select merchant_id, environment, currency, account, amount from account_balances ${only})
     select merchant_id, environment, currency, account, r.amount::text as balance, s.amount::text as postings
     from rows r full outer join sums s using (merchant_id, environment, currency, account)
     where r.amount is distinct from s.amount
     order by merchant_id, environment, currency, account`,
    merchantId === undefined ? [] : [merchantId, merchantId],
  );
}

/** Asserts that every balance row of the merchant equals the sum of its account's ledger entries. */
export async function expectBalancesMatchPostings(orm: Orm, merchantId: string): Promise<void> {
  expect(await balanceMismatches(orm, merchantId)).toEqual([]);
}

import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * The late money check of `ledger check` (issue 29; src/domain/late-answer-ledger.ts): the suspense
 * accounts agree with the late_answers rows. `late_funds` holds exactly the late money not settled
 * yet (+amount for a charge's, −amount for a payout's, settlement's or refund's; a row whose amount or currency
 * the partner contradicts holds nothing there, issue 43), and `returns_in_transit`
 * exactly the returns to payers the partner has not paid yet. Run inside the ledger check's snapshot.
 */
export interface LateMoneyMismatch {
  merchant_id: string;
  environment: string;
  currency: string;
  account: 'late_funds' | 'returns_in_transit';
  balance: string;
  /** What the late_answers rows say it should hold. */
  expected: string;
}

const EXPECTED = `
  select merchant_id, environment, currency, 'late_funds' as account,
         sum(case when kind = 'charge' then amount else -amount end)::numeric as amount
  from late_answers where settled_action is null and held_in_late_funds group by merchant_id, environment, currency
  union all
  select merchant_id, environment, currency, 'returns_in_transit', sum(amount)::numeric
  from late_answers where settled_action = 'return' and return_status is distinct from 'succeeded' group by merchant_id, environment, currency`;

export async function readLateMoneyMismatches(em: EntityManager): Promise<LateMoneyMismatch[]> {
  return em.execute<LateMoneyMismatch[]>(
    `select merchant_id, environment, currency, account, coalesce(b.amount, 0)::text as balance, coalesce(e.amount, 0)::text as expected
     from (select merchant_id, environment, currency, account, amount::numeric as amount from account_balances where account in ('late_funds', 'returns_in_transit')) b
     full outer join (${EXPECTED}) e using (merchant_id, environment, currency, account)
     where coalesce(b.amount, 0) <> coalesce(e.amount, 0)
     order by merchant_id, environment, currency, account`,
  );
}

import type { Invariant } from '../types';
import { rows } from './sql';

/**
 * What each payment's status implies for its merchant's three balances (per merchant, environment,
 * currency), from the transfers each status posts (src/domain/ledger.ts, payout-ledger.ts,
 * refund-ledger.ts, dispute-ledger.ts, settlement-ledger.ts; charge-store.ts `transfersFor`):
 *
 * - charge: hold at acceptance (pending += merchant_amount), voided at any end; capture on success
 *   (available += merchant_amount), undone exactly by a reversal: so pending counts the charges still
 *   `pending` or `awaiting_action`, available the `succeeded` ones;
 * - payout: reserve at acceptance (available -= total_debit, reserved += total_debit), post on success
 *   (reserved -= total_debit), release on failure (back to available), reversal after success
 *   (available += amount, the fee kept);
 * - refund: reserve at acceptance (amount), post on success, release on failure;
 * - dispute: hold when opened (amount), release when won, debit when lost;
 * - settlement: sweep at creation (amount), post when paid, release when failed.
 */
const IMPLIED = `
  select merchant_id, environment, currency, sum(available) as available, sum(pending) as pending, sum(reserved) as reserved from (
    select merchant_id, environment, currency,
           case when status = 'succeeded' then merchant_amount else 0 end as available,
           case when status in ('pending', 'awaiting_action') then merchant_amount else 0 end as pending,
           0 as reserved
      from charges
    union all
    select merchant_id, environment, currency,
           case when status = 'failed' then 0 else -total_debit end + case when status = 'reversed' then amount else 0 end,
           0,
           case when status in ('pending', 'held_for_review') then total_debit else 0 end
      from payouts
    union all
    select merchant_id, environment, currency,
           case when status = 'failed' then 0 else -amount end, 0, case when status = 'pending' then amount else 0 end
      from refunds
    union all
    select merchant_id, environment, currency,
           case when status = 'won' then 0 else -amount end, 0, case when status in ('needs_response', 'under_review') then amount else 0 end
      from disputes
    union all
    select merchant_id, environment, currency,
           case when status = 'failed' then 0 else -amount end, 0, case when status = 'pending' then amount else 0 end
      from settlements
  ) x group by merchant_id, environment, currency`;

const BALANCES = `
  select merchant_id, environment, currency,
         sum(amount) filter (where account = 'merchant_available') as available,
         sum(amount) filter (where account = 'merchant_pending') as pending,
         sum(amount) filter (where account = 'merchant_reserved') as reserved
    from account_balances where account in ('merchant_available', 'merchant_pending', 'merchant_reserved')
   group by merchant_id, environment, currency`;

/**
 * Late money (issue 29) needs no exception: recording it moves only late_funds and the clearing
 * accounts, and each settled action moves the merchant's balances exactly as the status it gives the
 * payment implies (settleLateMoney: `credit` makes the charge succeeded with its normal capture;
 * `return` leaves it failed, the money going back to the payer through late_funds; `accept` makes the
 * payout succeeded, or the settlement paid, with its normal post after reserving it again). So every
 * scope is compared, whatever its late_answers say (issue 44: "no scope is skipped for late money").
 */

interface Row {
  merchant_id: string;
  environment: string;
  currency: string;
  account: string;
  balance: string;
  expected: string;
}

/**
 * Balances equal their postings (every account_balances row against the sum of its account's
 * ledger_entries, and an account with entries but no row), and available, pending and reserved equal
 * what the payments' statuses imply (IMPLIED above, exact, in every scope). Two queries.
 */
export const balancesMatch: Invariant = {
  name: 'balances equal their postings and what the payments say',
  async check(ctx) {
    const drifted = await rows<Row>(
      ctx,
      `with sums as (select merchant_id, environment, currency, account, sum(amount::numeric) as amount from ledger_entries group by merchant_id, environment, currency, account)
       select merchant_id, environment, currency, account, coalesce(b.amount::text, 'no row') as balance, coalesce(s.amount::text, 'no entries') as expected
         from account_balances b full outer join sums s using (merchant_id, environment, currency, account)
        where b.amount::numeric is distinct from s.amount
        order by merchant_id, environment, currency, account`,
    );
    const lines = drifted.map((d) => `${d.merchant_id} ${d.environment} ${d.currency} ${d.account}: balance ${d.balance}, postings ${d.expected}`);
    const implied = await rows<Row>(
      ctx,
      `with i as (${IMPLIED}), b as (${BALANCES}),
            both_sides as (
              select merchant_id, environment, currency,
                     coalesce(b.available, 0) as b_available, coalesce(i.available, 0) as i_available,
                     coalesce(b.pending, 0) as b_pending, coalesce(i.pending, 0) as i_pending,
                     coalesce(b.reserved, 0) as b_reserved, coalesce(i.reserved, 0) as i_reserved
                from b full outer join i using (merchant_id, environment, currency))
       select merchant_id, environment, currency, account, balance::text, expected::text from (
         select merchant_id, environment, currency, 'available' as account, b_available as balance, i_available as expected from both_sides
         union all select merchant_id, environment, currency, 'pending', b_pending, i_pending from both_sides
         union all select merchant_id, environment, currency, 'reserved', b_reserved, i_reserved from both_sides
       ) c where balance <> expected
       order by merchant_id, environment, currency, account`,
    );
    for (const d of implied) lines.push(`${d.merchant_id} ${d.environment} ${d.currency}: ${d.account} is ${d.balance}, the payments' statuses say ${d.expected}`);
    return lines;
  },
};

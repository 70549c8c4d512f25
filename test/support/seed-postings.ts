import type { Orm } from '../../src/persistence/orm';

/**
 * `count` fundings of one balance written in one statement each (the issue 34 tests' history): each
 * a balanced capture transfer (customer_clearing −a, merchant_available +a) of a `fund_` resource,
 * as test/support/fund-merchant.ts writes one, amount `1000 + i % 977`, dated `i` steps of `stepMs`
 * after `from`; the available and clearing balance rows moved by their sums, so `ledger check` holds.
 * Answers the sum added to the available balance.
 */
export async function seedFundings(orm: Orm, scope: { merchantId: string; environment: string; currency: string }, count: number, from: Date, stepMs: number): Promise<bigint> {
  return orm.em.fork().transactional(async (em) => {
    await em.execute(
      `insert into ledger_entries (transfer_id, account, kind, merchant_id, environment, currency, amount, resource_id, created_at)
       select 'fund_' || r.id || ':capture', a.account, 'capture', ?, ?, ?, a.sign * (1000 + g % 977), 'fund_' || r.id, ?::timestamptz + (g::bigint * ?::bigint) * interval '1 millisecond'
       from generate_series(0, ? - 1) g
       cross join lateral (select substr(md5(? || ':' || g), 1, 24) as id) r
       cross join (values ('customer_clearing', -1), ('merchant_available', 1)) a(account, sign)`,
      [scope.merchantId, scope.environment, scope.currency, from.toISOString(), stepMs, count, `${scope.merchantId}:${from.toISOString()}`],
    );
    const [{ total }] = await em.execute<{ total: string }[]>(`select coalesce(sum(1000 + g % 977), 0)::text as total from generate_series(0, ? - 1) g`, [count]);
    await em.execute(
      `insert into account_balances (merchant_id, environment, currency, account, amount, updated_at)
       values (?, ?, ?, 'customer_clearing', ?, now()), (?, ?, ?, 'merchant_available', ?, now())
       on conflict (merchant_id, environment, currency, account) do update set amount = account_balances.amount + excluded.amount, updated_at = now()`,
      [scope.merchantId, scope.environment, scope.currency, `-${total}`, scope.merchantId, scope.environment, scope.currency, total],
    );
    return BigInt(total);
  });
}

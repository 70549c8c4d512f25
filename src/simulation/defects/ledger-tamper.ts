import type { EntityManager } from '@mikro-orm/postgresql';
import type { Orm } from '../../persistence/orm';

/**
 * What the injected defects do to the books (src/simulation/defects/): each change keeps every
 * transfer balanced and every balance row equal to its postings, so only a check that compares the
 * books with what the payments say (the balances invariant, the ledger check's resource-level checks,
 * the reference model) can see it. Each is one transaction. Never used outside the simulator.
 */

type Scope = { merchant_id: string; environment: string; currency: string; account: string };

async function moveBalance(em: EntityManager, row: Scope, amount: string): Promise<void> {
  await em.execute(
    `insert into account_balances (merchant_id, environment, currency, account, amount, updated_at) values (?, ?, ?, ?, ?, now())
     on conflict (merchant_id, environment, currency, account) do update set amount = account_balances.amount + excluded.amount`,
    [row.merchant_id, row.environment, row.currency, row.account, amount],
  );
}

/**
 * Deletes a transfer's entries and takes their amounts back out of their balance rows; a row left at
 * zero with no entry behind it goes too (as if the account had never been posted to).
 */
export async function removeTransfer(orm: Orm, transferId: string): Promise<void> {
  await orm.em.fork().transactional(async (em) => {
    const gone = await em.execute<Array<Scope & { amount: string }>>(
      'delete from ledger_entries where transfer_id = ? returning merchant_id, environment, currency, account, amount',
      [transferId],
    );
    for (const row of gone) {
      const key = [row.merchant_id, row.environment, row.currency, row.account];
      await em.execute('update account_balances set amount = amount - ? where merchant_id = ? and environment = ? and currency = ? and account = ?', [row.amount, ...key]);
      await em.execute(
        `delete from account_balances b where merchant_id = ? and environment = ? and currency = ? and account = ? and amount = 0
            and not exists (select 1 from ledger_entries e where e.merchant_id = b.merchant_id and e.environment = b.environment and e.currency = b.currency and e.account = b.account)`,
        key,
      );
    }
  });
}

/** Posts each of `transferIds` a second time (as `<id>:again`, its balance rows moved with it); false when none of them was posted. */
export async function postAgain(orm: Orm, transferIds: string[]): Promise<boolean> {
  return orm.em.fork().transactional(async (em) => {
    const copied = await em.execute<Array<Scope & { amount: string }>>(
      `insert into ledger_entries (transfer_id, account, kind, merchant_id, environment, currency, amount, resource_id, created_at, rail_answer_id)
       select transfer_id || ':again', account, kind, merchant_id, environment, currency, amount, resource_id, created_at, rail_answer_id
         from ledger_entries where transfer_id in (${transferIds.map(() => '?').join(', ')})
       returning merchant_id, environment, currency, account, amount::text as amount`,
      transferIds,
    );
    for (const row of copied) await moveBalance(em, row, row.amount);
    return copied.length > 0;
  });
}

/**
 * Takes `extra` minor units more platform fee on a succeeded charge: its row (fee_platform up,
 * merchant_amount down by as much), its capture transfer (merchant_available to platform_fee) and
 * those two balance rows. Everything stays consistent with the charge's own row; only an independent
 * reckoning of the fee can see it.
 */
export async function chargeMoreFee(orm: Orm, chargeId: string, extra: number): Promise<void> {
  await orm.em.fork().transactional(async (em) => {
    await em.execute('update charges set fee_platform = fee_platform + ?, merchant_amount = merchant_amount - ? where id = ?', [extra, extra, chargeId]);
    const moved = await em.execute<Array<Scope & { amount: string }>>(
      `update ledger_entries set amount = amount + case account when 'platform_fee' then ?::bigint else -?::bigint end
        where transfer_id = ? and account in ('platform_fee', 'merchant_available')
       returning merchant_id, environment, currency, account, (case account when 'platform_fee' then ?::bigint else -?::bigint end)::text as amount`,
      [extra, extra, `${chargeId}:capture`, extra, extra],
    );
    for (const row of moved) await moveBalance(em, row, row.amount);
  });
}

import type { Orm } from '../orm';
import { readResourceProblems, type ResourceProblems } from './ledger-resource-checks';
import { readLateMoneyMismatches, type LateMoneyMismatch } from '../partner/late-answer-checks';

/** A transfer whose entries do not sum to zero, or that spans more than one merchant, environment or currency. */
export interface UnbalancedTransfer {
  transfer_id: string;
  /** Signed sum of its entries, exact (decimal text). */
  sum: string;
  entries: number;
  /** Distinct (merchant, environment, currency) scopes its entries name: 1 for a sound transfer. */
  scopes: number;
}

/** An account whose balance row differs from the sum of its entries, or has one without the other. */
export interface DriftedBalance {
  merchant_id: string;
  environment: string;
  currency: string;
  account: string;
  /** The row's amount; null when the account has entries but no row. */
  balance: string | null;
  /** The sum of the account's entries; null when a row exists without entries. */
  postings: string | null;
}

export interface LedgerSnapshot extends ResourceProblems {
  transfers: number;
  balances: number;
  unbalancedTransfers: UnbalancedTransfer[];
  driftedBalances: DriftedBalance[];
  /** late_funds and returns_in_transit against the late_answers rows (src/persistence/partner/late-answer-checks.ts). */
  lateMoneyMismatches: LateMoneyMismatch[];
}

/**
 * Reads the whole ledger in one read-only REPEATABLE READ transaction: one snapshot, so a state
 * change committing meanwhile (its entries and balance rows move together) is either wholly in it or
 * wholly out. Sums are exact (`numeric`); no statement timeout (the admin command reads everything).
 */
export async function readLedgerSnapshot(orm: Orm): Promise<LedgerSnapshot> {
  return orm.em.fork().transactional(async (em) => {
    await em.execute('set transaction isolation level repeatable read, read only');
    await em.execute('set local statement_timeout = 0');
    const [counts] = await em.execute<{ transfers: string; balances: string }[]>(
      `select (select count(distinct transfer_id) from ledger_entries)::text as transfers, (select count(*) from account_balances)::text as balances`,
    );
    const unbalancedTransfers = await em.execute<UnbalancedTransfer[]>(
      `select transfer_id, sum(amount::numeric)::text as sum, count(*)::int as entries,
              count(distinct (merchant_id, environment, currency))::int as scopes
       from ledger_entries group by transfer_id
       having sum(amount::numeric) <> 0 or count(distinct (merchant_id, environment, currency)) > 1
       order by transfer_id`,
    );
    const driftedBalances = await em.execute<DriftedBalance[]>(
      `with sums as (
         select merchant_id, environment, currency, account, sum(amount::numeric) as amount
         from ledger_entries group by merchant_id, environment, currency, account)
       select merchant_id, environment, currency, account, b.amount::text as balance, s.amount::text as postings
       from account_balances b full outer join sums s using (merchant_id, environment, currency, account)
       where b.amount::numeric is distinct from s.amount
       order by merchant_id, environment, currency, account`,
    );
    const resources = await readResourceProblems(em);
    const lateMoneyMismatches = await readLateMoneyMismatches(em);
    return { transfers: Number(counts.transfers), balances: Number(counts.balances), unbalancedTransfers, driftedBalances, ...resources, lateMoneyMismatches };
  });
}

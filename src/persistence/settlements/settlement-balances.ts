import type { EntityManager } from '@mikro-orm/postgresql';
import type { Environment } from '../../domain/environment';
import { LIVE_RAIL, type LiveRail } from '../../domain/live-rail';
import {
  LIVE_RAIL_UNAVAILABLE,
  NO_SETTLEMENT_ACCOUNT,
  settlementAccountHoldSkip,
  settlementCurrencyMismatch,
  unansweredBatchSkip,
  type BalanceKey,
  type SettlementRunPage,
  type SettlementRunPageRequest,
  type SkippedBalance,
} from '../../domain/settlement-run';
import type { Orm } from '../orm';
import { clearSettlementSkips, recordSettlementSkips } from './settlement-skips';

/**
 * Why a live balance is skipped while one of its failed batches was paid by the partner after all
 * (issue 43, finding 4): sweeping it again would pay the merchant twice.
 */
export function latePaidBatchSkip(settlementId: string): string {
  return `live batch ${settlementId} failed, but the partner paid it after all (late SUCCESSFUL): this balance is not swept again until its late money is settled (payments settle-late ${settlementId} --action accept --reason TEXT)`;
}

/** A balance a settlement run may settle: positive available money of one merchant, environment and currency. */
export interface SettleableBalance {
  merchantId: string;
  environment: Environment;
  currency: string;
  /** Minor units, as text (bigint). What the batch sweeps is read again under its row lock. */
  available: string;
  /** Whether the merchant has a settlement account (bank code and number: sealed, or plain on a row from before migration 20261125000005). */
  hasAccount: boolean;
  /** The merchant's settlement bank code, or null (no account). */
  bankCode: string | null;
  /** That bank's currency (banks.currency), or null: no account, or a code the banks reference does not know. */
  bankCurrency: string | null;
  /**
   * A live batch of this balance without the partner's final answer (issue 29), or null: one still
   * pending (its transfer may be on its way), or one failed with `timeout` by a run from before
   * PARTNER_WORD_PATCH (failed without the partner's word) that no later batch followed.
   */
  unansweredBatch?: string | null;
  /**
   * A failed live batch of this balance that the partner paid after all (issue 43, finding 4), or null:
   * its late money recorded and not settled yet (a late_answers row), or the partner's SUCCESSFUL on
   * record (rail_answers). Its money left: nothing more is swept until settle-late accepts it.
   */
  latePaidBatch?: string | null;
  /** While in the future: the merchant's settlement account was replaced, its live balances held until then (issue 43; `merchants set`). */
  heldUntil?: string | null;
}

export interface SettleableBalanceQuery {
  /** Keyset: the page starts after this balance key (merchant, environment, currency). */
  after?: BalanceKey | null;
  /** Keyset by merchant only: the page starts after every balance of this merchant. */
  afterMerchantId?: string;
  limit: number;
  merchantId?: string;
  environment?: Environment;
}

type Row = {
  merchant_id: string;
  environment: Environment;
  currency: string;
  available: string;
  has_account: boolean;
  bank_code: string | null;
  bank_currency: string | null;
  unanswered_batch: string | null;
  late_paid_batch: string | null;
  held_until: Date | string | null;
};

/**
 * One page of settleable balances (merchant_available > 0), ordered by merchant_id, environment,
 * currency and paged by that key: a range scan of account_balances' primary key from the key on (no
 * offset), so the 1,000th page of 100,000 merchants costs what the first does.
 */
export function listSettleableBalances(orm: Orm, query: SettleableBalanceQuery): Promise<SettleableBalance[]> {
  return selectSettleableBalances(orm.em.fork() as EntityManager, query);
}

async function selectSettleableBalances(em: EntityManager, query: SettleableBalanceQuery): Promise<SettleableBalance[]> {
  const where = [`b.account = 'merchant_available'`, 'b.amount > 0'];
  const params: unknown[] = [];
  if (query.after) {
    where.push('(b.merchant_id, b.environment, b.currency) > (?, ?, ?)');
    params.push(query.after.merchantId, query.after.environment, query.after.currency);
  }
  if (query.afterMerchantId !== undefined) {
    where.push('b.merchant_id > ?');
    params.push(query.afterMerchantId);
  }
  if (query.merchantId !== undefined) {
    where.push('b.merchant_id = ?');
    params.push(query.merchantId);
  }
  if (query.environment !== undefined) {
    where.push('b.environment = ?');
    params.push(query.environment);
  }
  const rows = await em.execute<Row[]>(
    `select b.merchant_id, b.environment, b.currency, b.amount::text as available,
            (m.settlement_bank_code is not null and (m.settlement_account_sealed is not null or m.settlement_account_number is not null)) as has_account,
            m.settlement_bank_code as bank_code, k.currency as bank_currency,
            case when m.settlement_held_until > now() then m.settlement_held_until end as held_until,
            (select s.id from settlements s
              where s.merchant_id = b.merchant_id and s.environment = b.environment and s.currency = b.currency and s.environment = 'live'
                and (s.status = 'pending'
                     or (s.status = 'failed' and s.failure_class = 'timeout'
                         and not exists (select 1 from settlements n where n.merchant_id = s.merchant_id and n.environment = s.environment
                                           and n.currency = s.currency and n.created_at > s.created_at)))
              order by s.created_at limit 1) as unanswered_batch,
            (select s.id from settlements s
              where s.merchant_id = b.merchant_id and s.environment = b.environment and s.currency = b.currency and s.environment = 'live'
                and s.status = 'failed'
                and (exists (select 1 from late_answers l where l.payment_id = s.id and l.settled_action is null)
                     or exists (select 1 from rail_answers a where a.payment_id = s.id and a.outcome = 'succeeded'))
              order by s.created_at limit 1) as late_paid_batch
     from account_balances b join merchants m on m.id = b.merchant_id
       left join banks k on k.code = m.settlement_bank_code
     where ${where.join(' and ')}
     order by b.merchant_id, b.environment, b.currency
     limit ?`,
    [...params, query.limit],
  );
  return rows.map((r) => ({
    merchantId: r.merchant_id,
    environment: r.environment,
    currency: r.currency,
    available: r.available,
    hasAccount: r.has_account,
    bankCode: r.bank_code,
    bankCurrency: r.bank_currency,
    unansweredBatch: r.unanswered_batch,
    latePaidBatch: r.late_paid_batch,
    heldUntil: r.held_until === null ? null : new Date(r.held_until).toISOString(),
  }));
}

/** Keeps why a run skipped one balance (the latest skip per balance), for `settlements skipped`. */
export async function recordSettlementSkip(orm: Orm, skip: SkippedBalance & { runId: string }): Promise<void> {
  const { runId, ...balance } = skip;
  await recordSettlementSkips(orm.em.fork() as EntityManager, runId, [balance]);
}

/**
 * Why the run does not start a batch for a balance, or null, in the order an operator can fix them:
 *
 * 1. the merchant has no settlement account (NO_SETTLEMENT_ACCOUNT: `merchants set` fixes it now);
 * 2. the account's bank takes another currency than the balance's (SETTLEMENT_CURRENCY_MISMATCH,
 *    naming both: the merchant has one account, so this balance waits for an account in its
 *    currency; the sweep refuses it too);
 * 3. the balance is live and no live rail exists (LIVE_RAIL_UNAVAILABLE: the batch could only fail
 *    at once and wait for an operator, filling `payments stuck` every run; no operator can fix it);
 * 4. the balance is live and one of its batches has no final answer from the partner (issue 29:
 *    unansweredBatchSkip), or a failed batch of it was paid by the partner after all (issue 43:
 *    latePaidBatchSkip, until settle-late accepts it): its money may be on its way, or gone, so
 *    nothing more is swept until it answers;
 * 5. the balance is live and the merchant's settlement account was replaced within
 *    SETTLEMENT_ACCOUNT_HOLD (issue 43: settlementAccountHoldSkip, until the hold's end).
 */
export function skipReason(
  balance: Pick<SettleableBalance, 'environment' | 'currency' | 'hasAccount' | 'bankCode' | 'bankCurrency' | 'unansweredBatch' | 'latePaidBatch' | 'heldUntil'>,
  rail: LiveRail = LIVE_RAIL,
): string | null {
  if (!balance.hasAccount || balance.bankCode === null) return NO_SETTLEMENT_ACCOUNT;
  if (balance.bankCurrency !== balance.currency) return settlementCurrencyMismatch(balance.bankCode, balance.bankCurrency, balance.currency);
  if (balance.environment === 'live' && rail === 'none') return LIVE_RAIL_UNAVAILABLE;
  if (balance.environment === 'live' && balance.latePaidBatch) return latePaidBatchSkip(balance.latePaidBatch);
  if (balance.environment === 'live' && balance.unansweredBatch) return unansweredBatchSkip(balance.unansweredBatch);
  if (balance.environment === 'live' && balance.heldUntil) return settlementAccountHoldSkip(balance.heldUntil);
  return null;
}

/**
 * The settlement run's page step, in one transaction: a page of settleable balances after
 * `request.after`; the skips (skipReason: no settlement account; an account in another currency;
 * live while no live rail exists) recorded with the run; the earlier skips of the balances it will settle forgotten. Answers balance
 * keys only (no amounts, no account numbers: the answer goes into the run's history). Idempotent: a
 * retried page writes the same rows. The skips are decided here, not in the workflow, so the
 * histories of runs from before a rule changed replay unchanged.
 */
export async function settlementRunPage(orm: Orm, request: SettlementRunPageRequest, rail: LiveRail = LIVE_RAIL): Promise<SettlementRunPage> {
  return orm.em.fork().transactional(async (em) => {
    const rows = await selectSettleableBalances(em as EntityManager, {
      after: request.after,
      limit: request.limit,
      ...(request.merchantId !== undefined ? { merchantId: request.merchantId } : {}),
      ...(request.environment !== undefined ? { environment: request.environment } : {}),
    });
    const key = (r: SettleableBalance): BalanceKey => ({ merchantId: r.merchantId, environment: r.environment, currency: r.currency });
    const settle: BalanceKey[] = [];
    const skipped: SkippedBalance[] = [];
    for (const row of rows) {
      const reason = skipReason(row, rail);
      if (reason === null) settle.push(key(row));
      else skipped.push({ ...key(row), reason });
    }
    await recordSettlementSkips(em as EntityManager, request.runId, skipped);
    await clearSettlementSkips(em as EntityManager, settle);
    return { settle, skipped, next: rows.length === request.limit ? key(rows[rows.length - 1]) : null };
  });
}

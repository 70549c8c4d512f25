import type { EntityManager } from '@mikro-orm/postgresql';
import type { BalanceKey, SkippedBalance } from '../../domain/settlement-run';
import type { Environment } from '../../domain/environment';
import type { Orm } from '../orm';
import { iso } from '../sql-values';

/**
 * `settlement_skips` (migrations/Migration20261125000004_settlement_runs.ts): the latest reason a
 * settlement run did not start a batch for a balance, so an operator can see why a merchant was not
 * settled (`settlements skipped`). Rows travel as one JSON parameter (jsonb_to_recordset), so a page
 * of skips is one statement.
 */

const RECORDS = `jsonb_to_recordset(?::jsonb) as s(merchant_id text, environment text, currency text, reason text)`;

const records = (skips: Array<BalanceKey & { reason?: string }>) =>
  JSON.stringify(skips.map((s) => ({ merchant_id: s.merchantId, environment: s.environment, currency: s.currency, reason: s.reason ?? null })));

/** Keeps each skip (one row per balance: a later skip replaces an earlier one), with the run and the time. */
export async function recordSettlementSkips(em: EntityManager, runId: string, skips: SkippedBalance[]): Promise<void> {
  if (skips.length === 0) return;
  await em.execute(
    `insert into settlement_skips (merchant_id, environment, currency, reason, run_id, skipped_at)
     select s.merchant_id, s.environment, s.currency, s.reason, ?, now() from ${RECORDS}
     on conflict (merchant_id, environment, currency) do update set reason = excluded.reason, run_id = excluded.run_id, skipped_at = excluded.skipped_at`,
    [runId, records(skips)],
  );
}

/** Forgets the skips of balances a run now starts a batch for (the reason no longer holds). */
export async function clearSettlementSkips(em: EntityManager, balances: BalanceKey[]): Promise<void> {
  if (balances.length === 0) return;
  await em.execute(
    `delete from settlement_skips k using ${RECORDS}
     where k.merchant_id = s.merchant_id and k.environment = s.environment and k.currency = s.currency`,
    [records(balances)],
  );
}

export interface SettlementSkipView {
  merchant_id: string;
  environment: Environment;
  currency: string;
  reason: string;
  run_id: string;
  skipped_at: string;
}

/** `settlements skipped [--merchant ID] [--env test|live] [--limit N]`: the kept skips, newest first. */
export async function listSettlementSkips(
  orm: Orm,
  filter: { merchantId?: string; environment?: Environment; limit: number },
): Promise<{ object: 'list'; data: SettlementSkipView[]; has_more: boolean }> {
  const where: string[] = [];
  const params: unknown[] = [];
  if (filter.merchantId) {
    where.push('merchant_id = ?');
    params.push(filter.merchantId);
  }
  if (filter.environment) {
    where.push('environment = ?');
    params.push(filter.environment);
  }
  const rows = await orm.em.fork().execute<Array<Omit<SettlementSkipView, 'skipped_at'> & { skipped_at: Date | string }>>(
    `select merchant_id, environment, currency, reason, run_id, skipped_at from settlement_skips
     ${where.length ? `where ${where.join(' and ')}` : ''}
     order by skipped_at desc, merchant_id, environment, currency limit ?`,
    [...params, filter.limit + 1],
  );
  const data = rows.slice(0, filter.limit).map((r) => ({ ...r, skipped_at: iso(r.skipped_at) }));
  return { object: 'list', data, has_more: rows.length > filter.limit };
}

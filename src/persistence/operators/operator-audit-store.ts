import type { OperatorAuditEntry, OperatorAuditRow } from '../../domain/operator-action';
import type { Orm } from '../orm';
import { iso } from '../sql-values';
import { paymentTypeOf } from '../../domain/payment-types';

/** The table of the record an audited id names; null for an id of no record table (a settlement run). */
function recordTable(paymentId: string): string | null {
  switch (paymentTypeOf(paymentId)) {
    case 'charge':
      return 'charges';
    case 'payout':
      return 'payouts';
    case 'refund':
      return 'refunds';
    case 'dispute':
      return 'disputes';
    case 'settlement':
      return 'settlements';
    default:
      return null;
  }
}

/** Anything that runs a statement: a forked EntityManager, or the one of the caller's transaction. */
interface Executor {
  execute<T>(sql: string, params: unknown[]): Promise<T>;
}

/**
 * Inserts one `operator_audit` row with `executor` (inside the caller's transaction when it is one).
 * The merchant and environment are the record's own (issue 31), read in the same statement; the
 * entry's (the run's search attributes) only for an id of no record table. A second write of the same
 * request (an activity retry, a replayed update) changes nothing and answers recorded: false.
 */
export async function insertOperatorAudit(executor: Executor, id: string, entry: OperatorAuditEntry): Promise<{ id: string; recorded: boolean }> {
  const table = recordTable(entry.paymentId);
  const source = table ? `(values (1)) one left join ${table} r on r.id = ?` : `(select null::text as merchant_id, null::text as environment, ?::text as id) r`;
  const rows = await executor.execute<Array<{ id: string }>>(
    `insert into operator_audit (id, payment_id, action, operator, reason, state_before, state_after, request_id, batch_id, merchant_id, environment, created_at)
     select ?, ?, ?, ?, ?, ?::jsonb, ?::jsonb, ?, ?, coalesce(r.merchant_id, ?), coalesce(r.environment, ?), ?::timestamptz from ${source}
     on conflict (payment_id, request_id) do nothing returning id`,
    [
      id,
      entry.paymentId,
      entry.action,
      entry.operator,
      entry.reason,
      JSON.stringify(entry.before ?? null),
      JSON.stringify(entry.after ?? null),
      entry.requestId,
      entry.batchId,
      entry.merchantId,
      entry.environment,
      entry.at,
      entry.paymentId,
    ],
  );
  return rows.length > 0 ? { id: rows[0].id, recorded: true } : { id, recorded: false };
}

/**
 * `operator_audit` (migrations/Migration20261126000001_operator_audit.ts): written by the workflows'
 * recordOperatorAction activity (or, for an action that is a write of the record, by that write in
 * its own transaction: insertOperatorAudit), read by `audit list`.
 */
export function recordOperatorAction(orm: Orm, id: string, entry: OperatorAuditEntry): Promise<{ id: string; recorded: boolean }> {
  return insertOperatorAudit(orm.em.fork(), id, entry);
}

export interface AuditFilter {
  paymentId?: string;
  since?: Date;
  action?: string;
  batchId?: string;
  /** Rows of this merchant only (`merchant_id`). */
  merchantId?: string;
  limit: number;
}

/** `audit list [--payment ID] [--merchant M] [--since T] [--action A] [--batch B] [--limit N]`: newest first. */
export async function listOperatorAudit(orm: Orm, filter: AuditFilter): Promise<{ object: 'list'; data: OperatorAuditRow[]; has_more: boolean }> {
  const where: string[] = [];
  const params: unknown[] = [];
  const add = (clause: string, value: unknown) => {
    where.push(clause);
    params.push(value);
  };
  if (filter.paymentId) add('payment_id = ?', filter.paymentId);
  if (filter.since) add('created_at >= ?', filter.since.toISOString());
  if (filter.action) add('action = ?', filter.action);
  if (filter.batchId) add('batch_id = ?', filter.batchId);
  if (filter.merchantId) add('merchant_id = ?', filter.merchantId);
  const rows = await orm.em.fork().execute<Array<Omit<OperatorAuditRow, 'created_at'> & { created_at: Date | string }>>(
    `select id, payment_id, action, operator, reason, state_before, state_after, request_id, batch_id, merchant_id, environment, temporal_identity, created_at
     from operator_audit ${where.length ? `where ${where.join(' and ')}` : ''}
     order by created_at desc, id desc limit ?`,
    [...params, filter.limit + 1],
  );
  const data = rows.slice(0, filter.limit).map((r) => ({ ...r, created_at: iso(r.created_at) }));
  return { object: 'list', data, has_more: rows.length > filter.limit };
}

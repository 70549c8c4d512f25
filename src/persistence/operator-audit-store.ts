import type { OperatorAuditEntry, OperatorAuditRow } from '../domain/operator-action';
import type { Orm } from './orm';
import { iso } from './sql-values';

/**
 * `operator_audit` (migrations/Migration20261126000001_operator_audit.ts): written by the workflows'
 * recordOperatorAction activity, read by `audit list`. A second write of the same request (an
 * activity retry, a replayed update) changes nothing.
 */
export async function recordOperatorAction(orm: Orm, id: string, entry: OperatorAuditEntry): Promise<{ id: string; recorded: boolean }> {
  const rows = await orm.em.fork().execute<Array<{ id: string }>>(
    `insert into operator_audit (id, payment_id, action, operator, reason, state_before, state_after, request_id, batch_id, merchant_id, environment, created_at)
     values (?, ?, ?, ?, ?, ?::jsonb, ?::jsonb, ?, ?, ?, ?, ?)
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
    ],
  );
  return rows.length > 0 ? { id: rows[0].id, recorded: true } : { id, recorded: false };
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
    `select id, payment_id, action, operator, reason, state_before, state_after, request_id, batch_id, merchant_id, environment, created_at
     from operator_audit ${where.length ? `where ${where.join(' and ')}` : ''}
     order by created_at desc, id desc limit ?`,
    [...params, filter.limit + 1],
  );
  const data = rows.slice(0, filter.limit).map((r) => ({ ...r, created_at: iso(r.created_at) }));
  return { object: 'list', data, has_more: rows.length > filter.limit };
}

import type { Environment } from '../../src/domain/environment';
import type { Orm } from '../../src/persistence/orm';

/** Rows a merchant owns in the tables a request could write to; `last_sequence` is its event counter. */
export interface RowCounts {
  charges: number;
  events: number;
  ledger_entries: number;
  idempotency_keys: number;
  last_sequence: number;
}

/**
 * Counts one merchant's rows, straight from PostgreSQL, across both environments or in one. Used to
 * prove that a rejected request wrote nothing (no charge, no event, no ledger leg, no burned key, no
 * sequence number consumed).
 */
export async function countRows(orm: Orm, merchantId: string, environment?: Environment): Promise<RowCounts> {
  const envFilter = environment ? 'and environment = ?' : '';
  const tables = ['charges', 'events', 'ledger_entries', 'idempotency_keys'] as const;
  const selects = tables.map((t) => `(select count(*)::int from ${t} where merchant_id = ? ${envFilter}) as ${t}`);
  selects.push(`(select coalesce(sum(last_sequence), 0)::int from event_counters where merchant_id = ? ${envFilter}) as last_sequence`);
  const params: unknown[] = [];
  for (let i = 0; i < tables.length + 1; i++) params.push(merchantId, ...(environment ? [environment] : []));
  const rows = await orm.em.getConnection().execute<RowCounts[]>(`select ${selects.join(', ')}`, params);
  const row = rows[0];
  return {
    charges: Number(row.charges),
    events: Number(row.events),
    ledger_entries: Number(row.ledger_entries),
    idempotency_keys: Number(row.idempotency_keys),
    last_sequence: Number(row.last_sequence),
  };
}

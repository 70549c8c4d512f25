import type { Orm } from '../../src/persistence/orm';

/**
 * The rows an operation read from each table (`seq_tup_read + idx_tup_fetch` of pg_stat_user_tables,
 * the heap rows sequential and index scans returned), for the issue 34 tests that fail when a path
 * rescans a history. `orm` must be a pool of ONE connection that the operation runs on: PostgreSQL
 * keeps a backend's table counts to itself until the backend goes idle and flushes them, so the
 * counts are flushed (pg_stat_force_next_flush) on that very connection before each reading. Other
 * connections' counts arrive when they flush, so the tables measured must be ones nothing else
 * reads meanwhile (the caller runs no worker).
 */
export async function tableReads<T>(orm: Orm, tables: string[], operation: () => Promise<T>): Promise<{ result: T; reads: Record<string, number> }> {
  const before = await counts(orm, tables);
  const result = await operation();
  const after = await counts(orm, tables);
  return { result, reads: Object.fromEntries(tables.map((t) => [t, after[t] - before[t]])) };
}

async function counts(orm: Orm, tables: string[]): Promise<Record<string, number>> {
  const connection = orm.em.getConnection();
  // The force takes effect when the backend goes idle after this statement: before the next one runs.
  await connection.execute(`select pg_stat_force_next_flush()`);
  await connection.execute(`select pg_stat_clear_snapshot()`);
  const rows = await connection.execute<{ relname: string; n: string }[]>(
    `select relname, (coalesce(seq_tup_read, 0) + coalesce(idx_tup_fetch, 0))::text as n from pg_stat_user_tables where relname in (${tables.map(() => '?').join(', ')})`,
    tables,
  );
  const out: Record<string, number> = {};
  for (const table of tables) {
    const row = rows.find((r) => r.relname === table);
    if (!row) throw new Error(`pg_stat_user_tables has no row for ${table}`);
    out[table] = Number(row.n);
  }
  return out;
}

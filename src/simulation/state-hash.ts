import type { Orm } from '../persistence/orm';

/**
 * A hash of the engine's database after a step (issue 44, exact replay): per table, an md5 of its
 * rows, each row as text in the text's order, without the columns of a time type (the run's clock is
 * real time plus an offset: two runs of one plan never write the same instants) and without sealed
 * secrets and salted hashes (a fresh nonce each time). Two runs of one plan that agree on every table after every step made
 * the same money, events and deliveries in the same order; `--replay-check` names the first step and
 * the tables where they did not.
 */

/** The tables a replay compares: the money, the payments, what was told, and what the partner was asked. */
export const HASHED_TABLES = [
  'merchants',
  'charges',
  'payouts',
  'refunds',
  'disputes',
  'settlements',
  'ledger_entries',
  'account_balances',
  'events',
  'webhook_endpoints',
  'webhook_deliveries',
  'rail_references',
  'rail_answers',
  'late_answers',
] as const;

/** Per table: its row count and an md5 of its rows; per column, an md5 of that column's values (what `--replay-check` names). */
/** Sealed secrets and salted hashes: ciphertext under a fresh nonce, never the same twice (src/support/secret-box.ts). */
const SEALED = /(_sealed|secret_box|_box|_secret|secrets|_hash|salt)$/;

/** An ISO 8601 instant inside text (PostgreSQL's regex syntax). */
const INSTANT = '[0-9]{4}-[0-9]{2}-[0-9]{2}[T ][0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?(Z|[+-][0-9]{2}(:?[0-9]{2})?)?';

export type StateHash = Record<string, { rows: number; md5: string; columns: Record<string, string> }>;

/** The hash of each of HASHED_TABLES (a table that does not exist is left out). */
export async function stateHash(orm: Orm): Promise<StateHash> {
  const conn = orm.em.getConnection();
  const columns = await conn.execute<Array<{ table_name: string; column_name: string }>>(
    `select table_name, column_name from information_schema.columns
      where table_schema = 'public' and table_name in (${HASHED_TABLES.map(() => '?').join(', ')}) and data_type not like 'timestamp%' and data_type not in ('date', 'time', 'interval')
      order by table_name, ordinal_position`,
    [...HASHED_TABLES],
  );
  const byTable = new Map<string, string[]>();
  for (const c of columns.filter((c) => !SEALED.test(c.column_name))) byTable.set(c.table_name, [...(byTable.get(c.table_name) ?? []), c.column_name]);
  const hash: StateHash = {};
  for (const [table, cols] of byTable) {
    // As text, with every instant written inside it (a JSON body's created_at) as `t`, and a URL
    // without its scheme and authority (the receivers listen on ports of the moment).
    const quoted = cols.map((c) => {
      const q = `"${c.replace(/"/g, '""')}"`;
      const text = `regexp_replace(${q}::text, '${INSTANT}', 't', 'g')`;
      return `${c === 'url' || c.endsWith('_url') ? `regexp_replace(${text}, '^[a-z]+://[^/]+', '')` : text} as ${q}`;
    });
    const names = cols.map((c) => `"${c.replace(/"/g, '""')}"`);
    const perColumn = names.map((q, i) => `md5(coalesce(string_agg(${q}::text, '|' order by ${q}::text), '')) as c${i}`).join(', ');
    const [row] = await conn.execute<Array<Record<string, string | number>>>(
      `select count(*)::int as n, md5(coalesce(string_agg(r, '|' order by r), '')) as all_rows, ${perColumn}
         from (select row(${names.join(', ')})::text as r, * from (select ${quoted.join(', ')} from ${table}) v) t`,
    );
    hash[table] = { rows: Number(row!.n), md5: String(row!.all_rows).slice(0, 12), columns: Object.fromEntries(cols.map((c, i) => [c, String(row![`c${i}`]).slice(0, 12)])) };
  }
  return hash;
}

/** The tables whose hashes differ (or that one side has and the other not), each with the columns that differ. */
export function differingTables(a: StateHash, b: StateHash): Array<{ table: string; rows: [number, number]; columns: string[] }> {
  return [...new Set([...Object.keys(a), ...Object.keys(b)])]
    .sort()
    .filter((t) => a[t]?.md5 !== b[t]?.md5)
    .map((t) => {
      const ca = a[t]?.columns ?? {};
      const cb = b[t]?.columns ?? {};
      const columns = [...new Set([...Object.keys(ca), ...Object.keys(cb)])].filter((c) => ca[c] !== cb[c]);
      return { table: t, rows: [a[t]?.rows ?? 0, b[t]?.rows ?? 0], columns };
    });
}

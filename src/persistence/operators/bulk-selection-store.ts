import type { Orm } from '../orm';

/**
 * A bulk dry run's selection (issue 31, finding 1): `bulk_selections` (Migration20261208000001). The
 * token (`opsel_…`, random, not a secret) names the exact payments the dry run showed, the command
 * and its options, the list query, and who ran it; `--yes --token` acts on those payments only, once,
 * before it expires.
 */

/** One payment of the set, as the dry run listed it. */
export interface SelectedRow {
  id: string;
  environment: string | null;
  merchant_id: string | null;
}

export interface BulkSelection {
  token: string;
  command: string;
  /** The list query as run: the run state, the merchant when given, the operator's query. */
  query: string;
  merchantId: string | null;
  /** The command's options besides who and why (e.g. `--as succeeded`): `--yes` must give the same. */
  params: Record<string, unknown>;
  payments: SelectedRow[];
  createdBy: string;
  createdAt: Date;
  expiresAt: Date;
  usedAt: Date | null;
  usedBy: string | null;
  batchId: string | null;
}

/** Expired selections are kept this long (for a look back at what a dry run showed), then pruned. */
const KEEP_AFTER_EXPIRY = '30 days';

interface Row {
  token: string;
  command: string;
  query: string;
  merchant_id: string | null;
  params: Record<string, unknown> | string;
  payments: SelectedRow[] | string;
  created_by: string;
  created_at: Date;
  expires_at: Date;
  used_at: Date | null;
  used_by: string | null;
  batch_id: string | null;
}

const json = <T>(value: T | string): T => (typeof value === 'string' ? (JSON.parse(value) as T) : value);

function toSelection(row: Row): BulkSelection {
  return {
    token: row.token,
    command: row.command,
    query: row.query,
    merchantId: row.merchant_id,
    params: json(row.params),
    payments: json(row.payments),
    createdBy: row.created_by,
    createdAt: new Date(row.created_at),
    expiresAt: new Date(row.expires_at),
    usedAt: row.used_at === null ? null : new Date(row.used_at),
    usedBy: row.used_by,
    batchId: row.batch_id,
  };
}

/** Stores a dry run's selection, valid for `ttlMs` from now (the database's clock); prunes long-expired ones. */
export async function saveSelection(
  orm: Orm,
  selection: Pick<BulkSelection, 'token' | 'command' | 'query' | 'merchantId' | 'params' | 'payments' | 'createdBy'>,
  ttlMs: number,
): Promise<BulkSelection> {
  const db = orm.em.getConnection();
  await db.execute(`delete from bulk_selections where expires_at < now() - interval '${KEEP_AFTER_EXPIRY}'`);
  const [row] = await db.execute<Row[]>(
    `insert into bulk_selections (token, command, query, merchant_id, params, payments, created_by, expires_at)
     values (?, ?, ?, ?, ?::jsonb, ?::jsonb, ?, now() + make_interval(secs => ?::double precision / 1000))
     returning *`,
    [selection.token, selection.command, selection.query, selection.merchantId, JSON.stringify(selection.params), JSON.stringify(selection.payments), selection.createdBy, ttlMs],
  );
  return toSelection(row!);
}

export async function findSelection(orm: Orm, token: string): Promise<BulkSelection | null> {
  const [row] = await orm.em.getConnection().execute<Row[]>(`select * from bulk_selections where token = ?`, [token]);
  return row ? toSelection(row) : null;
}

/**
 * Takes the selection for one `--yes` run: one conditional update, so of two runs at once only one
 * gets it. False when it was used already or has expired meanwhile.
 */
export async function claimSelection(orm: Orm, token: string, usedBy: string, batchId: string): Promise<boolean> {
  const taken = await orm.em
    .getConnection()
    .execute<Array<{ token: string }>>(`update bulk_selections set used_at = now(), used_by = ?, batch_id = ? where token = ? and used_at is null and expires_at > now() returning token`, [
      usedBy,
      batchId,
      token,
    ]);
  return taken.length === 1;
}

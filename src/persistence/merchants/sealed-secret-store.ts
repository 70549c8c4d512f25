import type { Orm } from '../orm';

/** The sealed secrets of one webhook endpoint (migration 20261122000003): the signing secret and the one it replaced. */
export interface SealedSecretRow {
  id: string;
  secret_box: string;
  previous_secret_box: string | null;
  /** Secrets rotated out before the previous one (migration 20261209000001), each sealed. */
  retired_secrets: Array<{ box: string; expires_at: string }>;
}

/** What to store instead of a sealed value; `null` keeps it. */
export type Reseal = (sealed: string, endpointId: string) => string | null;

/**
 * One batch, in id order after `afterId`, every endpoint (deleted ones too: their rows still hold
 * secrets). The rows are locked for the transaction, so a concurrent rotation waits and is not lost.
 * Returns the last id seen (null when there are no more rows).
 */
export async function resealSecretBatch(orm: Orm, afterId: string, limit: number, reseal: Reseal): Promise<string | null> {
  return orm.em.fork().transactional(async (em) => {
    const rows = await em.execute<SealedSecretRow[]>(
      `select id, secret_box, previous_secret_box, retired_secrets from webhook_endpoints where id > ? order by id limit ? for update`,
      [afterId, limit],
    );
    for (const row of rows) {
      const current = reseal(row.secret_box, row.id);
      const previous = row.previous_secret_box === null ? null : reseal(row.previous_secret_box, row.id);
      const retired = row.retired_secrets.map((r) => ({ ...r, resealed: reseal(r.box, row.id) }));
      const retiredChanged = retired.some((r) => r.resealed !== null);
      if (current === null && previous === null && !retiredChanged) continue;
      await em.execute(`update webhook_endpoints set secret_box = ?, previous_secret_box = ?, retired_secrets = ?::jsonb where id = ?`, [
        current ?? row.secret_box,
        previous ?? row.previous_secret_box,
        JSON.stringify(retired.map((r) => ({ box: r.resealed ?? r.box, expires_at: r.expires_at }))),
        row.id,
      ]);
    }
    return rows.length === 0 ? null : rows[rows.length - 1].id;
  });
}

/**
 * Where a table keeps a settlement account number (migration 20261125000005): sealed with its masked
 * form, or, on a row written before that migration and not sealed yet, in plain text.
 */
export interface AccountColumns {
  table: 'merchants' | 'settlements';
  /** What an error calls a row: `merchant mer_…`, `settlement stl_…`. */
  owner: 'merchant' | 'settlement';
  plaintext: string;
  sealed: string;
  masked: string;
}

export const MERCHANT_ACCOUNT_COLUMNS: AccountColumns = {
  table: 'merchants',
  owner: 'merchant',
  plaintext: 'settlement_account_number',
  sealed: 'settlement_account_sealed',
  masked: 'settlement_account_masked',
};

export const SETTLEMENT_DESTINATION_COLUMNS: AccountColumns = {
  table: 'settlements',
  owner: 'settlement',
  plaintext: 'destination_account_number',
  sealed: 'destination_account_sealed',
  masked: 'destination_account_masked',
};

/** What to store for one row's number (sealed and masked; the plain text is cleared), or `null` to keep the row. */
export type AccountReseal = (account: { plaintext: string | null; sealed: string | null }, rowId: string) => { sealed: string; masked: string } | null;

/**
 * One batch of rows holding a number, in id order after `afterId`: only the plain ones (`plaintext`,
 * by a partial index; what a worker seals at start), or every one (`all`: `secrets reseal`). Rows
 * locked for the transaction, like resealSecretBatch. Returns the last id seen (null: no more rows).
 */
export async function resealAccountBatch(
  orm: Orm,
  columns: AccountColumns,
  rows: 'plaintext' | 'all',
  afterId: string,
  limit: number,
  reseal: AccountReseal,
): Promise<string | null> {
  const { table, plaintext, sealed, masked } = columns;
  const holding = rows === 'plaintext' ? `${plaintext} is not null` : `(${plaintext} is not null or ${sealed} is not null)`;
  return orm.em.fork().transactional(async (em) => {
    const found = await em.execute<Array<{ id: string; plaintext: string | null; sealed: string | null }>>(
      `select id, ${plaintext} as plaintext, ${sealed} as sealed from ${table} where id > ? and ${holding} order by id limit ? for update`,
      [afterId, limit],
    );
    for (const row of found) {
      const next = reseal({ plaintext: row.plaintext, sealed: row.sealed }, row.id);
      if (next === null) continue;
      await em.execute(`update ${table} set ${sealed} = ?, ${masked} = ?, ${plaintext} = null where id = ?`, [next.sealed, next.masked, row.id]);
    }
    return found.length === 0 ? null : found[found.length - 1].id;
  });
}

import type { Orm } from './orm';

/** The sealed secrets of one webhook endpoint (migration 20261122000003): the signing secret and the one it replaced. */
export interface SealedSecretRow {
  id: string;
  secret_box: string;
  previous_secret_box: string | null;
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
      `select id, secret_box, previous_secret_box from webhook_endpoints where id > ? order by id limit ? for update`,
      [afterId, limit],
    );
    for (const row of rows) {
      const current = reseal(row.secret_box, row.id);
      const previous = row.previous_secret_box === null ? null : reseal(row.previous_secret_box, row.id);
      if (current === null && previous === null) continue;
      await em.execute(`update webhook_endpoints set secret_box = ?, previous_secret_box = ? where id = ?`, [
        current ?? row.secret_box,
        previous ?? row.previous_secret_box,
        row.id,
      ]);
    }
    return rows.length === 0 ? null : rows[rows.length - 1].id;
  });
}

import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * A live settlement batch of this merchant and currency still waiting for the partner's word
 * (`pending`), other than `exceptId`, or null (issue 29): while one is, nothing more of that balance
 * is swept (settlement-store.ts) and no retry goes out (services/retry-settlement.ts).
 */
export async function pendingLiveBatch(em: Pick<EntityManager, 'execute'>, merchantId: string, currency: string, exceptId = ''): Promise<string | null> {
  const [row] = await em.execute<{ id: string }[]>(
    `select id from settlements where merchant_id = ? and environment = 'live' and currency = ? and status = 'pending' and id <> ? limit 1`,
    [merchantId, currency, exceptId],
  );
  return row?.id ?? null;
}

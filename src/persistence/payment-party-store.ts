import type { EntityManager } from '@mikro-orm/postgresql';
import type { SecretBox } from '../support/secret-box';
import type { Orm } from './orm';

/**
 * The full identifier of a payment's counterparty (a charge's customer, a payout's recipient), sealed
 * with SECRETS_KEY (`payment_parties`, migration 20261128000003). The payment rows keep only the
 * masked form; the rail (request-to-pay, transfer) and the customer's receipt open this one. Written
 * in the create's transaction, once (a replayed create writes nothing).
 */
export async function recordPaymentParty(em: EntityManager, box: SecretBox, paymentId: string, identifier: string): Promise<void> {
  await em.execute(`insert into payment_parties (payment_id, party_sealed) values (?, ?) on conflict (payment_id) do nothing`, [paymentId, box.seal(identifier)]);
}

/** The counterparty's identifier, opened; null when none was kept (payments created before issue 20). */
export async function paymentParty(orm: Orm, box: SecretBox, paymentId: string): Promise<string | null> {
  const rows = await orm.em.getConnection().execute<Array<{ party_sealed: string }>>(`select party_sealed from payment_parties where payment_id = ?`, [paymentId]);
  return rows[0] ? box.open(rows[0].party_sealed) : null;
}

/**
 * One batch of counterparties for `secrets reseal`, in payment id order after `afterId`, the rows
 * locked for the transaction; `reseal` answers the new sealed value or null to keep it. Returns the
 * last id seen (null: no more rows).
 */
export async function resealPartyBatch(orm: Orm, afterId: string, limit: number, reseal: (sealed: string, paymentId: string) => string | null): Promise<string | null> {
  return orm.em.fork().transactional(async (em) => {
    const rows = await em.execute<Array<{ payment_id: string; party_sealed: string }>>(
      `select payment_id, party_sealed from payment_parties where payment_id > ? order by payment_id limit ? for update`,
      [afterId, limit],
    );
    for (const row of rows) {
      const next = reseal(row.party_sealed, row.payment_id);
      if (next !== null) await em.execute(`update payment_parties set party_sealed = ? where payment_id = ?`, [next, row.payment_id]);
    }
    return rows.length === 0 ? null : rows[rows.length - 1].payment_id;
  });
}

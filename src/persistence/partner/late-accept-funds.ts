import type { EntityManager } from '@mikro-orm/postgresql';
import type { ReviewedKind } from '../../domain/payment-review';

/**
 * `settle-late --action accept` never takes available below zero (issue 43, finding 4). Accepting a
 * payout or settlement batch the partner paid after it failed reserves its money again from the
 * merchant's available balance; when available no longer holds it (spent, paid out, or swept into
 * another batch), the accept is refused with the figures and the late money stays in `late_funds`,
 * its review waiting. A live balance with such a batch is not swept by settlement runs meanwhile
 * (settlement-balances.ts, latePaidBatchSkip), so the merchant's next credits cover it. Reads the
 * balance row under a lock, in the settle's transaction, so no posting slips in between. Answers why
 * the accept is refused (the store throws it as LateSettleRefusedError), or null.
 */
export async function acceptBelowZeroRefusal(
  em: Pick<EntityManager, 'execute'>,
  kind: Exclude<ReviewedKind, 'charge'>,
  payment: { id: string; merchantId: string; environment: string; currency: string },
  amount: number,
): Promise<string | null> {
  const rows = await em.execute<Array<{ amount: string }>>(
    `select amount::text as amount from account_balances where merchant_id = ? and environment = ? and currency = ? and account = 'merchant_available' for update`,
    [payment.merchantId, payment.environment, payment.currency],
  );
  const available = Number(rows[0]?.amount ?? 0);
  if (available >= amount) return null;
  return (
    `${kind} ${payment.id}: accepting it would take the merchant's ${payment.environment} ${payment.currency} available balance below zero ` +
      `(available ${available}, the ${kind} ${amount} minor units): not accepted, nothing changed. The late money stays recorded (late_funds) and its review waits; ` +
      `accept it once available covers it (the merchant's next credits; settlement runs skip this balance meanwhile), or recover the money from the merchant first`
  );
}

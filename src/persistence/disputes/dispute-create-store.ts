import type { EntityManager } from '@mikro-orm/postgresql';
import type { DisputeRecord } from '../../domain/dispute';
import { disputeHoldTransfer } from '../../domain/dispute-ledger';
import { ApiError } from '../../domain/errors';
import type { CreateAnswer } from '../charges/charge-create-store';
import { sqlStateOf } from '../db-errors';
import { DISPUTE_COLUMNS, disputeValues, rowToDispute } from './dispute-mapping';
import { writeDisputeStateChange } from './dispute-store';
import { claimIdempotencyKey, storeIdempotentAnswer, type Claim, type IdempotencyScope } from '../idempotency-store';
import type { Orm } from '../orm';

export type DisputeWrite = { kind: 'written'; dispute: DisputeRecord; answer: CreateAnswer } | Exclude<Claim, { kind: 'claimed' }>;

/** The charge a dispute is opened on, as the create reads it under its row lock. */
export interface DisputableCharge {
  id: string;
  amount: number;
  currency: string;
  /** What is still disputable: the amount minus the charge's pending and succeeded refunds and its lost disputes. */
  disputable: number;
}

/**
 * Locks the charge row (FOR UPDATE, held to commit: the lock refund creates take too) and checks it
 * can be disputed: 404 `not_found` unless it is the caller's (merchant and environment), 422
 * `charge_not_disputable` unless it `succeeded` (a reversed charge is not disputable), 409
 * `dispute_already_open` when a dispute of it is still open. Concurrent opens of one charge take this
 * lock one after the other: the second sees the first's dispute (READ COMMITTED: the reads after the
 * lock see everything the previous holder committed), and the unique index
 * disputes_one_open_per_charge stands behind it.
 *
 * Disputable: the charge amount minus its pending and succeeded refunds (money already on its way
 * back to the customer) and minus its lost disputes (money already charged back); a won dispute
 * gave its amount back, so it counts for nothing.
 */
async function lockCharge(em: EntityManager, scope: IdempotencyScope, chargeId: string): Promise<DisputableCharge> {
  const rows = await em.execute<{ id: string; status: string; amount: string; currency: string }[]>(
    `select id, status, amount::text as amount, currency from charges where id = ? and merchant_id = ? and environment = ? for update`,
    [chargeId, scope.merchantId, scope.environment],
  );
  if (rows.length === 0) throw new ApiError('not_found', `No charge ${chargeId}.`, { param: 'id' });
  const charge = rows[0];
  if (charge.status !== 'succeeded') {
    throw new ApiError('charge_not_disputable', `Charge ${chargeId} is ${charge.status}: only a succeeded charge can be disputed.`, { param: 'id' });
  }
  const open = await em.execute<{ id: string }[]>(`select id from disputes where charge_id = ? and status in ('needs_response', 'under_review') limit 1`, [chargeId]);
  if (open.length > 0) throw alreadyOpen(chargeId, open[0].id);
  const sums = await em.execute<{ refunded: string; lost: string }[]>(
    `select (select coalesce(sum(amount), 0) from refunds where charge_id = ? and status in ('pending', 'succeeded'))::text as refunded,
            (select coalesce(sum(amount), 0) from disputes where charge_id = ? and status = 'lost')::text as lost`,
    [chargeId, chargeId],
  );
  const amount = Number(charge.amount);
  return { id: charge.id, amount, currency: charge.currency, disputable: amount - Number(sums[0].refunded) - Number(sums[0].lost) };
}

function alreadyOpen(chargeId: string, disputeId?: string): ApiError {
  return new ApiError('dispute_already_open', `Charge ${chargeId} already has an open dispute${disputeId ? ` (${disputeId})` : ''}: a charge has at most one open dispute at a time.`, {
    param: 'id',
  });
}

/** The requested amount (or, when none, all that is still disputable), or 422 `amount_exceeds_disputable`. */
function disputeAmount(charge: DisputableCharge, requested: number | undefined): number {
  if (charge.disputable <= 0) {
    throw new ApiError(
      'amount_exceeds_disputable',
      `Charge ${charge.id} has nothing left to dispute (its refunds and lost disputes cover its amount of ${charge.amount}).`,
      { param: 'amount' },
    );
  }
  if (requested === undefined) return charge.disputable;
  if (requested > charge.disputable) {
    throw new ApiError('amount_exceeds_disputable', `amount ${requested} is more than the ${charge.disputable} still disputable on charge ${charge.id} (its amount minus refunds).`, {
      param: 'amount',
    });
  }
  return requested;
}

/**
 * POST /v1/sandbox/charges/{id}/disputes' one database transaction, in the order of the refund
 * create (refund-create-store.ts): claims the Idempotency-Key; locks the charge and checks it is
 * disputable, has no open dispute, and what is left; stores the answer; writes the dispute row, its
 * hold (available → reserved: the balance rows in account order, no balance check, a chargeback may
 * drive available below zero; the ledger entries with the event counter) and `dispute.opened`, the
 * event counter last.
 * All of it commits together, or nothing does: a refusal (404, 409, 422) rolls the claim back too,
 * so the same key may be used again once it can succeed.
 *
 * `draftFor(id, charge, amount)` builds the dispute; `answerFor` renders the stored answer.
 */
export async function writeDisputeOnce(
  orm: Orm,
  scope: IdempotencyScope,
  requestHash: string,
  proposedId: string,
  request: { chargeId: string; amount?: number },
  draftFor: (id: string, charge: DisputableCharge, amount: number) => DisputeRecord,
  answerFor: (dispute: DisputeRecord) => CreateAnswer,
): Promise<DisputeWrite> {
  try {
    return await orm.em.fork().transactional(async (em): Promise<DisputeWrite> => {
      const claim = await claimIdempotencyKey(em, scope, requestHash, proposedId);
      if (claim.kind !== 'claimed') return claim;
      // A claim taken over from a request that died before its commit wrote nothing (claim and dispute
      // commit together); a dispute under the claimed id exists only if that commit happened after all.
      const existing = await em.execute<Record<string, unknown>[]>(`select * from disputes where id = ?`, [claim.resourceId]);
      if (existing.length > 0) {
        const dispute = rowToDispute(existing[0]);
        const answer = answerFor(dispute);
        await storeIdempotentAnswer(em, scope, answer.status, answer.body);
        return { kind: 'written', dispute, answer };
      }
      const charge = await lockCharge(em, scope, request.chargeId);
      const dispute = draftFor(claim.resourceId, charge, disputeAmount(charge, request.amount));
      const answer = answerFor(dispute);
      await storeIdempotentAnswer(em, scope, answer.status, answer.body);
      await em.execute(`insert into disputes (${DISPUTE_COLUMNS.join(', ')}) values (${DISPUTE_COLUMNS.map(() => '?').join(', ')})`, disputeValues(dispute));
      await writeDisputeStateChange(em, dispute, [disputeHoldTransfer(dispute)], dispute.createdAt, 'dispute.opened');
      return { kind: 'written', dispute, answer };
    });
  } catch (error) {
    // The charge lock makes this unreachable; the index is the last word if it ever is not.
    if (sqlStateOf(error) === '23505' && /disputes_one_open_per_charge/.test(String((error as Error).message))) throw alreadyOpen(request.chargeId);
    throw error;
  }
}

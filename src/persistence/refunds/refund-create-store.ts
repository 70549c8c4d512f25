import type { EntityManager } from '@mikro-orm/postgresql';
import { ApiError } from '../../domain/errors';
import { ACCOUNTS } from '../../domain/ledger';
import type { RefundRecord } from '../../domain/refund';
import { refundReserveTransfer } from '../../domain/refund-ledger';
import type { CreateAnswer } from '../charges/charge-create-store';
import { claimIdempotencyKey, storeIdempotentAnswer, type Claim, type IdempotencyScope } from '../idempotency-store';
import { REFUND_COLUMNS, refundValues, rowToRefund } from './refund-mapping';
import { writeRefundStateChange } from './refund-store';
import type { Orm } from '../orm';
import { railOf, type PaymentRail } from '../../domain/rail-routes';

export type RefundWrite = { kind: 'written'; refund: RefundRecord; answer: CreateAnswer } | Exclude<Claim, { kind: 'claimed' }>;

/** The charge a refund is asked for, as the create reads it under its row lock. */
export interface RefundableCharge {
  id: string;
  amount: number;
  currency: string;
  /** What is still refundable: the amount minus the charge's pending and succeeded refunds and its open and lost disputes. */
  refundable: number;
  /** The charge's rail: a refund goes back through it (issue 45). */
  rail: PaymentRail;
}

/**
 * Locks the charge row (FOR UPDATE, held to commit) and checks it can be refunded: 404 `not_found`
 * unless it is the caller's (merchant and environment), 422 `charge_not_refundable` unless it
 * `succeeded` (a reversed charge is not refundable), and sums its pending and succeeded refunds.
 * Every refund create of a charge takes this lock first, so concurrent creates count each other's
 * refunds one after the other: together they never exceed the charge (READ COMMITTED: the sum after
 * the lock sees every refund committed by the previous holder).
 *
 * Disputed money is not refundable: the amount of an open dispute (held for the cardholder) or a lost
 * one (already charged back) counts against the charge too, so refunds plus disputes never pay the
 * customer more than the charge. Dispute opens take this same lock (dispute-create-store.ts); a won
 * dispute gave its amount back and counts for nothing.
 */
async function lockCharge(em: EntityManager, scope: IdempotencyScope, chargeId: string): Promise<RefundableCharge> {
  const rows = await em.execute<{ id: string; status: string; amount: string; currency: string; environment: string; rail: PaymentRail | null }[]>(
    `select id, status, amount::text as amount, currency, environment, rail from charges where id = ? and merchant_id = ? and environment = ? for update`,
    [chargeId, scope.merchantId, scope.environment],
  );
  if (rows.length === 0) throw new ApiError('not_found', `No charge ${chargeId}.`, { param: 'charge' });
  const charge = rows[0];
  if (charge.status !== 'succeeded') {
    throw new ApiError('charge_not_refundable', `Charge ${chargeId} is ${charge.status}: only a succeeded charge can be refunded.`, { param: 'charge' });
  }
  const sums = await em.execute<{ committed: string }[]>(
    `select ((select coalesce(sum(amount), 0) from refunds where charge_id = ? and status in ('pending', 'succeeded'))
           + (select coalesce(sum(amount), 0) from disputes where charge_id = ? and status in ('needs_response', 'under_review', 'lost')))::text as committed`,
    [chargeId, chargeId],
  );
  const amount = Number(charge.amount);
  return { id: charge.id, amount, currency: charge.currency, refundable: amount - Number(sums[0].committed), rail: railOf(charge) };
}

/** The requested amount (or, when none, all that is still refundable), or 422 `amount_exceeds_refundable`. */
function refundAmount(charge: RefundableCharge, requested: number | undefined): number {
  if (charge.refundable <= 0) {
    throw new ApiError('amount_exceeds_refundable', `Charge ${charge.id} has nothing left to refund (pending and succeeded refunds and open or lost disputes cover its amount of ${charge.amount}).`, {
      param: 'amount',
    });
  }
  if (requested === undefined) return charge.refundable;
  if (requested > charge.refundable) {
    throw new ApiError('amount_exceeds_refundable', `amount ${requested} is more than the ${charge.refundable} still refundable on charge ${charge.id}.`, { param: 'amount' });
  }
  return requested;
}

/**
 * Locks the merchant's available balance row of the refund's currency (FOR UPDATE, held to commit)
 * and refuses with 422 `insufficient_balance` when it cannot cover the refund: the merchant's
 * available balance pays it. Taken right before the balance upsert (in account order: available
 * before reserved, as addToBalances), so concurrent refunds and payouts of the merchant and currency
 * are checked one after the other against the balance as the previous ones left it.
 */
async function lockAndCover(em: EntityManager, refund: RefundRecord): Promise<void> {
  const rows = await em.execute<{ amount: string }[]>(
    `select amount::text as amount from account_balances
     where merchant_id = ? and environment = ? and currency = ? and account = ? for update`,
    [refund.merchantId, refund.environment, refund.currency, ACCOUNTS.merchantAvailable],
  );
  const available = rows.length === 0 ? 0n : BigInt(rows[0].amount);
  if (available < BigInt(refund.amount)) {
    throw new ApiError('insufficient_balance', `The available ${refund.currency} balance does not cover this refund of ${refund.amount}. Nothing was created.`, {
      param: 'amount',
    });
  }
}

/**
 * POST /v1/refunds' one database transaction, in the order of the charge create
 * (charge-create-store.ts): claims the Idempotency-Key; locks the charge and checks what is still
 * refundable; stores the answer; writes the refund row, its reservation (available → reserved: the
 * available row locked and checked, the balance rows, then the ledger entries with the counter) and
 * `refund.created`, the event counter last. All of it commits together, or nothing does: a refusal
 * (404, 422) rolls the claim back too, so the same key may be used again once it can succeed.
 *
 * `draftFor(id, charge, amount)` builds the refund; `answerFor` renders the stored answer.
 */
export async function writeRefundOnce(
  orm: Orm,
  scope: IdempotencyScope,
  requestHash: string,
  proposedId: string,
  request: { chargeId: string; amount?: number },
  draftFor: (id: string, charge: RefundableCharge, amount: number) => RefundRecord,
  answerFor: (refund: RefundRecord) => CreateAnswer,
  /** Written with a new refund, in its transaction (an operator's live reversal: its audit row). */
  withRefund: (em: EntityManager, refund: RefundRecord) => Promise<void> = async () => {},
): Promise<RefundWrite> {
  return orm.em.fork().transactional(async (em): Promise<RefundWrite> => {
    const claim = await claimIdempotencyKey(em, scope, requestHash, proposedId);
    if (claim.kind !== 'claimed') return claim;
    // A claim taken over from a request that died before its commit wrote nothing (claim and refund
    // commit together); a refund under the claimed id exists only if that commit happened after all.
    const existing = await em.execute<Record<string, unknown>[]>(`select * from refunds where id = ?`, [claim.resourceId]);
    if (existing.length > 0) {
      const refund = rowToRefund(existing[0]);
      const answer = answerFor(refund);
      await storeIdempotentAnswer(em, scope, answer.status, answer.body);
      return { kind: 'written', refund, answer };
    }
    const charge = await lockCharge(em, scope, request.chargeId);
    const refund = draftFor(claim.resourceId, charge, refundAmount(charge, request.amount));
    const answer = answerFor(refund);
    await storeIdempotentAnswer(em, scope, answer.status, answer.body);
    await em.execute(`insert into refunds (${REFUND_COLUMNS.join(', ')}) values (${REFUND_COLUMNS.map(() => '?').join(', ')})`, refundValues(refund));
    await writeRefundStateChange(em, refund, [refundReserveTransfer(refund)], refund.createdAt, () => lockAndCover(em, refund));
    await withRefund(em, refund);
    return { kind: 'written', refund, answer };
  });
}

import type { EntityManager } from '@mikro-orm/postgresql';
import type { Transfer } from '../../domain/ledger';
import { refundEventType, refundJson, type BegunRefund, type RefundRecord, type RefundTransitionRequest } from '../../domain/refund';
import { refundTransfersFor } from '../../domain/refund-ledger';
import { refundState } from '../../domain/refund';
import { rowToRefund } from './refund-mapping';
import type { Orm } from '../orm';
import { writeStateChange } from '../state-change';
import { passGate, PaymentGateRefusedError } from '../payment-gate';

/**
 * The status gate refused the refund's end (src/persistence/payment-gate.ts): a live refund that
 * reached the partner ends only on the partner's word. Final: the same change fails again.
 */
export class RefundTransitionRefusedError extends Error {
  constructor(readonly refundId: string, readonly to: string, why: string) {
    super(`refund ${refundId} pending -> ${to} refused: ${why}`);
    this.name = 'RefundTransitionRefusedError';
  }
}

export class RefundNotFoundError extends Error {
  constructor(readonly refundId: string) {
    super(`refund ${refundId} does not exist`);
    this.name = 'RefundNotFoundError';
  }
}

/**
 * The writes of one refund state change inside the caller's transaction, in the order of
 * persistence/state-change.ts writeStateChange: the projection row (already written by the caller) in
 * one flush; `beforeBalances` (the create's balance lock and check); the balance rows of the
 * merchant's currency, in account order; the event counter with the ledger entries (dated once the
 * counter is held), then the event (`refund.created`,
 * `.succeeded` or `.failed`, `data` = the refund object, `transaction_id` = the charge). The caller commits.
 */
export async function writeRefundStateChange(
  em: EntityManager,
  record: RefundRecord,
  transfers: Transfer[],
  at: string,
  beforeBalances: () => Promise<void> = async () => {},
  railAnswerId: string | null = null,
): Promise<void> {
  await writeStateChange(em, record, transfers, at, { type: refundEventType(record.status), resourceType: 'refund', transactionId: record.chargeId, dataJson: refundJson(record), railAnswerId }, beforeBalances);
}

/**
 * The refund workflow's first step: loads the refund the API wrote and marks its workflow started
 * (one statement; the refund-start relay stops looking at it). Null when there is no such refund: a
 * workflow started for a refund the API did not write refuses to run.
 */
export async function beginRefund(orm: Orm, refundId: string): Promise<BegunRefund | null> {
  const rows = await orm.em
    .fork()
    .execute<Record<string, unknown>[]>(`update refunds set workflow_started_at = coalesce(workflow_started_at, now()) where id = ? returning *`, [refundId]);
  if (rows.length === 0) return null;
  const refund = rowToRefund(rows[0]);
  return { refund: refundState(refund), sandboxOutcome: refund.sandboxOutcome };
}

/**
 * Applies a refund's terminal transition, in one transaction: under the refund's row lock (taken
 * first), the projection; on success the charge's `amount_refunded` (the charge row is locked next,
 * as the refund create locks it before the balance rows); the ledger transfer (post or release) with
 * its balance rows; the event. A refund no longer pending is returned as stored and nothing is
 * written (its workflow is its only writer, so that is a retry of this very step): activity retries
 * are safe. `onCommitted` runs once, after the commit of a change that was written.
 */
export async function applyRefundTransition(orm: Orm, request: RefundTransitionRequest, onCommitted: (refund: RefundRecord) => void = () => {}): Promise<RefundRecord> {
  let applied = false;
  const record = await orm.em.fork().transactional(async (em) => {
    const rows = await em.execute<Record<string, unknown>[]>(`select * from refunds where id = ? for update`, [request.refundId]);
    if (rows.length === 0) throw new RefundNotFoundError(request.refundId);
    const before = rowToRefund(rows[0]);
    if (before.status !== 'pending') return before;
    const at = new Date(request.at).toISOString();
    const after: RefundRecord = {
      ...before,
      status: request.to,
      failureClass: request.to === 'failed' ? (request.failureClass ?? 'declined') : null,
      updatedAt: at,
    };
    // Through the status gate (issue 45): from pending, read under the row lock; a live refund that
    // reached the partner ends only on its recorded answer, which its postings carry.
    const { railAnswerId } = await passGate(em, {
      kind: 'refund',
      id: after.id,
      from: 'pending',
      to: after.status,
      set: { failure_class: after.failureClass, updated_at: new Date(after.updatedAt) },
    }).catch((error: unknown) => {
      if (error instanceof PaymentGateRefusedError) throw new RefundTransitionRefusedError(after.id, after.status, error.message);
      throw error;
    });
    if (after.status === 'succeeded') {
      await em.execute(`update charges set amount_refunded = amount_refunded + ? where id = ?`, [after.amount, after.chargeId]);
    }
    await writeRefundStateChange(em, after, refundTransfersFor(after, after.status), at, async () => {}, railAnswerId);
    applied = true;
    return after;
  });
  if (applied) onCommitted(record);
  return record;
}

/** The refund if it belongs to this merchant and environment (GET /v1/refunds/{id}). */
export async function findRefund(orm: Orm, scope: { merchantId: string; environment: string }, id: string): Promise<RefundRecord | null> {
  const rows = await orm.em
    .fork()
    .execute<Record<string, unknown>[]>(`select * from refunds where id = ? and merchant_id = ? and environment = ?`, [id, scope.merchantId, scope.environment]);
  return rows.length === 0 ? null : rowToRefund(rows[0]);
}

/**
 * A page of the merchant's refunds in one environment, newest first: `pageSql` is the list filters'
 * clause (src/services/list-filters.ts: `and …` conditions, order and `limit ?`) with its parameters.
 */
export async function listRefunds(orm: Orm, scope: { merchantId: string; environment: string }, page: { sql: string; params: unknown[] }): Promise<RefundRecord[]> {
  const rows = await orm.em
    .fork()
    .execute<Record<string, unknown>[]>(`select * from refunds where merchant_id = ? and environment = ?${page.sql}`, [scope.merchantId, scope.environment, ...page.params]);
  return rows.map(rowToRefund);
}

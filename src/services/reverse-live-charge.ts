import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { chargeState } from '../domain/charge-state';
import type { ChargeRecord } from '../domain/charge';
import { ApiError } from '../domain/errors';
import { refundJson, type RefundRecord } from '../domain/refund';
import { insertOperatorAudit } from '../persistence/operators/operator-audit-store';
import type { Orm } from '../persistence/orm';
import { writeRefundOnce, type RefundableCharge } from '../persistence/refunds/refund-create-store';
import { markRefundWorkflowsStarted } from '../persistence/refunds/refund-workflow-start-store';
import { newId } from '../support/new-id';
import type { TemporalHandle } from '../temporal/connection';
import { startRefundWorkflow } from '../temporal/refund-start';

/** The Idempotency-Key of a charge's live reversal in its merchant's live scope: one reversal refund per charge, however often it is asked. */
export const liveReversalKey = (chargeId: string) => `charge-reverse:${chargeId}`;

/**
 * Operator action `charges reverse txn_… --reason TEXT` on a live charge (issue 45): the money goes
 * back through the partner as a refund of everything still refundable on the charge (MoMo's refund,
 * workflows/refund-rail.ts), never as a change of our books alone. In one transaction, as a merchant's
 * POST /v1/refunds would (the charge locked, what is left and the available balance checked, the
 * amount reserved, `refund.created`): the refund (metadata `reversal_of`, `reversed_by`) and the
 * `charge.reverse` audit row naming it. Then its workflow starts (the refund-start relay finishes a
 * start that fails). The refund ends only on the partner's word, as any live refund; the charge
 * stays `succeeded`, its `amount_refunded` the whole amount once the partner paid.
 *
 * Asking again answers the same refund (its Idempotency-Key is the charge's, liveReversalKey), and
 * writes no second audit row. A charge with nothing left to refund (merchant refunds, disputes) or not
 * succeeded is refused, nothing written. Answers the refund object, serialised.
 */
export async function reverseLiveCharge(
  orm: Orm,
  temporal: TemporalHandle,
  taskQueue: string,
  charge: ChargeRecord,
  request: { operator: string; reason: string; batch_id?: string },
): Promise<string> {
  const scope = { merchantId: charge.merchantId, environment: 'live' as const, key: liveReversalKey(charge.id) };
  const metadataJson = JSON.stringify({ reversal_of: charge.id, reversed_by: request.operator });
  const hash = createHash('sha256').update(`charge-reverse\n${charge.id}`).digest('hex');
  const now = new Date().toISOString();
  const draft = (id: string, locked: RefundableCharge, amount: number): RefundRecord => ({
    id,
    merchantId: charge.merchantId,
    environment: 'live',
    chargeId: locked.id,
    status: 'pending',
    amount,
    currency: locked.currency,
    reason: null,
    metadataJson,
    failureClass: null,
    sandboxOutcome: null,
    createdAt: now,
    updatedAt: now,
    rail: locked.rail,
  });
  const audit = (em: EntityManager, refund: RefundRecord) =>
    insertOperatorAudit(em, newId('audit'), {
      paymentId: charge.id,
      action: 'charge.reverse',
      operator: request.operator,
      reason: request.reason,
      before: chargeState(charge),
      after: { ...chargeState(charge), reversal_refund: refund.id, reversal_amount: refund.amount },
      requestId: `live-reversal:${refund.id}`,
      batchId: request.batch_id ?? null,
      merchantId: charge.merchantId,
      environment: 'live',
      at: now,
    }).then(() => undefined);
  let write;
  try {
    write = await writeRefundOnce(orm, scope, hash, newId('refund'), { chargeId: charge.id }, draft, (refund) => ({ status: 200, body: refundJson(refund) }), audit);
  } catch (error) {
    if (error instanceof ApiError) throw new Error(`live charge ${charge.id} cannot be reversed: ${error.message} Nothing was changed.`);
    throw error;
  }
  if (write.kind === 'replay') return write.body;
  if (write.kind !== 'written') throw new Error(`the live reversal of ${charge.id} is being written by another command right now; run it again to see its refund`);
  try {
    await startRefundWorkflow(temporal.client, taskQueue, write.refund);
    await markRefundWorkflowsStarted(orm, [write.refund.id]);
  } catch {
    // The refund and its audit row are committed: the refund-start relay starts its workflow.
  }
  return write.answer.body;
}

import { ApiError } from '../domain/errors';
import type { RefundRecord } from '../domain/refund';
import { refundJson } from '../domain/refund';
import { sandboxOutcomeOf } from '../domain/charge-start';
import type { RefundRequest } from '../domain/refund';
import type { IdempotencyScope } from '../persistence/idempotency-store';
import { writeRefundOnce, type RefundableCharge } from '../persistence/refunds/refund-create-store';
import { markRefundWorkflowsStarted } from '../persistence/refunds/refund-workflow-start-store';
import { newId } from '../support/new-id';
import { startRefundWorkflow } from '../temporal/refund-start';
import type { StoredAnswer } from './create-charge';
import { startWithin } from './start-within';
import type { Caller, ServiceDeps } from './context';

/** The refund as accepted: pending, in the charge's currency, its sandbox switch read once (none on live). */
function refundDraft(caller: Caller, request: RefundRequest, metadataJson: string, now: Date) {
  return (id: string, charge: RefundableCharge, amount: number): RefundRecord => {
    const createdAt = now.toISOString();
    return {
      id,
      merchantId: caller.merchantId,
      environment: caller.environment,
      chargeId: charge.id,
      status: 'pending',
      amount,
      currency: charge.currency,
      reason: request.reason ?? null,
      metadataJson,
      failureClass: null,
      sandboxOutcome: caller.environment === 'sandbox' ? sandboxOutcomeOf(metadataJson) : null,
      createdAt,
      updatedAt: createdAt,
      rail: charge.rail,
    };
  };
}

/**
 * POST /v1/refunds: write first, then start, as a charge create (create-charge.ts). One database
 * transaction claims the Idempotency-Key, locks the charge, checks what is still refundable and the
 * available balance, stores the answer and writes the refund, its reservation and `refund.created`;
 * then the workflow (id = refund id, input `{ refundId }`) is started, waiting at most
 * CHARGE_START_WAIT_MS. The refund is durable at commit: a start that is slow or fails is finished by
 * the refund-start relay. A live refund goes to the partner rail (issue 45, workflows/refund-rail.ts);
 * without a live rail the live listener answers 503 `live_unavailable` first (live-rail.ts).
 */
export async function createRefund(
  deps: ServiceDeps,
  caller: Caller,
  key: string,
  request: RefundRequest,
  hash: string,
  metadataJson?: string,
): Promise<StoredAnswer> {
  const scope: IdempotencyScope = { merchantId: caller.merchantId, environment: caller.environment, key };
  const draftFor = refundDraft(caller, request, metadataJson ?? JSON.stringify(request.metadata ?? {}), new Date());
  const write = await writeRefundOnce(deps.orm, scope, hash, newId('refund'), { chargeId: request.charge, amount: request.amount }, draftFor, (refund) => ({
    status: 200,
    body: refundJson(refund),
  }));
  if (write.kind === 'replay') return { status: write.status, body: write.body, replayed: true };
  if (write.kind === 'in_use') throw new ApiError('idempotency_key_in_use', 'A request with this Idempotency-Key is still being processed; retry shortly.');
  if (write.kind === 'reused') throw new ApiError('idempotency_key_reused', 'This Idempotency-Key was used with a different request body.');
  await startWithin(deps, { kind: 'refund', id: write.refund.id, start: () => startRefundWorkflow(deps.temporal.client, deps.taskQueue, write.refund), markStarted: () => markRefundWorkflowsStarted(deps.orm, [write.refund.id]) });
  return { ...write.answer, replayed: false };
}

import { DEFAULT_DISPUTE_REASON, disputeJson, type DisputeRecord, type OpenDisputeRequest } from '../domain/dispute';
import { ApiError } from '../domain/errors';
import { writeDisputeOnce, type DisputableCharge } from '../persistence/disputes/dispute-create-store';
import { markDisputeWorkflowsStarted } from '../persistence/disputes/dispute-workflow-start-store';
import type { IdempotencyScope } from '../persistence/idempotency-store';
import { newId } from '../support/new-id';
import { startDisputeWorkflow } from '../temporal/dispute-start';
import type { StoredAnswer } from './create-charge';
import { startWithin } from './start-within';
import type { Caller, ServiceDeps } from './context';

/** The dispute as opened: needing a response, in the charge's currency; its evidence deadline is set by its workflow. */
function disputeDraft(caller: Caller, chargeId: string, request: OpenDisputeRequest, now: Date) {
  return (id: string, charge: DisputableCharge, amount: number): DisputeRecord => {
    const createdAt = now.toISOString();
    return {
      id,
      merchantId: caller.merchantId,
      environment: caller.environment,
      chargeId,
      status: 'needs_response',
      amount,
      currency: charge.currency,
      reason: request.reason ?? DEFAULT_DISPUTE_REASON,
      evidenceText: null,
      evidenceSubmittedAt: null,
      evidenceDueBy: null,
      createdAt,
      updatedAt: createdAt,
    };
  };
}

/**
 * POST /v1/sandbox/charges/{id}/disputes (the cardholder disputes a succeeded charge; sandbox only):
 * write first, then start, as a refund create (create-refund.ts). One database transaction claims the
 * Idempotency-Key, locks the charge, checks it is disputable with no open dispute and what is left,
 * stores the answer and writes the dispute, its hold and `dispute.opened`; then the workflow (id =
 * dispute id, input `{ disputeId }`) is started, waiting at most CHARGE_START_WAIT_MS. The dispute is
 * durable at commit: a start that is slow or fails is finished by the dispute-start relay.
 */
export async function openDispute(deps: ServiceDeps, caller: Caller, key: string, chargeId: string, request: OpenDisputeRequest, hash: string): Promise<StoredAnswer> {
  const scope: IdempotencyScope = { merchantId: caller.merchantId, environment: caller.environment, key };
  const draftFor = disputeDraft(caller, chargeId, request, new Date());
  const write = await writeDisputeOnce(deps.orm, scope, hash, newId('dispute'), { chargeId, amount: request.amount }, draftFor, (dispute) => ({
    status: 200,
    body: disputeJson(dispute),
  }));
  if (write.kind === 'replay') return { status: write.status, body: write.body, replayed: true };
  if (write.kind === 'in_use') throw new ApiError('idempotency_key_in_use', 'A request with this Idempotency-Key is still being processed; retry shortly.');
  if (write.kind === 'reused') throw new ApiError('idempotency_key_reused', 'This Idempotency-Key was used with a different request body.');
  await startWithin(deps, { kind: 'dispute', id: write.dispute.id, start: () => startDisputeWorkflow(deps.temporal.client, deps.taskQueue, write.dispute), markStarted: () => markDisputeWorkflowsStarted(deps.orm, [write.dispute.id]) });
  return { ...write.answer, replayed: false };
}

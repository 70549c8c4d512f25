import { ApplicationFailure, patched } from '@temporalio/workflow';
import type { ChargeState } from '../src/domain/charge-state';
import { operatorOf, operatorRefusal } from '../src/domain/operator-action';
import { applyTransition } from './charge-activities';
import { publishChargeState } from './charge-search-attributes';
import { auditOperatorAction, OPERATOR_AUDIT_PATCH } from './operator-audit';
import { answerRecord } from './record-query';

export interface ChargeReversalInput {
  chargeId: string;
  /** ISO time the operator asked for the reversal. */
  requestedAt: string;
  /** Who and why (required since the audit log: `charges reverse txn_… --reason TEXT`). */
  operator?: string;
  reason?: string;
  batch_id?: string;
  /** The charge as the command saw it before (for the audit row). */
  before?: ChargeState;
}

/**
 * An operator's reversal of a succeeded charge. It runs as a new run under the charge's own
 * workflow id (`txn_…`), so the Temporal UI shows the whole life of a charge in one place. The
 * transition posts reversing ledger entries and `transaction.reversed`; history is never edited.
 * A run without an operator and a reason is refused (nothing moves); the audit row follows the
 * transition. Runs recorded before the audit log replay as they ran.
 */
export async function chargeReversalWorkflow(input: ChargeReversalInput): Promise<ChargeState> {
  let record: ChargeState | undefined;
  answerRecord(() => record);
  const audited = patched(OPERATOR_AUDIT_PATCH);
  if (audited) {
    const why = operatorRefusal(input);
    if (why) throw ApplicationFailure.create({ type: 'OperatorRequestRefused', message: `reversal of ${input.chargeId} refused: ${why}`, nonRetryable: true });
  }
  const charge = await applyTransition({ chargeId: input.chargeId, to: 'reversed', failureClass: null, at: input.requestedAt });
  record = charge;
  publishChargeState(charge);
  if (audited) {
    await auditOperatorAction({ paymentId: input.chargeId, action: 'charge.reverse', operator: operatorOf(input), reason: input.reason!.trim(), batchId: input.batch_id, before: input.before ?? null, after: charge });
  }
  return charge;
}

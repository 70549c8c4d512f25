import { ApplicationFailure, patched, workflowInfo } from '@temporalio/workflow';
import type { ChargeState } from '../src/domain/charge-state';
import { operatorOf, operatorRefusal } from '../src/domain/operator-action';
import { applyTransition } from './charge-activities';
import { publishChargeState } from './charge-search-attributes';
import { AUDIT_WITH_CHANGE_PATCH, auditOfChange, auditOperatorAction, OPERATOR_AUDIT_PATCH } from './operator-audit';
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
 * A run without an operator and a reason is refused (nothing moves). Since issue 31 the run is
 * refused unless its workflow id is the charge id, and the audit row is written by the transition
 * itself, in its transaction and only when it reversed the charge, with the charge's own merchant
 * and environment: a second reversal run, or one for an id that is no charge, writes no row. Runs
 * recorded before replay as they ran (the row written after the transition; before the audit log, none).
 */
export async function chargeReversalWorkflow(input: ChargeReversalInput): Promise<ChargeState> {
  let record: ChargeState | undefined;
  answerRecord(() => record);
  const audited = patched(OPERATOR_AUDIT_PATCH);
  if (audited) {
    const why = operatorRefusal(input);
    if (why) throw refused(`reversal of ${input.chargeId} refused: ${why}`);
  }
  const withChange = audited && patched(AUDIT_WITH_CHANGE_PATCH);
  if (withChange) {
    const { workflowId } = workflowInfo();
    if (typeof input.chargeId !== 'string' || workflowId !== input.chargeId) throw refused(`reversal run ${workflowId} names charge ${String(input.chargeId)}: a reversal runs only under its charge's id`);
  }
  const operator = operatorOf(input);
  const reason = input.reason?.trim() ?? '';
  const audit = withChange ? auditOfChange({ action: 'charge.reverse', operator, reason, batchId: input.batch_id, before: input.before ?? null }) : undefined;
  const charge = await applyTransition({ chargeId: input.chargeId, to: 'reversed', failureClass: null, at: input.requestedAt, ...(audit ? { audit } : {}) });
  record = charge;
  publishChargeState(charge);
  if (audited && !withChange) {
    await auditOperatorAction({ paymentId: input.chargeId, action: 'charge.reverse', operator, reason, batchId: input.batch_id, before: input.before ?? null, after: charge });
  }
  return charge;
}

function refused(message: string): ApplicationFailure {
  return ApplicationFailure.create({ type: 'OperatorRequestRefused', message, nonRetryable: true });
}

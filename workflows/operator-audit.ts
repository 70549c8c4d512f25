import { currentUpdateInfo, patched, proxyActivities, workflowInfo, type ActivityOptions } from '@temporalio/workflow';
import type { OperatorAuditActivities } from '../activities/types';
import type { AuditOfChange, OperatorAction, OperatorAuditEntry } from '../src/domain/operator-action';
import { SA } from '../src/domain/search-attributes';

/**
 * Runs recorded before the audit log existed took operator actions without this step; the patch
 * keeps them replaying as they ran. Every action taken since writes its row.
 */
export const OPERATOR_AUDIT_PATCH = 'operator-audit';

const OPTIONS: ActivityOptions = {
  startToCloseTimeout: '30s',
  // Never given up: an action that was taken is audited, however long the database is away.
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '1m', nonRetryableErrorTypes: ['DeterministicDatabaseError'] },
};

const { recordOperatorAction } = proxyActivities<OperatorAuditActivities>(OPTIONS);

export interface AuditedAction {
  paymentId: string;
  action: OperatorAction;
  operator: string;
  reason: string;
  batchId?: string | null;
  before: unknown;
  after: unknown;
  /** Defaults to the update's id (one per request), else the run's id. */
  requestId?: string;
}

/**
 * `patched()` id (issue 31): an operator action that is a write of the record (a payout's approval,
 * rejection or reversal; a charge's reversal) hands its audit row to that write, which inserts it in
 * the same transaction and only when the record changed (src/domain/operator-action.ts AuditOfChange).
 * Runs from before wrote the row with a separate activity after the write, and replay so.
 */
export const AUDIT_WITH_CHANGE_PATCH = 'audit-with-change';

/**
 * The audit row of an action about to be written with the record (AuditOfChange). Build it in the
 * update's handler (its id is the request id) before any await, so the write that follows finds it.
 */
export function auditOfChange(action: Omit<AuditedAction, 'after' | 'paymentId'>): AuditOfChange {
  return {
    action: action.action,
    operator: action.operator,
    reason: action.reason,
    requestId: action.requestId ?? currentUpdateInfo()?.id ?? workflowInfo().runId,
    batchId: action.batchId ?? null,
    before: action.before ?? null,
    at: new Date().toISOString(),
  };
}

/**
 * Writes the audit row of an operator action the workflow has taken (src/domain/operator-action.ts):
 * an activity, retried until the row is written; the same request twice writes one row.
 */
export async function auditOperatorAction(action: AuditedAction): Promise<void> {
  if (!patched(OPERATOR_AUDIT_PATCH)) return;
  const info = workflowInfo();
  const attributes = info.typedSearchAttributes;
  const entry: OperatorAuditEntry = {
    paymentId: action.paymentId,
    action: action.action,
    operator: action.operator,
    reason: action.reason,
    before: action.before ?? null,
    after: action.after ?? null,
    requestId: action.requestId ?? currentUpdateInfo()?.id ?? info.runId,
    batchId: action.batchId ?? null,
    merchantId: attributes.get(SA.MerchantId) ?? null,
    environment: attributes.get(SA.Environment) ?? null,
    at: new Date().toISOString(),
  };
  await recordOperatorAction.executeWithOptions({ ...OPTIONS, summary: `audit: ${action.action} by ${action.operator}` }, [entry]);
}

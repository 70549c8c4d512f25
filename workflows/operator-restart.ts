import { ApplicationFailure, workflowInfo } from '@temporalio/workflow';
import { operatorOf, operatorRefusal, type OperatorAction, type RestartRequest } from '../src/domain/operator-action';
import { auditOperatorAction } from './operator-audit';

/**
 * A run started by `payments restart` (its input carries `restart`): refused without an operator and
 * a reason, else audited at once (before: what the operator found; after: this run). The run then goes
 * on as any run does: it trusts only the database, and every step is safe to repeat. Runs started
 * otherwise have no `restart` and do nothing here (so recorded histories replay unchanged).
 */
export async function auditRestart(paymentId: string, action: OperatorAction, restart: RestartRequest | undefined): Promise<void> {
  if (restart === undefined) return;
  const why = operatorRefusal(restart);
  if (why) throw ApplicationFailure.create({ type: 'OperatorRequestRefused', message: `restart of ${paymentId} refused: ${why}`, nonRetryable: true });
  await auditOperatorAction({
    paymentId,
    action,
    operator: operatorOf(restart),
    reason: restart.reason.trim(),
    batchId: restart.batch_id,
    before: restart.before ?? null,
    after: { run_id: workflowInfo().runId },
  });
}

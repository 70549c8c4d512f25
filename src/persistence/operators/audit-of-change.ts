import type { EntityManager } from '@mikro-orm/postgresql';
import type { AuditOfChange } from '../../domain/operator-action';
import { newId } from '../../support/new-id';
import { insertOperatorAudit } from './operator-audit-store';

/**
 * The audit row of an operator action that is a write of the record (src/domain/operator-action.ts
 * AuditOfChange), inside the write's own transaction, after the change: merchant and environment are
 * the record's, the state after is what the workflow is answered. Called only when the write changed
 * the record, so a transition already made (an activity retry, a second reversal) writes no row.
 */
export async function insertAuditOfChange(
  em: EntityManager,
  paymentId: string,
  audit: AuditOfChange,
  record: { merchantId: string; environment: string },
  after: unknown,
): Promise<void> {
  await insertOperatorAudit(em, newId('audit'), {
    paymentId,
    action: audit.action,
    operator: audit.operator,
    reason: audit.reason,
    before: audit.before,
    after,
    requestId: audit.requestId,
    batchId: audit.batchId,
    merchantId: record.merchantId,
    environment: record.environment,
    at: audit.at,
  });
}

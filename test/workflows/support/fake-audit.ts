import type { OperatorAuditActivities } from '../../../activities/types';
import type { AuditOfChange, OperatorAuditEntry } from '../../../src/domain/operator-action';

/**
 * The audit activity in memory, with the contract of src/persistence/operators/operator-audit-store.ts: one
 * entry per payment and request id; a repeated call records nothing and answers false. Shared by
 * every workflow test worker of a file (entries are told apart by payment id).
 */
export class FakeAuditLog {
  readonly entries: OperatorAuditEntry[] = [];

  readonly activities: OperatorAuditActivities = {
    recordOperatorAction: async (entry) => {
      if (this.entries.some((e) => e.paymentId === entry.paymentId && e.requestId === entry.requestId)) return false;
      this.entries.push(entry);
      return true;
    },
  };

  /**
   * The row a transition writes in its own transaction for the operator action it is (AuditOfChange,
   * src/persistence/operators/audit-of-change.ts): called by the fake stores only when the transition changed the record.
   */
  recordChange(paymentId: string, audit: AuditOfChange, record: { merchantId: string; environment: string }, after: unknown): void {
    if (this.entries.some((e) => e.paymentId === paymentId && e.requestId === audit.requestId)) return;
    this.entries.push({ paymentId, action: audit.action, operator: audit.operator, reason: audit.reason, before: audit.before, after, requestId: audit.requestId, batchId: audit.batchId, merchantId: record.merchantId, environment: record.environment, at: audit.at });
  }

  of(paymentId: string): OperatorAuditEntry[] {
    return this.entries.filter((e) => e.paymentId === paymentId);
  }
}

export const auditLog = new FakeAuditLog();

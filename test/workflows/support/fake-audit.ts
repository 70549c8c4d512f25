import type { OperatorAuditActivities } from '../../../activities/types';
import type { OperatorAuditEntry } from '../../../src/domain/operator-action';

/**
 * The audit activity in memory, with the contract of src/persistence/operator-audit-store.ts: one
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

  of(paymentId: string): OperatorAuditEntry[] {
    return this.entries.filter((e) => e.paymentId === paymentId);
  }
}

export const auditLog = new FakeAuditLog();

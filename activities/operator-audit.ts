import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { OperatorAuditEntry } from '../src/domain/operator-action';
import { DETERMINISTIC_DB_ERROR, deterministicDbMessage, isDeterministicDbError } from '../src/persistence/db-errors';
import { recordOperatorAction } from '../src/persistence/operators/operator-audit-store';
import type { Orm } from '../src/persistence/orm';
import { newId } from '../src/support/new-id';
import type { OperatorAuditActivities } from './types';

/** The audit step of every operator action (workflows/operator-audit.ts). */
export function createOperatorAuditActivities(deps: { orm: Orm }): OperatorAuditActivities {
  return {
    async recordOperatorAction(entry: OperatorAuditEntry) {
      try {
        const { id, recorded } = await recordOperatorAction(deps.orm, newId('audit'), entry);
        // Who did what to which payment, never the states (they are in the row).
        Context.current().log.info('operator action audited', { auditId: id, recorded, paymentId: entry.paymentId, action: entry.action, operator: entry.operator, batchId: entry.batchId });
        return recorded;
      } catch (error) {
        if (isDeterministicDbError(error)) throw ApplicationFailure.create({ type: DETERMINISTIC_DB_ERROR, message: deterministicDbMessage(error), nonRetryable: true });
        throw error;
      }
    },
  };
}

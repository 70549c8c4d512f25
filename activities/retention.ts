import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { RetentionBatchRequest, RetentionPlan } from '../src/domain/retention';
import { DETERMINISTIC_DB_ERROR, deterministicDbMessage, isDeterministicDbError } from '../src/persistence/db-errors';
import type { Orm } from '../src/persistence/orm';
import { deleteRetentionBatch } from '../src/persistence/retention-store';
import type { RetentionActivities } from './types';

/**
 * The retention workflow's steps (workflows/retention.ts): the settings of this worker (read at its
 * start, src/runtime/retention-settings.ts), and one bounded batch of deletes. A batch is safe to repeat: a
 * retry deletes what is still past the window, never a row that must stay. What a batch deleted is
 * logged and counted (worker metric `payments_retention_rows_deleted{table}`).
 */
export function createRetentionActivities(deps: { orm: Orm; plan: RetentionPlan }): RetentionActivities {
  return {
    async retentionPlan() {
      return deps.plan;
    },
    async deleteRetentionBatch(request: RetentionBatchRequest) {
      try {
        const result = await deleteRetentionBatch(deps.orm, request);
        if (result.rows > 0) {
          const context = Context.current();
          context.log.info('retention batch deleted', { kind: request.kind, ...result.deleted });
          const deleted = context.metricMeter.createCounter('payments_retention_rows_deleted', '1', 'Rows the retention job deleted, by table');
          for (const [table, n] of Object.entries(result.deleted)) if (n) deleted.add(n, { table });
        }
        return result;
      } catch (error) {
        if (isDeterministicDbError(error)) throw ApplicationFailure.create({ type: DETERMINISTIC_DB_ERROR, message: deterministicDbMessage(error), nonRetryable: true });
        throw error;
      }
    },
  };
}

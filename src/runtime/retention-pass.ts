import { addCounts, NO_ROWS, RETENTION_KINDS, type RetentionCounts, type RetentionKind, type RetentionPlan } from '../domain/retention';
import type { Orm } from '../persistence/orm';
import { deleteRetentionBatch } from '../persistence/retention-store';

/**
 * One retention pass in this process, without Temporal: the same batches as the retention workflow
 * (workflows/retention.ts) with the same pause between them, kind after kind (or only `kinds`), each
 * until a batch comes back short. For a bench that triggers the job while it measures the API, and
 * for tests; production runs go through the Schedule (src/temporal/retention-schedule.ts).
 */
export async function runRetentionPass(orm: Orm, plan: RetentionPlan, options: { kinds?: readonly RetentionKind[] } = {}): Promise<{ deleted: RetentionCounts; batches: number }> {
  let deleted = NO_ROWS;
  let batches = 0;
  for (const kind of options.kinds ?? RETENTION_KINDS) {
    for (;;) {
      const result = await deleteRetentionBatch(orm, { kind, windowMs: plan.windowsMs[kind], batch: plan.batch });
      deleted = addCounts(deleted, result.deleted);
      batches++;
      if (result.rows < plan.batch) break;
      if (plan.pauseMs > 0) await new Promise((resolve) => setTimeout(resolve, plan.pauseMs));
    }
  }
  return { deleted, batches };
}

import type { Config } from '../config';
import type { Orm } from '../persistence/orm';
import { runBulk } from '../services/bulk-run';
import type { OperatorInput, OperatorTarget } from '../services/operator-input';
import { decidePayout } from '../services/decide-payout';
import { resolveCharge } from '../services/resolve-charge';
import { retryChargeStep } from '../services/retry-charge-step';
import { retrySettlement } from '../services/retry-settlement';
import { reverseCharge } from '../services/reverse-charge';
import { reversePayout } from '../services/reverse-payout';
import { restartPayment } from '../services/restart-payment';
import { settleLate } from '../services/settle-late';
import { closeReview } from '../services/close-review';
import type { TemporalHandle } from '../temporal/connection';

export type { OperatorInput, OperatorTarget } from '../services/operator-input';

interface Context {
  orm: Orm;
  temporal: TemporalHandle;
  config: Config;
  /** The settings of the run (the CLI's environment) beyond Config: BULK_ACTIONS_PER_SECOND of a bulk action. */
  env: NodeJS.ProcessEnv;
}

type Act = (ctx: Context, id: string, input: OperatorInput, batchId?: string) => Promise<unknown>;

/**
 * Every operator action of the CLI, one guarded path each (the workflow validates and audits it):
 * by id, or by `--query` in bulk (src/services/bulk-operator.ts).
 */
export const OPERATOR_COMMANDS: Record<string, Act> = {
  'charges reverse': ({ orm, temporal, config }, id, { operator, reason }, batchId) =>
    reverseCharge(orm, temporal, config.taskQueue, id, { operator, reason, ...(batchId ? { batch_id: batchId } : {}) }, config.temporalRequestDeadlineMs),
  'charges resolve': ({ orm, temporal, config }, id, { operator, reason, resolution }, batchId) =>
    resolveCharge(orm, temporal, id, { ...resolution!, operator, reason, ...(batchId ? { batch_id: batchId } : {}) }, config.temporalRequestDeadlineMs),
  'charges retry': ({ temporal, config }, id, { operator, reason }, batchId) => retryChargeStep(temporal, id, reason, config.temporalRequestDeadlineMs, operator, batchId),
  'payouts approve': ({ orm, temporal, config }, id, { operator, reason }, batchId) => decidePayout(orm, temporal, id, 'approve', reason, config.temporalRequestDeadlineMs, operator, batchId),
  'payouts reject': ({ orm, temporal, config }, id, { operator, reason }, batchId) => decidePayout(orm, temporal, id, 'reject', reason, config.temporalRequestDeadlineMs, operator, batchId),
  'payouts reverse': ({ orm, temporal, config }, id, { operator, reason }, batchId) =>
    reversePayout(orm, temporal, config.taskQueue, id, reason, config.temporalRequestDeadlineMs, operator, batchId),
  'settlements retry': ({ orm, temporal, config }, id, { operator, reason }, batchId) => retrySettlement(orm, temporal, id, reason, config.temporalRequestDeadlineMs, operator, batchId),
  'payments restart': ({ orm, temporal, config }, id, { operator, reason }, batchId) =>
    restartPayment(orm, temporal, config.taskQueue, id, { operator, reason, ...(batchId ? { batch_id: batchId } : {}) }, config.temporalRequestDeadlineMs),
  'payments settle-late': ({ orm, temporal, config }, id, { operator, reason, settleLate: action, evidence }, batchId) =>
    settleLate(orm, temporal, id, { action: action!, operator, reason, ...(evidence ? { evidence } : {}), ...(batchId ? { batch_id: batchId } : {}) }, config.temporalRequestDeadlineMs),
  'payments review-close': ({ temporal, config }, id, { operator, reason }, batchId) =>
    closeReview(temporal, id, { operator, reason, ...(batchId ? { batch_id: batchId } : {}) }, config.temporalRequestDeadlineMs),
};

/** A printed answer is a JSON string (the API's serialisation) or a value to serialise. */
const parsed = (answer: unknown) => (typeof answer === 'string' ? JSON.parse(answer) : answer);

/**
 * Runs one operator command: on `id`, or in bulk (src/services/bulk-run.ts): a dry run of `query`
 * unless `yes`, then `yes` with the dry run's token or ids file.
 */
export async function runOperatorCommand(command: string, ctx: Context, target: OperatorTarget, input: OperatorInput): Promise<unknown> {
  const act = OPERATOR_COMMANDS[command];
  if (!act) throw new Error(`unknown operator command "${command}"`);
  const bulk =
    target.query !== undefined || target.yes || target.merchantId !== undefined || target.token !== undefined || target.idsFile !== undefined || target.saveIds !== undefined || target.expect !== undefined;
  if (!bulk) return act(ctx, target.id!, input);
  if (target.id !== undefined) throw new Error('give an id, or a bulk selection (--query, --merchant, --yes, --token, --ids-file, --save-ids, --expect), not both');
  return runBulk(command, ctx, target, input, async (id, batchId) => parsed(await act(ctx, id, input, batchId)));
}

import type { Config } from './config';
import type { ChargeResolutionRequest } from './domain/charge-resolution';
import type { Orm } from './persistence/orm';
import { applyInBulk, bulkQuery, bulkRate, dryRun, selectPayments } from './services/bulk-operator';
import { decidePayout } from './services/decide-payout';
import { resolveCharge } from './services/resolve-charge';
import { retryChargeStep } from './services/retry-charge-step';
import { retrySettlement } from './services/retry-settlement';
import { reverseCharge } from './services/reverse-charge';
import { reversePayout } from './services/reverse-payout';
import { restartPayment } from './services/restart-payment';
import { settleLate } from './services/settle-late';
import { closeReview } from './services/close-review';
import type { SettleLateAction } from './domain/payment-review';
import type { TemporalHandle } from './temporal/connection';

/** Who and why, from --operator and --reason; the batch id of a bulk run. */
export interface OperatorInput {
  operator: string;
  reason: string;
  /** `charges resolve` only. */
  resolution?: Pick<ChargeResolutionRequest, 'as' | 'failure_class' | 'evidence'>;
  /** `payments settle-late` only: how the late money is settled. */
  settleLate?: SettleLateAction;
  /** `charges resolve` and `payments settle-late`: the partner's evidence (a transaction id, a statement line). */
  evidence?: string;
}

interface Context {
  orm: Orm;
  temporal: TemporalHandle;
  config: Config;
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
 * Runs one operator command: on `id`, or on every payment `query` selects (a dry run unless `yes`).
 */
export async function runOperatorCommand(
  command: string,
  ctx: Context,
  target: { id?: string; query?: string; merchantId?: string; yes: boolean },
  input: OperatorInput,
): Promise<unknown> {
  const act = OPERATOR_COMMANDS[command];
  if (target.query === undefined) return act(ctx, target.id!, input);
  const query = bulkQuery(target.query, target.merchantId);
  const selected = await selectPayments(ctx.temporal.client, query);
  if (!target.yes) return dryRun(command, query, selected);
  const rate = bulkRate();
  return applyInBulk(command, query, selected, async (id, batchId) => parsed(await act(ctx, id, input, batchId)), rate);
}

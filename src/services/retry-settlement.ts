import { ServiceError, WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import { DEFAULT_TEMPORAL_REQUEST_DEADLINE_MS } from '../config';
import { isIdOf } from '../domain/ids';
import { settlementAccountHoldSkip, unansweredBatchSkip } from '../domain/settlement-run';
import { settlementHeldUntil } from '../persistence/merchants/settlement-holds';
import type { SettlementOutcome, SettlementRecord, SettlementStatus } from '../domain/settlement';
import type { RetriedSettlement } from '../domain/settlement-retry';
import type { Orm } from '../persistence/orm';
import { rowToSettlement } from '../persistence/settlements/settlement-mapping';
import { pendingLiveBatch } from '../persistence/settlements/pending-live-batch';
import type { TemporalHandle } from '../temporal/connection';
import { RETRY_WAITS_FOR_BUILD_MOVE, retrySettlementUpdate } from '../../workflows/settlement-retry-messages';
import { isTemporalUnavailable, withTemporalDeadline } from './dependency-unavailable';
import { cliSender } from './operator-errors';

/** What became of the new batch, as far as known when the command answers. */
export type NewBatchView =
  | { id: string; status: SettlementStatus; amount: number; currency: string }
  /** It found nothing to sweep (e.g. a settlement run swept the released money first): no batch was written. */
  | { id: string; status: 'nothing'; reason: string }
  /** It had not swept yet when the command stopped waiting: GET /v1/settlements/{id} or its workflow shows it. */
  | { id: string; status: 'starting' };

/** What `settlements retry` prints: one JSON object. */
export interface SettlementRetryView {
  id: string;
  /** The failed batch's status (it stays `failed`; it no longer needs attention). */
  status: SettlementStatus;
  /** The new batch started for the same merchant, environment and currency. */
  retried_as: string;
  reason: string;
  retried_by: string;
  new_batch: NewBatchView;
}

async function loadSettlement(orm: Orm, id: string): Promise<SettlementRecord | null> {
  const rows = await orm.em.fork().execute<Record<string, unknown>[]>(`select * from settlements where id = ?`, [id]);
  return rows.length === 0 ? null : rowToSettlement(rows[0]);
}

/** Why the update did not reach an open run of the batch: closed (retried already, or an older run), or none at all. */
async function notOpen(temporal: TemporalHandle, id: string, deadlineMs: number): Promise<Error> {
  const handle = temporal.client.workflow.getHandle(id);
  const status = await withTemporalDeadline(temporal, deadlineMs, () => handle.describe()).then(
    (d) => d.status.name,
    () => null,
  );
  if (!status) return new Error(`settlement ${id} has no workflow; nothing to retry (its money is back in available: settlements run --merchant MERCHANT_ID sweeps it)`);
  if (status === 'COMPLETED') {
    const result = (await withTemporalDeadline(temporal, deadlineMs, () => handle.result()).catch(() => undefined)) as Partial<RetriedSettlement> | undefined;
    if (result?.retried_as) return new Error(`settlement ${id} was already retried as ${result.retried_as} (by ${result.retry?.by}: ${result.retry?.reason})`);
  }
  return new Error(`settlement ${id}: its workflow is closed (${status}); nothing to retry (its money is back in available: settlements run --merchant MERCHANT_ID sweeps it)`);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The new batch's first step (its sweep) takes a moment: looks for its row, or its run ended without
 * one, for at most `waitMs`.
 */
async function newBatchOutcome(orm: Orm, temporal: TemporalHandle, id: string, waitMs: number): Promise<NewBatchView> {
  const until = Date.now() + waitMs;
  const handle = temporal.client.workflow.getHandle(id);
  for (;;) {
    const row = await loadSettlement(orm, id);
    if (row) return { id, status: row.status, amount: row.amount, currency: row.currency };
    const left = until - Date.now();
    if (left <= 0) return { id, status: 'starting' };
    const closed = await withTemporalDeadline(temporal, left, () => handle.describe()).then(
      (d) => d.status.name !== 'RUNNING',
      () => false,
    );
    if (closed) {
      const outcome = (await withTemporalDeadline(temporal, Math.max(1, until - Date.now()), () => handle.result()).catch(() => undefined)) as SettlementOutcome | undefined;
      if (outcome?.kind === 'nothing') return { id, status: 'nothing', reason: outcome.reason };
      const again = await loadSettlement(orm, id);
      return again ? { id, status: again.status, amount: again.amount, currency: again.currency } : { id, status: 'starting' };
    }
    await sleep(200);
  }
}

/**
 * Sends the retry; when the batch's run refuses it because it is moving to the current build first
 * (issue 31, finding 8: a failed batch pinned to an older build continues as new on the current one,
 * workflows/settlement-retry.ts), waits for the new run and sends it there, so the new batch starts
 * on the current build. Nothing was changed by the refused request.
 */
async function sendOnceMoved<T>(temporal: TemporalHandle, settlementId: string, send: () => Promise<T>, deadline: number): Promise<T> {
  for (;;) {
    const runId = await temporal.client.workflow
      .getHandle(settlementId)
      .describe()
      .then((d) => d.runId, () => null);
    try {
      return await send();
    } catch (error) {
      const moving = error instanceof WorkflowUpdateFailedError && (error.cause?.message ?? '').includes(RETRY_WAITS_FOR_BUILD_MOVE);
      if (!moving || Date.now() >= deadline) throw error;
    }
    // The refusal and the move are one workflow task: the new run follows at once.
    while (Date.now() < deadline) {
      const now = await temporal.client.workflow
        .getHandle(settlementId)
        .describe()
        .then((d) => d.runId, () => runId);
      if (now !== runId) break;
      await sleep(200);
    }
  }
}

/**
 * Operator action (`settlements retry stl_… --reason TEXT`): sends the `retrySettlement` update to a
 * failed batch's workflow, which validates it (a reason; the batch failed and was not retried yet),
 * starts a new batch for the same merchant, environment and currency, clears NeedsAttention and
 * answers; the failed batch's workflow then ends with `retried_as`. Answers the failed batch, the new
 * batch's id and what it swept (or that it found nothing: a settlement run may have swept the money
 * first). Clear errors for an unknown id, a batch not failed, one already retried, a closed workflow.
 */
export async function retrySettlement(
  orm: Orm,
  temporal: TemporalHandle,
  settlementId: string,
  reason: string,
  deadlineMs: number = DEFAULT_TEMPORAL_REQUEST_DEADLINE_MS,
  requestedBy: string = cliSender(),
  batchId?: string,
): Promise<SettlementRetryView> {
  if (!isIdOf('settlement', settlementId)) throw new Error(`"${settlementId}" is not a settlement id (stl_ followed by 24 letters and digits)`);
  const batch = await loadSettlement(orm, settlementId);
  if (!batch) throw new Error(`settlement ${settlementId} does not exist`);
  if (batch.status !== 'failed') throw new Error(`settlement ${settlementId} is ${batch.status}: only a failed batch can be retried`);
  if (batch.environment === 'live') {
    // Issue 29: while another live batch of this balance waits for the partner's word, no new batch goes out.
    const open = await pendingLiveBatch(orm.em.fork(), batch.merchantId, batch.currency);
    if (open) throw new Error(`settlement ${settlementId} is not retried: ${unansweredBatchSkip(open)}. Nothing changed`);
    // Issue 43: a retry would sweep to the settlement account just replaced; it waits for the hold's end as the daily run does.
    const heldUntil = await settlementHeldUntil(orm, batch.merchantId);
    if (heldUntil) throw new Error(`settlement ${settlementId} is not retried: ${settlementAccountHoldSkip(heldUntil)}. Nothing changed`);
  }
  const deadline = Date.now() + deadlineMs;
  const send = () =>
    withTemporalDeadline(temporal, Math.max(1, deadline - Date.now()), () =>
      temporal.client.workflow.getHandle(settlementId).executeUpdate(retrySettlementUpdate, { args: [{ reason, operator: requestedBy, ...(batchId ? { batch_id: batchId } : {}) }] }),
    );
  let answer;
  try {
    answer = await sendOnceMoved(temporal, settlementId, send, deadline);
  } catch (error) {
    if (error instanceof WorkflowUpdateFailedError) throw new Error(error.cause?.message ?? error.message);
    // Also what the server answers for a closed run.
    if (error instanceof WorkflowNotFoundError) throw await notOpen(temporal, settlementId, deadlineMs);
    if (isTemporalUnavailable(error) || (error instanceof ServiceError && Date.now() >= deadline - 100)) {
      throw new Error(
        `settlement ${settlementId}: the workflow did not answer within ${deadlineMs / 1000} s (Temporal or the payment workers may be unavailable). ` +
          `If it was accepted it takes effect: run the same command again (it then names the new batch), or open workflow ${settlementId} in the Temporal UI.`,
      );
    }
    throw error;
  }
  return {
    id: settlementId,
    status: batch.status,
    retried_as: answer.retried_as,
    reason: answer.retry.reason,
    retried_by: answer.retry.by,
    new_batch: await newBatchOutcome(orm, temporal, answer.retried_as, deadlineMs),
  };
}

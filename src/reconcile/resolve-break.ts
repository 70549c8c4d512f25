import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { Orm } from '../persistence/orm';
import type { ChangeActor } from '../domain/operator-action';
import { paymentReviewWorkflowId, REVIEW_FLAG_SIGNAL, type PaymentReviewFlag } from '../domain/payment-review';
import { openBreaksOfPayment, resolveBreak, type BreakRow } from '../persistence/reconcile/break-store';

/**
 * `reconcile resolve`: the break resolved through the audited path (break-store.ts resolveBreak, which
 * refuses what the engine cannot verify: src/reconcile/resolve-rules.ts),
 * then, when its payment has no other open break, its review told that the reconciliation's reasons
 * are closed (`reviewFlag` with `resolved: true`; a review already closed is left alone).
 */
export async function resolveBreakAndReview(orm: Orm, client: Client, breakId: string, actor: ChangeActor, checked: string): Promise<BreakRow & { review_released: boolean }> {
  const row = await resolveBreak(orm, breakId, actor, checked);
  if (!row.payment_id || (await openBreaksOfPayment(orm, row.payment_id)) > 0) return { ...row, review_released: false };
  const reason = `break ${row.id} (${row.kind}) resolved by ${actor.operator}: ${actor.reason}`;
  try {
    return { ...row, review_released: await releaseReview(client, row.payment_id, reason) };
  } catch (error) {
    throw new Error(
      `break ${row.id} is resolved, but its payment's review (${paymentReviewWorkflowId(row.payment_id)}) was not told: ${(error as Error)?.message ?? String(error)}; ` +
        `send it the reviewFlag signal {"source":"reconciliation","reason":"…","resolved":true} from the Temporal UI`,
    );
  }
}

/**
 * Tells a payment's review that the reconciliation's reasons are closed (`reviewFlag` with
 * `resolved: true`): false when no review runs (a review already closed is left alone).
 */
export async function releaseReview(client: Client, paymentId: string, reason: string): Promise<boolean> {
  const flag: PaymentReviewFlag = { source: 'reconciliation', reason: reason.slice(0, 500), resolved: true };
  try {
    await client.workflow.getHandle(paymentReviewWorkflowId(paymentId)).signal(REVIEW_FLAG_SIGNAL, flag);
    return true;
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return false;
    throw error;
  }
}

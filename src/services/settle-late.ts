import { DEFAULT_TEMPORAL_REQUEST_DEADLINE_MS } from '../config';
import { paymentReviewWorkflowId, reviewedPaymentId, type SettleLateRequest } from '../domain/payment-review';
import { findLateAnswer } from '../persistence/partner/late-answer-store';
import type { Orm } from '../persistence/orm';
import type { TemporalHandle } from '../temporal/connection';
import { settleLateAnswerUpdate } from '../../workflows/payment-review-messages';
import { withTemporalDeadline } from './dependency-unavailable';
import { operatorError } from './operator-errors';

/**
 * Operator action (`payments settle-late ID --action credit|return|accept --reason TEXT`): settles
 * the late money of a payment (issue 29) through its review's `settleLateAnswer` update, which the
 * workflow validates (operator, reason, an action that fits, late money waiting), applies in one
 * database transaction and audits (`payment.settle_late`, before and after). `id` is the payment's
 * id or its review's workflow id (`review-…`, as a bulk `--query` selects them). Answers the
 * review's answer with the late_answers row as stored.
 */
export async function settleLate(
  orm: Orm,
  temporal: TemporalHandle,
  id: string,
  request: SettleLateRequest,
  deadlineMs: number = DEFAULT_TEMPORAL_REQUEST_DEADLINE_MS,
): Promise<unknown> {
  const paymentId = reviewedPaymentId(id) ?? id;
  if (!(await findLateAnswer(orm, paymentId))) throw new Error(`payment ${paymentId} has no late money recorded: nothing to settle (see payments stuck)`);
  const deadline = Date.now() + deadlineMs;
  let answer: unknown;
  try {
    answer = await withTemporalDeadline(temporal, deadlineMs, () =>
      temporal.client.workflow.getHandle(paymentReviewWorkflowId(paymentId)).executeUpdate(settleLateAnswerUpdate, { args: [request] }),
    );
  } catch (error) {
    throw operatorError(paymentId, 'settled', error, deadlineMs, deadline);
  }
  return { ...(answer as object), late_answer: await findLateAnswer(orm, paymentId) };
}

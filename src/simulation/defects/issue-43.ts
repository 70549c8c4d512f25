/**
 * Issue 43's findings as planted defects (docs/simulation.md, "Issue 43's findings as planted
 * defects"): each puts back, through the worker's activity hooks, what the code did at 83c79c5.
 * test/system/simulation-money-defects.test.ts runs each with its plan.
 */
import { Context } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import type { Payload } from '@temporalio/common';
import { decodeArrayFromPayloads } from '@temporalio/common/lib/internal-non-workflow';
import { LIVE_PAYOUT_DEADLINE_MS, type RailStepRequest } from '../../domain/live-rail';
import type { SettlementRetryFacts } from '../../domain/settlement-retry';
import { resolveChargeUpdate } from '../../../workflows/messages';
import type { Orm } from '../../persistence/orm';
import { recordRailAnswer, statusAnswer, submitAnswer } from '../../persistence/partner/rail-answer-store';
import type { RailStatus, RailSubmitResult } from '../../rail/partner-rail';
import type { DefectTarget } from './target';

/** The fake's behaviours that answer a second submission of a reference with a 400 (`0013`, `0014`). */
const REFUSES_DUPLICATES = new Set(['duplicate_refused', 'pending_duplicate_refused']);

/**
 * Issue 43, finding 1, as 83c79c5 had it: a submission is taken as repeated only when the workflow
 * says so (`resubmit`) or on the activity's second attempt, so a restarted payout's first submission
 * (attempt 1, no `resubmit`, its reference chosen by the first run) that the partner refuses with a
 * 400 (it validates before it de-duplicates: `0013`, `0014`) is a final refusal, recorded as the
 * partner's `failed` (submit_refusal): the payout fails and its reservation is released while the
 * transfer goes on at the partner. Today's railSubmit (activities/rail.ts) checks that refusal against
 * the partner's status and answers `duplicate`; the defect turns that answer back into the refusal.
 * Answers a function that removes the defect.
 */
export function injectRestartRefusalFinal(target: DefectTarget): () => void {
  const fake = target.fakePartner;
  if (!fake) throw new Error('the defect restart-refusal-final needs the engine\'s fake partner');
  return target.hooks.afterActivity('railSubmit', async (result, args) => {
    const request = args[0] as RailStepRequest;
    if ((result as { kind?: string } | null)?.kind !== 'duplicate' || request.resubmit === true || Context.current().info.attempt > 1) return result;
    const [reference] = await target.orm.em.fork().execute<Array<{ reference_id: string }>>('select reference_id::text as reference_id from rail_references where payment_id = ?', [request.paymentId]);
    const kept = reference && fake.transaction(request.product, reference.reference_id);
    // Only a 400 of a partner that refuses duplicates became `duplicate` here (a 409 was one already in 83c79c5).
    if (!kept || !REFUSES_DUPLICATES.has(kept.behaviour)) return result;
    const refused: RailSubmitResult = { kind: 'refused', reason: 'NOT_ALLOWED', failureClass: 'declined' };
    const answer = submitAnswer(request.paymentId, refused, true);
    if (answer) await recordRailAnswer(target.orm.em.fork(), answer);
    return refused;
  });
}

/**
 * Issue 43, finding 4, as 83c79c5 had it: a failed live batch's retry asks the partner (and reads our
 * records of its late money) only when the batch failed with `timeout`. The defect hides the facts
 * the retry reads (settlementRetryFacts: late money, the partner's SUCCESSFUL on record, a reference
 * to ask about) for a batch failed otherwise (the partner's FAILED): a batch the partner paid late is
 * sent again. Answers a function that removes the defect.
 */
export function injectRetryAfterLateSuccess(target: DefectTarget): () => void {
  return target.hooks.afterActivity('settlementRetryFacts', async (result, args) => {
    const settlementId = args[0] as string;
    const [batch] = await target.orm.em.fork().execute<Array<{ failure_class: string | null }>>('select failure_class from settlements where id = ?', [settlementId]);
    if (!batch || batch.failure_class === 'timeout') return result;
    return { ...(result as SettlementRetryFacts), hasReference: false, lateAnswer: null, partnerSucceeded: false, otherLatePaid: null };
  });
}

/**
 * Issue 43, finding 2, as 83c79c5 had it: a late return's submission refused on a retry (the first
 * attempt's answer lost, and a partner that validates before it de-duplicates: `0013`) was taken as
 * final without asking the partner: the return recorded failed and the operator told to send it by
 * hand, while the partner pays the first copy. Today's submitLateReturn checks such a refusal against
 * the partner's status and answers `duplicate`; the defect turns that answer back into the refusal.
 * Answers a function that removes the defect.
 */
export function injectLateReturnRefusalFinal(target: DefectTarget): () => void {
  return target.hooks.afterActivity('submitLateReturn', async (result) => {
    if ((result as { kind?: string } | null)?.kind !== 'duplicate' || Context.current().info.attempt < 2) return result;
    const refused: RailSubmitResult = { kind: 'refused', reason: 'NOT_ALLOWED', failureClass: 'declined' };
    return refused;
  });
}

/**
 * Issue 43, finding 3, as 83c79c5 had it: an operator's `charges resolve --as succeeded --evidence …`
 * ended a live charge's wait, and the evidence (any non-empty text) stood for the partner's word, so
 * the merchant was credited while the partner, just asked, still said PENDING. Today the resolution
 * asks the partner (railStatus) and only a final answer ends the charge; the defect answers that
 * question with the operator's evidence instead: when the charge's run holds an accepted, unanswered
 * `resolveCharge` update for `succeeded` with evidence, a PENDING (or unknown) status becomes a
 * SUCCESSFUL for the charge's own amount and currency, recorded as the partner's answer from the
 * operator's evidence (rail_answers, source `operator_evidence`), which is what the old code took it
 * for. Answers a function that removes the defect.
 */
export function injectResolutionEvidenceFinal(target: DefectTarget): () => void {
  const client = target.client;
  if (!client) throw new Error('the defect resolution-evidence-final needs a client of the engine\'s Temporal');
  return target.hooks.afterActivity('railStatus', async (result, args) => {
    const request = args[0] as RailStepRequest;
    const status = result as RailStatus;
    if (request.product !== 'collection' || status.status === 'succeeded' || status.status === 'failed') return result;
    const run = Context.current().info.workflowExecution;
    const evidence = run && (await openResolutionEvidence(client, run));
    if (evidence === undefined) return result;
    const [charge] = await target.orm.em.fork().execute<Array<{ amount: string; currency: string }>>('select amount::text as amount, currency from charges where id = ?', [request.paymentId]);
    if (!charge) return result;
    const said: RailStatus = { status: 'succeeded', amount: Number(charge.amount), currency: charge.currency, financialTransactionId: evidence };
    await recordRailAnswer(target.orm.em.fork(), { ...statusAnswer(request.paymentId, said), source: 'operator_evidence' });
    return said;
  });
}

/** The evidence of an accepted, not yet answered `resolveCharge` update for `succeeded` in the run's history; undefined when there is none. */
async function openResolutionEvidence(client: Client, run: { workflowId: string; runId: string }): Promise<string | undefined> {
  const history = await client.workflow.getHandle(run.workflowId, run.runId).fetchHistory();
  const answered = new Set<string>();
  const accepted: Array<{ id: string; args: Payload[] }> = [];
  for (const event of history.events ?? []) {
    const done = event.workflowExecutionUpdateCompletedEventAttributes?.meta?.updateId;
    if (done) answered.add(done);
    const request = event.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest;
    if (request?.input?.name === resolveChargeUpdate.name && request.meta?.updateId) accepted.push({ id: request.meta.updateId, args: (request.input.args?.payloads ?? []) as Payload[] });
  }
  for (const open of accepted.filter((a) => !answered.has(a.id))) {
    const [body] = (await decodeArrayFromPayloads(client.options.loadedDataConverter, open.args)) as Array<{ as?: string; evidence?: string }>;
    if (body?.as === 'succeeded' && body.evidence?.trim()) return body.evidence.trim();
  }
  return undefined;
}

/**
 * Issue 43, finding 5, as runs of the old shape still had it on 83c79c5 (runs started before the
 * `partner-word-only` patch: charge-rail.ts `followLiveCharge`, payout-rail.ts `followLivePayout`): a
 * deadline ended a live payment the partner had not answered, a charge at `expires_at` (expired) and
 * a payout 24 h after its transfer (failed, `timeout`, its reservation released). The simulator runs
 * today's workflow code only, which asks the partner at those moments and keeps waiting; the defect
 * answers that question with the old ending instead: a PENDING (or unknown) status of a charge asked
 * at or after its `expires_at`, or of a payout asked LIVE_PAYOUT_DEADLINE_MS after its creation, becomes
 * a FAILED (`timeout`), recorded as the partner's answer, which is what the old run took its deadline
 * for. Answers a function that removes the defect.
 */
export function injectOldShapeDeadline(target: DefectTarget): () => void {
  return target.hooks.afterActivity('railStatus', async (result, args) => {
    const request = args[0] as RailStepRequest;
    const status = result as RailStatus;
    if (status.status === 'succeeded' || status.status === 'failed') return result;
    const deadline = await oldShapeDeadline(target.orm, request);
    if (deadline === undefined || Context.current().info.currentAttemptScheduledTimestampMs < deadline) return result;
    const ended: RailStatus = { status: 'failed', reason: 'no final answer by the deadline (the old shape ends here)', failureClass: 'timeout' };
    await recordRailAnswer(target.orm.em.fork(), statusAnswer(request.paymentId, ended));
    return ended;
  });
}

/** When the old shape ended a live payment without the partner's word (epoch ms, workflow time): a charge's expires_at, a payout's creation plus a day. */
async function oldShapeDeadline(orm: Orm, request: RailStepRequest): Promise<number | undefined> {
  const em = orm.em.fork();
  if (request.product === 'collection') {
    const [charge] = await em.execute<Array<{ ms: string }>>('select (extract(epoch from expires_at) * 1000)::bigint::text as ms from charges where id = ?', [request.paymentId]);
    return charge ? Number(charge.ms) : undefined;
  }
  const [payout] = await em.execute<Array<{ ms: string }>>('select (extract(epoch from created_at) * 1000)::bigint::text as ms from payouts where id = ?', [request.paymentId]);
  return payout ? Number(payout.ms) + LIVE_PAYOUT_DEADLINE_MS : undefined;
}

import { allHandlersFinished, ApplicationFailure, condition, setCurrentDetails, setHandler, upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import { DISPUTE_INPUT_REFUSED, DISPUTE_NOT_FOUND, isOpenDisputeStatus, type DisputeEvidenceRequest, type DisputeOutcome, type DisputeStart, type DisputeState } from '../src/domain/dispute';
import { SANDBOX_DECISION_DELAY_MS } from '../src/domain/dispute-evidence';
import { disputeSearchAttributePairs } from '../src/domain/dispute-search-attributes';
import { SA } from '../src/domain/search-attributes';
import { attentionDesk } from './charge-attention';
import { applyDisputeOutcome, beginDispute, recordDisputeEvidence } from './dispute-activities';
import { evidenceDesk } from './dispute-evidence';
import { disputeStateQuery } from './dispute-messages';
import { timerDesk } from './payout-timers';
import { answerRecord } from './record-query';
import { auditRestart } from './operator-restart';

/**
 * One dispute, from opening to its end. Workflow id = dispute id (`dp_…`).
 *
 * Started by the API after it wrote the dispute, its hold and `dispute.opened` in one transaction (or
 * by the dispute-start relay), with `{ disputeId }` only; it trusts only the database:
 *
 * 0. Refuse to run (non-retryably, `DisputeInputRefused`, nothing written) unless the input is
 *    `{ disputeId }` and the workflow id is the dispute id.
 * 1. Begin (local activity): load the dispute, mark the workflow started and, the first time, set
 *    `evidence_due_by` (opened + DISPUTE_EVIDENCE_WINDOW of the worker, default 7 days) with
 *    `dispute.evidence_required`. No such dispute: `DisputeNotFoundError`, non-retryably; a stored
 *    dispute of another merchant or environment than the run's search attributes:
 *    `DisputeInputRefused`. A dispute already resolved (a run started again) moves nothing.
 * 2. Needs response: a durable timer until `evidence_due_by`, raced by the `submitEvidence` update
 *    (workflows/dispute-evidence.ts; its handler records the evidence: `under_review`) and by the
 *    sandbox `advance` signal. The deadline first: `lost` (the hold debited), and evidence is refused
 *    from then on.
 * 3. Under review: the sandbox decides about 3 s after the evidence (a timer, raced by `advance`):
 *    text containing `losing_evidence` loses (debit), any other wins (the hold released).
 *
 * Database steps retry for a bounded time; one that gives up marks the run NeedsAttention and waits
 * for `retryStep` (workflows/charge-attention.ts, shared with charges, payouts and refunds). History
 * holds the dispute's state only; the evidence text is in the `submitEvidence` update's input alone.
 */
export async function disputeWorkflow(input: DisputeStart): Promise<DisputeState> {
  const { workflowId } = workflowInfo();
  if (typeof input?.disputeId !== 'string') throw refused(`a dispute workflow takes { disputeId } of a dispute the API wrote: refused to run ${workflowId}`);
  const { disputeId } = input;
  if (workflowId !== disputeId) throw refused(`workflow ${workflowId} was started for dispute ${disputeId}: a dispute workflow runs only under its dispute's id`);
  await auditRestart(disputeId, 'dispute.restart', input.restart);

  let dispute: DisputeState | undefined;
  setHandler(disputeStateQuery, () => dispute);
  answerRecord(() => dispute);
  const desk = attentionDesk(disputeId);
  const timers = timerDesk(disputeId, () => dispute?.environment);
  const recordEvidence = async (request: DisputeEvidenceRequest): Promise<DisputeState> => {
    dispute = await desk.persist('dispute -> under_review', () => recordDisputeEvidence(request));
    upsertSearchAttributes(disputeSearchAttributePairs(dispute));
    return dispute;
  };
  const evidence = evidenceDesk(disputeId, () => dispute, recordEvidence);

  const finished = async (): Promise<DisputeState> => {
    evidence.close();
    setCurrentDetails(`finished: ${dispute!.status}`);
    await condition(allHandlersFinished); // an accepted update answers before the run closes
    return dispute!;
  };
  const resolve = async (to: DisputeOutcome, why: string): Promise<DisputeState> => {
    evidence.close();
    setCurrentDetails(`writing dispute -> ${to} (${why})`);
    dispute = await desk.persist(`dispute -> ${to}`, () => applyDisputeOutcome({ disputeId, to, at: new Date().toISOString() }));
    upsertSearchAttributes(disputeSearchAttributePairs(dispute));
    return finished();
  };

  setCurrentDetails('begin: reading the dispute the API wrote');
  const begun = await desk.persist('begin dispute', () => beginDispute(disputeId));
  if (!begun) {
    throw ApplicationFailure.create({ type: DISPUTE_NOT_FOUND, message: `dispute ${disputeId} was never written by the API: the dispute workflow refuses to run`, nonRetryable: true });
  }
  dispute = begun.dispute;
  const mismatch = startedForAnother(dispute);
  if (mismatch) throw refused(`dispute ${disputeId}: ${mismatch}; the dispute workflow refuses to run`);
  if (!isOpenDisputeStatus(dispute.status)) return finished();
  upsertSearchAttributes(disputeSearchAttributePairs(dispute));

  let decision = begun.decision;
  if (dispute.status === 'needs_response') {
    const deadline = dispute.evidenceDueBy ?? dispute.updatedAt;
    setCurrentDetails(`needs response: waiting for submitEvidence ({"text":"…"}) until ${deadline} (evidence_due_by), then lost`);
    decision = await evidence.collect(deadline, timers);
    if (decision === null) return resolve('lost', 'no evidence by evidence_due_by');
  }

  setCurrentDetails('under review: the sandbox decides about 3 s after the evidence (or advance)');
  await timers.wait(SANDBOX_DECISION_DELAY_MS, 'sandbox review decision: the evidence is judged');
  return resolve(decision ?? 'won', 'sandbox review decision');
}

/** The API and the dispute-start relay start a run with the record's merchant and environment as search attributes. */
function startedForAnother(dispute: DisputeState): string | undefined {
  const attributes = workflowInfo().typedSearchAttributes;
  const merchant = attributes.get(SA.MerchantId);
  const environment = attributes.get(SA.Environment);
  if (merchant !== dispute.merchantId || environment !== dispute.environment) {
    return `the run was started for merchant ${merchant ?? '(none)'} in ${environment ?? '(none)'}, the stored dispute belongs to ${dispute.merchantId} in ${dispute.environment}`;
  }
  return undefined;
}

function refused(message: string): ApplicationFailure {
  return ApplicationFailure.create({ type: DISPUTE_INPUT_REFUSED, message, nonRetryable: true });
}

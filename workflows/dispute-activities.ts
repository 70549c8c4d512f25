import { proxyLocalActivities, type LocalActivityOptions } from '@temporalio/workflow';
import type { DisputeActivities } from '../activities/types';
import { DB_STEP_RETRY } from '../src/domain/charge-attention';
import type { BegunDispute, DisputeEvidenceRequest, DisputeOutcomeRequest, DisputeState } from '../src/domain/dispute';

/**
 * Database steps of a dispute, as local activities with the charge's bounded retries
 * (src/domain/charge-attention.ts: about 16 minutes, 30 at most); a step that gives up asks an
 * operator (NeedsAttention, `retryStep`). Permanent database errors are not retried. Every step is
 * idempotent: a retry after a crash writes nothing twice.
 */
const OPTIONS: LocalActivityOptions = {
  startToCloseTimeout: DB_STEP_RETRY.startToCloseMs,
  scheduleToCloseTimeout: DB_STEP_RETRY.scheduleToCloseMs,
  localRetryThreshold: DB_STEP_RETRY.localRetryThresholdMs,
  retry: {
    initialInterval: DB_STEP_RETRY.initialIntervalMs,
    backoffCoefficient: DB_STEP_RETRY.backoffCoefficient,
    maximumInterval: DB_STEP_RETRY.maximumIntervalMs,
    maximumAttempts: DB_STEP_RETRY.maximumAttempts,
    nonRetryableErrorTypes: ['DeterministicDatabaseError'],
  },
};

const db = proxyLocalActivities<DisputeActivities>(OPTIONS);

export function beginDispute(disputeId: string): Promise<BegunDispute | null> {
  return db.beginDispute.executeWithOptions(
    { ...OPTIONS, summary: 'begin dispute: load the record the API wrote, set evidence_due_by, dispute.evidence_required' },
    [disputeId],
  );
}

export function recordDisputeEvidence(request: DisputeEvidenceRequest): Promise<DisputeState> {
  return db.recordDisputeEvidence.executeWithOptions({ ...OPTIONS, summary: 'dispute -> under_review: the evidence recorded' }, [request]);
}

export function applyDisputeOutcome(request: DisputeOutcomeRequest): Promise<DisputeState> {
  const money = request.to === 'won' ? 'hold released to available' : 'hold debited to dispute_clearing';
  return db.applyDisputeOutcome.executeWithOptions({ ...OPTIONS, summary: `dispute -> ${request.to}: projection, ledger (${money}), balances, event` }, [request]);
}

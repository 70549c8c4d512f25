import { proxyLocalActivities } from '@temporalio/workflow';
import type { DisputeActivities } from '../activities/types';
import type { BegunDispute, DisputeEvidenceRequest, DisputeOutcomeRequest, DisputeState } from '../src/domain/dispute';
import { dbStepOptions } from './db-step-options';

/**
 * Database steps of a dispute, as local activities with the charge's bounded retries
 * (src/domain/charge-attention.ts: about 16 minutes, 30 at most); a step that gives up asks an
 * operator (NeedsAttention, `retryStep`). Permanent database errors are not retried. Every step is
 * idempotent: a retry after a crash writes nothing twice.
 */
const OPTIONS = dbStepOptions(['DeterministicDatabaseError']);

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

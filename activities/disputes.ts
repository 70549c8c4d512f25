import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { disputeEvidenceWindowMs } from '../src/config';
import { disputeState, type DisputeEvidenceRequest, type DisputeOutcomeRequest, type DisputeRecord } from '../src/domain/dispute';
import { DETERMINISTIC_DB_ERROR, deterministicDbMessage, isDeterministicDbError } from '../src/persistence/db-errors';
import { applyDisputeOutcome, beginDispute, recordDisputeEvidence } from '../src/persistence/disputes/dispute-store';
import type { Orm } from '../src/persistence/orm';
import type { DisputeActivities } from './types';

/** Permanent database errors are non-retryable with a stable type; anything else (connection lost, lock timeout, deadlock) is retried. */
function asFailure(error: unknown): unknown {
  if (isDeterministicDbError(error)) return ApplicationFailure.create({ type: DETERMINISTIC_DB_ERROR, message: deterministicDbMessage(error), nonRetryable: true });
  return error;
}

/** Worker metric `payments_dispute_outcomes{to,environment}`, exported by the SDK. */
function countOutcome(dispute: DisputeRecord): void {
  Context.current().metricMeter.createCounter('payments_dispute_outcomes', '1', 'Disputes resolved').add(1, { to: dispute.status, environment: dispute.environment });
}

/**
 * The dispute workflow's database steps (workflows/dispute-activities.ts). `evidenceWindowMs` is
 * DISPUTE_EVIDENCE_WINDOW of the worker (default 7d, src/config.ts); the deadline the first step sets
 * goes into history with its answer, so the evidence timer replays unchanged whatever the setting
 * later becomes. Answers hold state only (they go into history: no evidence text).
 */
export function createDisputeActivities(deps: { orm: Orm; evidenceWindowMs?: number }): DisputeActivities {
  const windowMs = deps.evidenceWindowMs ?? disputeEvidenceWindowMs();
  return {
    async beginDispute(disputeId: string) {
      try {
        return await beginDispute(deps.orm, disputeId, windowMs);
      } catch (error) {
        throw asFailure(error);
      }
    },
    async recordDisputeEvidence(request: DisputeEvidenceRequest) {
      try {
        return disputeState(await recordDisputeEvidence(deps.orm, request));
      } catch (error) {
        throw asFailure(error);
      }
    },
    async applyDisputeOutcome(request: DisputeOutcomeRequest) {
      try {
        return disputeState(await applyDisputeOutcome(deps.orm, request, countOutcome));
      } catch (error) {
        throw asFailure(error);
      }
    },
  };
}

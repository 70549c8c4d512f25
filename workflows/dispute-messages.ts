import { defineQuery, defineUpdate } from '@temporalio/workflow';
import type { DisputeState } from '../src/domain/dispute';
import type { SubmitEvidenceRequest } from '../src/domain/dispute-evidence';

/** Current state as the dispute workflow last wrote it (no evidence text; `temporal workflow query --type disputeState`). */
export const disputeStateQuery = defineQuery<DisputeState | undefined>('disputeState');

/**
 * The merchant's evidence on a dispute (POST /v1/disputes/{id}/evidence, or the Temporal UI with
 * `{"text":"…"}`). Validated by the workflow: a non-empty text of at most MAX_EVIDENCE_LENGTH
 * characters, a dispute that needs a response, no evidence yet, and the deadline not passed. Answers
 * the dispute's state once the evidence is recorded (`under_review`).
 */
export const submitEvidenceUpdate = defineUpdate<DisputeState, [SubmitEvidenceRequest]>('submitEvidence');

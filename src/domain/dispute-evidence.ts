import type { DisputeOutcome, DisputeState } from './dispute';
import { COMPLETION_DELAY_MS } from './sandbox-outcome';

/**
 * The evidence rules of a dispute, shared by the API (POST /v1/disputes/{id}/evidence checks them
 * before it asks the workflow) and the dispute workflow (the `submitEvidence` validator, the one
 * that decides). Pure: no clock of its own, the caller passes the time.
 */

/** Longest evidence text accepted (characters). It goes into the workflow history (encrypted) and the dispute row. */
export const MAX_EVIDENCE_LENGTH = 10_000;

/** Input of the `submitEvidence` update (POST /v1/disputes/{id}/evidence, or the Temporal UI with `{"text":"…"}`). */
export interface SubmitEvidenceRequest {
  text: string;
}

/** Why a submitEvidence input is refused (its shape only), or null. */
export function evidenceRequestRefusal(request: unknown): string | null {
  if (typeof request !== 'object' || request === null) return 'submitEvidence takes {"text":"…"}';
  const { text } = request as Record<string, unknown>;
  if (typeof text !== 'string' || text.trim() === '') return 'a non-empty "text" is required';
  // The API's rule for every text (src/http/validate.ts), for senders that skip the API (the Temporal UI): PostgreSQL cannot store NUL.
  if (/[\u0000-\u0008\u000B-\u001F]/.test(text)) return '"text" must not contain control characters (U+0000–U+001F other than tab and newline)';
  // Characters are code points, as the API's schema and PostgreSQL's char_length count them.
  if ([...text].length > MAX_EVIDENCE_LENGTH) return `"text" is longer than ${MAX_EVIDENCE_LENGTH} characters`;
  return null;
}

/**
 * Why evidence is not accepted for this dispute at `nowMs`, or null when it is: only once, while the
 * dispute needs a response and before `evidence_due_by`.
 */
export function evidenceRefusal(dispute: Pick<DisputeState, 'id' | 'status' | 'evidenceDueBy' | 'evidenceSubmittedAt'>, nowMs: number): string | null {
  switch (dispute.status) {
    case 'under_review':
      return `Evidence for dispute ${dispute.id} was already submitted${dispute.evidenceSubmittedAt ? ` at ${dispute.evidenceSubmittedAt}` : ''} and is under review: evidence is accepted once.`;
    case 'won':
    case 'lost':
      return `Dispute ${dispute.id} is already resolved (${dispute.status}): evidence is no longer accepted.`;
    case 'needs_response':
      if (dispute.evidenceDueBy !== null && nowMs >= Date.parse(dispute.evidenceDueBy)) return deadlinePassed(dispute.id, dispute.evidenceDueBy);
      return null;
  }
}

export function deadlinePassed(disputeId: string, evidenceDueBy: string): string {
  return `The evidence deadline of dispute ${disputeId} passed at ${evidenceDueBy} (evidence_due_by): evidence is no longer accepted and the dispute is lost.`;
}

/** The sandbox's decision about 3 s after the evidence arrived: text containing `losing_evidence` loses, any other wins. */
export function sandboxDisputeDecision(evidenceText: string): DisputeOutcome {
  return evidenceText.includes('losing_evidence') ? 'lost' : 'won';
}

/** How long the sandbox "card network" takes to decide on submitted evidence (about three seconds, as every sandbox completion). */
export const SANDBOX_DECISION_DELAY_MS = COMPLETION_DELAY_MS;

import type { ChargeState } from './charge-state';
import { hasControlCharacter } from './control-characters';
import { isWellFormedText, plainTextProblem } from './plain-text';
import { isFailureClass, type FailureClass } from './failure-classes';
import { operatorRefusal, type OperatorFields } from './operator-action';

/** Patch id of the indeterminate path that flags the charge at once and waits for `resolveCharge`. */
export const INDETERMINATE_ATTENTION_PATCH = 'indeterminate-attention';

/**
 * `patched()` id (issue 43): a live charge ends only on the partner's final answer
 * (workflows/charge-rail-live.ts followLiveChargeUntilTheWord): an operator's resolution asks the
 * partner and is refused without a final answer; at `expires_at` the charge stays awaiting_action
 * while the partner says PENDING. Runs from before replay as they ran (a resolution could end them
 * while the partner said PENDING; expiry ended them, a payment review watching for late money).
 */
export const PARTNER_DECIDES_LIVE_CHARGE_PATCH = 'partner-decides-live-charge';

/** The step name `payments stuck` and the `chargeAttention` query show for an indeterminate charge. */
export const INDETERMINATE_STEP = 'partner answer';

/** Why an indeterminate charge needs an operator (`chargeAttention.reason`, `payments stuck`). */
export function indeterminateReason(chargeId: string, expiresAt: string): string {
  return (
    `indeterminate: the partner did not answer (partner_timeout) and the customer's money may have moved; ` +
    `ask the partner, then: charges resolve ${chargeId} --as succeeded|failed --reason TEXT (expires unresolved at ${expiresAt})`
  );
}

/**
 * Input of the `resolveCharge` update (`charges resolve txn_… --as succeeded|failed --reason TEXT`,
 * or the Temporal UI: `{"as":"succeeded","operator":"jane","reason":"partner confirmed by phone"}`).
 * `failure_class` applies to `failed` only (default `declined`).
 */
export interface ChargeResolutionRequest extends OperatorFields {
  as: 'succeeded' | 'failed';
  failure_class?: FailureClass;
  /**
   * The partner's evidence (issue 29): its transaction id (financialTransactionId) or the statement
   * line that shows the payment. Required for a live charge, which only the partner's word ends; the
   * engine keeps watching the partner afterwards, and a different answer becomes a payment review.
   */
  evidence?: string;
}

/** Longest `evidence` accepted (a transaction id or one statement line). */
export const MAX_EVIDENCE_LENGTH = 500;

/** Why a live charge's resolution without the partner's evidence is refused. */
export function liveEvidenceRefusal(chargeId: string): string {
  return (
    `charge ${chargeId} is live: only the partner's word ends it. Resolve it with the partner's evidence: ` +
    `charges resolve ${chargeId} --as succeeded|failed --evidence PARTNER_TRANSACTION_ID|STATEMENT_LINE --reason TEXT ` +
    `(or "evidence" in the resolveCharge update)`
  );
}

/** Failure class of a charge resolved as failed without one. */
export const RESOLVED_FAILURE_CLASS: FailureClass = 'declined';

/** Why a resolveCharge input is refused (its shape only), or null. */
export function resolutionRequestRefusal(request: unknown): string | null {
  const operator = operatorRefusal(request);
  if (operator) return operator;
  const { as, failure_class } = request as Record<string, unknown>;
  if (as !== 'succeeded' && as !== 'failed') return '"as" must be "succeeded" or "failed"';
  if (failure_class !== undefined) {
    if (as !== 'failed') return '"failure_class" goes with "as": "failed" only';
    if (!isFailureClass(failure_class)) return `"failure_class" must be one of the failure classes of SPEC 7`;
  }
  const { evidence } = request as Record<string, unknown>;
  if (evidence !== undefined) {
    if (typeof evidence !== 'string' || evidence.trim() === '' || evidence.length > MAX_EVIDENCE_LENGTH || hasControlCharacter(evidence) || !isWellFormedText(evidence)) {
      return `"evidence", when sent, is the partner's transaction id or a statement line: 1 to ${MAX_EVIDENCE_LENGTH} printable characters`;
    }
    // Issue 43: the plain-text rule of an operator's name and reason (it goes to the audit row and in front of operators).
    const notPlain = plainTextProblem('"evidence"', evidence);
    if (notPlain) return notPlain;
  }
  return null;
}

/**
 * The engine's check of an operator's evidence once the partner answers SUCCESSFUL (the payment
 * review, activities/payment-review.ts): the partner's transaction id must appear in the evidence (the
 * id itself, or the statement line that carries it). Null when it does, or when the partner gave none.
 */
export function evidenceMismatch(evidence: string, financialTransactionId: string | undefined): string | null {
  if (!financialTransactionId) return null;
  if (evidence.includes(financialTransactionId)) return null;
  return `the partner's transaction id ${financialTransactionId} is not in the evidence the charge was resolved with ("${evidence.slice(0, 120)}")`;
}

/**
 * Issue 43: what the partner said about a live charge when an operator's resolution met its final
 * answer. The charge always ends as the partner says; the operator is told whether it agreed.
 */
export interface PartnerWordOnResolution {
  /** The operator's resolution agreed with the partner (SUCCESSFUL whose transaction id is in the evidence, for `succeeded`; FAILED, for `failed`). */
  agreed: boolean;
  /** The partner's final answer: `SUCCESSFUL (financialTransactionId …)`, `FAILED (…)`, or its confirmation that it never received the request. */
  partner: string;
  /** One line for the operator. */
  message: string;
}

/** The answer of the `resolveCharge` update: the charge's state, and for a live charge the partner's word. */
export type ChargeResolutionResult = ChargeState & { resolution?: PartnerWordOnResolution };

/** The partner's final answer as the resolution desk hears it (workflows/charge-rail-live.ts). */
export type PartnerFinal = { kind: 'succeeded'; financialTransactionId?: string } | { kind: 'failed'; reason: string };

/** Whether an operator's resolution agrees with the partner's final answer, in words. */
export function partnerWordOnResolution(chargeId: string, as: 'succeeded' | 'failed', evidence: string | undefined, word: PartnerFinal, endedAs: string): PartnerWordOnResolution {
  const partner = word.kind === 'succeeded' ? `SUCCESSFUL${word.financialTransactionId ? ` (financialTransactionId ${word.financialTransactionId})` : ''}` : `FAILED (${word.reason})`;
  if (as === 'failed') {
    if (word.kind === 'failed') return { agreed: true, partner, message: `charge ${chargeId}: the partner says ${partner}; the charge is ${endedAs}` };
    return { agreed: false, partner, message: `charge ${chargeId}: the partner says ${partner}, not failed: the charge is ${endedAs} as the partner says (the customer paid); your resolution was not applied` };
  }
  if (word.kind === 'failed') {
    return { agreed: false, partner, message: `charge ${chargeId}: the partner says ${partner}, not succeeded: the charge is ${endedAs} as the partner says and nothing is credited; your resolution was not applied` };
  }
  if (!word.financialTransactionId) {
    return { agreed: false, partner, message: `charge ${chargeId}: the partner says ${partner} with no transaction id, so your evidence could not be checked against it; the charge is ${endedAs} as the partner says` };
  }
  const mismatch = evidenceMismatch(evidence ?? '', word.financialTransactionId);
  if (mismatch) return { agreed: false, partner, message: `charge ${chargeId}: the partner says ${partner}, and the charge is ${endedAs} as the partner says; but ${mismatch}: check the evidence` };
  return { agreed: true, partner, message: `charge ${chargeId}: the partner says ${partner}; the charge is ${endedAs}` };
}

/** Why a live charge's resolution is refused while the partner, just asked, has no final answer (nothing changes). */
export function resolutionRefusedNotFinal(chargeId: string, as: 'succeeded' | 'failed', last: 'pending' | 'unknown' | 'no_answer' | 'differs', at: string): string {
  const said =
    last === 'pending' ? 'says PENDING'
    : last === 'unknown' ? 'says it does not know the reference (unknown)'
    : last === 'differs' ? 'says SUCCESSFUL for another amount or currency than the charge\'s (that ends nothing until its record agrees)'
    : 'did not answer';
  return (
    `charge ${chargeId}: the partner, asked at ${at}, ${said}: only its final answer ends a live charge, so the resolution as ${as} was refused and nothing changed. ` +
    `The charge stays awaiting its answer (NeedsAttention) and the engine keeps asking; it ends as the partner says`
  );
}

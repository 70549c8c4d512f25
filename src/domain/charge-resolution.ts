import { isFailureClass, type FailureClass } from './failure-classes';
import { operatorRefusal, type OperatorFields } from './operator-action';

/** Patch id of the indeterminate path that flags the charge at once and waits for `resolveCharge`. */
export const INDETERMINATE_ATTENTION_PATCH = 'indeterminate-attention';

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
  return null;
}

import type { CheckoutDecision } from '../domain/hosted-checkout';
import { claimCheckout, releaseCheckout } from '../persistence/charges/checkout-token-store';
import { withinDeadline } from '../temporal/deadline';
import { checkoutTokenHash } from '../support/checkout-token';
import { checkoutDecisionSignal } from '../../workflows/messages';
import type { ServiceDeps } from './context';

export type CheckoutDecisionResult =
  | { kind: 'decided'; chargeId: string; decision: CheckoutDecision }
  /** Unknown, already used or expired: nothing changed. */
  | { kind: 'refused' }
  /** The decision could not reach the charge's workflow: the token was released, nothing changed. */
  | { kind: 'unavailable' };

/**
 * The customer's decision on the hosted checkout page (docs/checkout.md): marks the token used, in
 * one statement that only an unused, unexpired token passes, then signals the charge's workflow
 * (`checkoutDecision`). If the signal fails (Temporal unreachable, the run gone), the claim is undone
 * so the customer may try again until expiry. The token is never logged: only the charge id is.
 */
export async function decideCheckout(deps: ServiceDeps, token: string, decision: CheckoutDecision): Promise<CheckoutDecisionResult> {
  const tokenHash = checkoutTokenHash(token);
  const chargeId = await claimCheckout(deps.orm, tokenHash, decision);
  if (!chargeId) return { kind: 'refused' };
  const client = deps.temporal.client;
  try {
    await withinDeadline(client, deps.temporalDeadlineMs, () => client.workflow.getHandle(chargeId).signal(checkoutDecisionSignal, { decision }));
  } catch (error) {
    deps.log.warn({ err: error, chargeId }, 'checkout decision not delivered to the charge workflow; token released');
    await releaseCheckout(deps.orm, tokenHash);
    return { kind: 'unavailable' };
  }
  deps.log.info({ chargeId, decision }, 'checkout decision delivered');
  return { kind: 'decided', chargeId, decision };
}

import type { Channel, ChargeAction, ChargeStatus } from './charge-status';
import type { Environment } from './environment';

/**
 * Hosted checkout (issue 21; docs/checkout.md). A sandbox card or bank charge sent without
 * `metadata.sandbox_outcome` waits for its customer: the create answer carries `action`
 * `3ds_redirect` (card) or `hosted_checkout` (bank) with a `url` on the web port holding a
 * single-use token, and the charge workflow waits for the page's decision against its expiry.
 * With an explicit `sandbox_outcome` the simulator decides as before; live card and bank charges
 * are unchanged (no live card or bank rail).
 */

/** patched() id: a charge whose stored action is a checkout waits for the customer's decision. */
export const HOSTED_CHECKOUT_PATCH = 'hosted-checkout';

/** The sandbox's one-time code of the card challenge (modelled on 3-D Secure), shown on the page. */
export const SANDBOX_CHALLENGE_CODE = '123456';

/** What the customer decided on the checkout page (a wrong challenge code is `declined`). */
export type CheckoutDecision = 'approved' | 'declined';

export interface CheckoutDecisionSignal {
  decision: CheckoutDecision;
}

export function isCheckoutDecision(value: unknown): value is CheckoutDecisionSignal {
  const decision = (value as Partial<CheckoutDecisionSignal> | null)?.decision;
  return decision === 'approved' || decision === 'declined';
}

/** The checkout a new charge gets, if any: sandbox, card or bank, no explicit `sandbox_outcome`. */
export function checkoutActionFor(environment: Environment, channel: Channel, sandboxOutcome: unknown): ChargeAction | null {
  if (environment !== 'sandbox' || sandboxOutcome !== undefined) return null;
  if (channel === 'card') return { type: '3ds_redirect' };
  if (channel === 'bank') return { type: 'hosted_checkout' };
  return null;
}

/** A charge waiting on its checkout is `awaiting_action`: the customer must act. */
export const CHECKOUT_STATUS: ChargeStatus = 'awaiting_action';

/** Whether a stored action is a hosted checkout (the workflow waits for the page's decision). */
export function isCheckoutAction(action: ChargeAction | null | undefined): boolean {
  return action?.type === '3ds_redirect' || action?.type === 'hosted_checkout';
}

/** The answer's action: the stored one plus the page's url (the token appears nowhere else). */
export function checkoutUrl(webUrl: string, token: string): string {
  return `${webUrl.replace(/\/+$/, '')}/checkout/${token}`;
}

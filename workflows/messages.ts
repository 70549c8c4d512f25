import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { ChargeRecord } from '../src/domain/charge';
import type { ChargeState } from '../src/domain/charge-state';
import type { ActivityTrouble, ChargeAttention, RetryStepRequest } from '../src/domain/charge-attention';
import type { ChargeResolutionRequest, ChargeResolutionResult } from '../src/domain/charge-resolution';
import type { CheckoutDecisionSignal } from '../src/domain/hosted-checkout';
import { CARD_SUBMITTED_SIGNAL } from '../src/domain/live-card';

/** The synchronous answer of POST /v1/charges, produced by the workflow's acceptance step. */
export type ChargeAcceptance =
  | { kind: 'accepted'; charge: ChargeRecord }
  /** sandbox `indeterminate`: the partner did not answer; the charge stays unresolved until expiry. */
  | { kind: 'partner_timeout'; charge: ChargeRecord };

/** Update sent together with the start (update-with-start); its id is fixed, so retries dedupe. */
export const acceptChargeUpdate = defineUpdate<ChargeAcceptance>('acceptCharge');
export const ACCEPT_UPDATE_ID = 'accept';

/** Current state as the workflow last wrote it (for operators: `temporal workflow query`; no customer data). */
export const chargeStateQuery = defineQuery<ChargeState | undefined>('chargeState');

/**
 * Whether the charge waits for an operator, which database step gave up and why
 * (`temporal workflow query --workflow-id txn_… --type chargeAttention`).
 */
export const chargeAttentionQuery = defineQuery<ChargeAttention>('chargeAttention');

/** Answer of `retryStep`: the step is being tried again (its outcome shows in chargeAttention). */
export interface RetryStepResult {
  chargeId: string;
  step: string;
  by: 'operator' | 'reconciler';
}

/**
 * Retries the database step the charge gave up on (`charges retry txn_… --reason TEXT`, the
 * reconciler, or the Temporal UI with `{"reason":"…"}`). Refused without a reason, or when the
 * charge is not waiting for an operator.
 */
export const retryStepUpdate = defineUpdate<RetryStepResult, [RetryStepRequest]>('retryStep');

/**
 * Sandbox only (`POST /v1/sandbox/advance/{id}`): fires the workflow's next timer now. It races the
 * timer, so the history shows which one won; the workflow proceeds as if the timer had fired.
 */
export const advanceSignal = defineSignal<[]>('advance');

/** The timer `advance` would fire now (its summary, and when it fires by itself), or null when none is waiting. */
export interface NextTimer {
  summary: string;
  firesAt?: string;
}
export const nextTimerQuery = defineQuery<NextTimer | null>('nextTimer');

/**
 * An operator's answer for an indeterminate charge (`charges resolve txn_… --as succeeded|failed
 * --reason TEXT`, or the Temporal UI with `{"as":"succeeded","operator":"…","reason":"…"}`): the
 * partner's answer came another way. Validated by the workflow (an operator, a reason, and a charge
 * still waiting for its partner); the ledger, the event and the webhook follow as for any outcome,
 * NeedsAttention clears, and the audit row is written. Answers the charge's state.
 * A live charge (issue 43): the partner is asked at once and decides; without a final answer the
 * update is refused (nothing changes); with one, the charge ends as the partner says and the answer's
 * `resolution` names the partner's word and whether it agreed.
 */
export const resolveChargeUpdate = defineUpdate<ChargeResolutionResult, [ChargeResolutionRequest]>('resolveCharge');

/**
 * From the worker, on every payment workflow with the attention desk: an activity keeps failing
 * (NeedsAttention, its last failure as the reason), or it recovered (cleared). See
 * src/runtime/activity-trouble.ts.
 */
export const activityTroubleSignal = defineSignal<[ActivityTrouble]>('activityTrouble');
export const activityRecoveredSignal = defineSignal<[{ activity: string }]>('activityRecovered');

/**
 * Hosted checkout (src/web/checkout/): the customer's decision on the page, sent once the web route
 * has marked the single-use token used. A charge waiting on its checkout takes the first valid one.
 */
export const checkoutDecisionSignal = defineSignal<[CheckoutDecisionSignal]>('checkoutDecision');

/**
 * A live card charge (issue 45, src/domain/live-card.ts): the hosted page claimed the charge and sent
 * the card to the aggregator. A wake-up only: the workflow reads the submission from the database.
 */
export const cardSubmittedSignal = defineSignal(CARD_SUBMITTED_SIGNAL);

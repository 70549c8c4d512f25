import { patched } from '@temporalio/workflow';
import { LIVE_PARTNER_RAIL_PATCH, PARTNER_WORD_PATCH } from '../src/domain/live-rail';
import { followLiveChargeToTheWord, followLiveChargeUntilTheWord } from './charge-rail-live';
import { followLiveCardCharge } from './charge-card-live';
import { LIVE_CARD_CHARGE_PATCH } from '../src/domain/live-card';
import { followPartner } from './partner-follow';
import type { PartnerWatch } from './partner-answer';
import { CHARGE_WAIT_CONTINUES_PATCH } from '../src/domain/partner-wait';
import { RAIL_FAILOVER_PATCH } from '../src/domain/rail-failover';
import { attemptLog } from './partner-failover';
import { NO_LIVE_SIMULATOR_PATCH } from '../src/domain/charge-start';
import type { ChargeState } from '../src/domain/charge-state';
import type { ChargeStatus } from '../src/domain/charge-status';
import type { FailureClass } from '../src/domain/failure-classes';
import { RAIL_TIMERS_FROM_CREATE_PATCH, railDue, railPlan, UNRESOLVED_FAILURE_CLASS } from '../src/domain/sandbox-outcome';
import { applyTransition } from './charge-activities';
import type { AttentionDesk } from './charge-attention';
import { publishChargeState } from './charge-search-attributes';
import type { PatchCheck } from './charge-patches';
import { chargeTimers, type ChargeTimers } from './charge-timers';
import type { ResolutionDesk } from './charge-resolution';
import { HOSTED_CHECKOUT_PATCH } from '../src/domain/hosted-checkout';
import { awaitCheckout } from './charge-checkout';
import { INDETERMINATE_ATTENTION_PATCH, INDETERMINATE_STEP, indeterminateReason, PARTNER_DECIDES_LIVE_CHARGE_PATCH } from '../src/domain/charge-resolution';

/**
 * A written charge, from its acceptance to its terminal state (both start paths of chargeWorkflow):
 * a failure outcome fails at once; otherwise wait for the rail as a durable timer (the sandbox
 * approves after three seconds, the `pending` outcome times out after ten minutes, an
 * `indeterminate` one stays unresolved until expiry); whatever has not happened by `expires_at`
 * expires; a live charge fails at once with `partner_unavailable` (no live rail exists, and the
 * simulator never credits live money). The terminal transition goes through the attention desk. `onChange` sees every record
 * written. The first command is issued before this yields (same workflow task as the caller's).
 * In the sandbox every timer races the `advance` signal (`POST /v1/sandbox/advance/{id}`,
 * workflows/charge-timers.ts): whichever comes first, the charge goes on as if the timer had fired.
 * A sandbox card or bank charge on hosted checkout (`checkout`) waits for the customer's decision
 * against its expiry instead (workflows/charge-checkout.ts). `isPatched` answers the rail's patches
 * as the run decided them in its first activation (workflows/charge-patches.ts; `patched()` for runs
 * recorded before).
 */
export function followRail(
  charge: ChargeState,
  sandboxOutcome: string | null,
  desk: AttentionDesk,
  onChange: (charge: ChargeState) => void,
  resolutions?: ResolutionDesk,
  checkout = false,
  isPatched: PatchCheck = patched,
  continues?: PartnerWatch['continues'],
): Promise<ChargeState> {
  const plan = railPlan(charge.environment, sandboxOutcome);
  const finish = async (to: ChargeStatus, failureClass: FailureClass | null): Promise<ChargeState> => {
    const request = { chargeId: charge.id, to, failureClass, at: new Date().toISOString() };
    const after = await desk.persist(failureClass ? `charge -> ${to} (${failureClass})` : `charge -> ${to}`, () => applyTransition(request));
    onChange(after);
    publishChargeState(after);
    return after;
  };
  const timers = chargeTimers(charge.id, charge.environment, isPatched);
  const untilExpiry = Math.max(0, Date.parse(charge.expiresAt) - Date.now());
  const railOrExpiry = async (afterMs: number, summary: string, to: ChargeStatus, failureClass: FailureClass | null) => {
    // Issue 34: the delay counts from the charge's creation (a run that starts late does not wait it
    // again). Runs from before, and a state without its creation, count from now as they did.
    if (charge.createdAt !== undefined && isPatched(RAIL_TIMERS_FROM_CREATE_PATCH)) {
      const due = railDue(afterMs, charge.createdAt, charge.expiresAt, Date.now());
      if (due.expiresFirst) {
        await timers.wait(untilExpiry, 'expires_at reached before the rail answered');
        return finish('expired', null);
      }
      await timers.wait(due.inMs, summary);
      return finish(to, failureClass);
    }
    if (afterMs >= untilExpiry) {
      await timers.wait(untilExpiry, 'expires_at reached before the rail answered');
      return finish('expired', null);
    }
    await timers.wait(afterMs, summary);
    return finish(to, failureClass);
  };

  // Live: the partner rail (issue 20). Runs from before it replay as they ran: a live charge then
  // failed at once (no live rail existed) instead of succeeding through the simulator.
  if (charge.environment === 'live' && isPatched(LIVE_PARTNER_RAIL_PATCH)) {
    // Issue 29: only the partner's word ends it. Runs from before follow the rail as they did.
    if (isPatched(PARTNER_WORD_PATCH)) {
      // Issue 43: only the partner's final answer ends it (no operator's word, no expiry). Runs from before replay as they ran.
      if (isPatched(PARTNER_DECIDES_LIVE_CHARGE_PATCH)) {
        // Issue 45: a live card charge's card comes from its hosted page, never through this run.
        if (charge.channel === 'card' && isPatched(LIVE_CARD_CHARGE_PATCH)) {
          return followLiveCardCharge(charge, desk, finish, resolutions, isPatched(CHARGE_WAIT_CONTINUES_PATCH) ? continues : undefined);
        }
        // Issue 43: the wait continues as new when its history is long. Runs from before replay as they ran.
        // Issue 46: the first submission may fail over to the next partner of the charge's route. Runs from before replay as they ran.
        return followLiveChargeUntilTheWord(charge, desk, finish, resolutions, isPatched(CHARGE_WAIT_CONTINUES_PATCH) ? continues : undefined, undefined, isPatched(RAIL_FAILOVER_PATCH) ? attemptLog(charge.id) : undefined);
      }
      return followLiveChargeToTheWord(charge, desk, finish, resolutions);
    }
    return followLiveCharge(charge, desk, finish, resolutions);
  }
  if (charge.environment === 'live' && isPatched(NO_LIVE_SIMULATOR_PATCH)) return finish('failed', 'partner_unavailable');

  // Hosted checkout (sandbox card/bank without sandbox_outcome): the customer decides on the page.
  if (checkout && isPatched(HOSTED_CHECKOUT_PATCH)) return awaitCheckout(charge, untilExpiry, timers, finish);

  switch (plan.kind) {
    case 'fail':
      return finish('failed', plan.failureClass);
    case 'succeed':
      return railOrExpiry(plan.afterMs, 'sandbox completion: the customer approves', 'succeeded', null);
    case 'time_out':
      return railOrExpiry(plan.afterMs, 'sandbox pending outcome: ten minutes, then timeout', 'failed', 'timeout');
    case 'unresolved':
      // The customer's money may have moved: flag it now and let an operator resolve it
      // (workflows/charge-resolution.ts); unresolved by expires_at, it expires as before.
      if (resolutions && isPatched(INDETERMINATE_ATTENTION_PATCH)) return awaitResolution(charge, untilExpiry, desk, resolutions, timers, finish);
      return timers.wait(untilExpiry, 'indeterminate: unresolved until expires_at').then(() => finish('expired', UNRESOLVED_FAILURE_CLASS));
  }
}

/**
 * Runs started before PARTNER_WORD_PATCH only (kept so their histories replay; new runs take
 * workflows/charge-rail-live.ts). A live charge on the partner rail (workflows/partner-follow.ts): request-to-pay, then the partner's
 * callback or a status poll, until a final answer or `expires_at`. Unanswered for ten minutes, the
 * charge is NeedsAttention with the reason, and an operator may resolve it (`charges resolve`) as an
 * indeterminate one; unanswered at expiry, it expires. `sandbox_outcome` plays no part here.
 */
async function followLiveCharge(
  charge: ChargeState,
  desk: AttentionDesk,
  finish: (to: ChargeStatus, failureClass: FailureClass | null) => Promise<ChargeState>,
  resolutions?: ResolutionDesk,
): Promise<ChargeState> {
  resolutions?.open();
  const outcome = await followPartner({
    paymentId: charge.id,
    product: 'collection',
    deadlineMs: Date.parse(charge.expiresAt),
    attention: (reason) => desk.flag('partner rail', reason),
    stopEarly: () => resolutions?.requested() !== undefined,
  });
  resolutions?.close();
  const resolved = resolutions?.requested();
  if (resolved) return finish(resolved.to, resolved.failureClass);
  switch (outcome.kind) {
    case 'succeeded':
      return finish('succeeded', null);
    case 'failed':
      return finish('failed', outcome.failureClass);
    default:
      return finish('expired', UNRESOLVED_FAILURE_CLASS);
  }
}

async function awaitResolution(
  charge: ChargeState,
  untilExpiry: number,
  desk: AttentionDesk,
  resolutions: ResolutionDesk,
  timers: ChargeTimers,
  finish: (to: ChargeStatus, failureClass: FailureClass | null) => Promise<ChargeState>,
): Promise<ChargeState> {
  desk.flag(INDETERMINATE_STEP, indeterminateReason(charge.id, charge.expiresAt));
  resolutions.open();
  await timers.wait(untilExpiry, 'indeterminate: unresolved until an operator resolves it or expires_at', () => resolutions.requested() !== undefined);
  resolutions.close();
  // A resolution that arrived in the same workflow task as the expiry is still the resolution.
  const resolved = resolutions.requested();
  return resolved ? finish(resolved.to, resolved.failureClass) : finish('expired', UNRESOLVED_FAILURE_CLASS);
}

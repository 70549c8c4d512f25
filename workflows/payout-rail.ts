import { patched } from '@temporalio/workflow';
import type { FailureClass } from '../src/domain/failure-classes';
import { LIVE_PARTNER_RAIL_PATCH, LIVE_PAYOUT_DEADLINE_MS } from '../src/domain/live-rail';
import { followPartner } from './partner-follow';
import type { PayoutStatus } from '../src/domain/payout';
import type { PayoutState } from '../src/domain/payout-state';
import { COMPLETION_DELAY_MS, PENDING_TIMEOUT_MS, railPlan } from '../src/domain/sandbox-outcome';
import type { TimerDesk } from './payout-timers';

/** Sandbox `indeterminate`: the rail never answers; the payout stays pending this long (NeedsAttention), then fails with `timeout`. */
export const PAYOUT_UNRESOLVED_MS = 15 * 60_000;
/** Sandbox `reverse`: the payout succeeds, then the rail returns it about this long after. */
export const SANDBOX_REVERSAL_DELAY_MS = 3_000;

/** How the payout workflow writes a transition and what it waits for (workflows/payout.ts). */
export interface RailHooks {
  timers: TimerDesk;
  finish(to: PayoutStatus, failureClass?: FailureClass): Promise<PayoutState>;
  /** Marks the payout NeedsAttention (true while it is unresolved past its expected time). */
  attention(value: boolean): void;
  describe(details: string): void;
}

/**
 * A pending payout on the rail, to `succeeded` or `failed`. Sandbox (`metadata.sandbox_outcome`,
 * INTERFACE.md): a failure class fails at once with it; `pending` fails with `timeout` after ten
 * minutes; `indeterminate` stays unresolved (NeedsAttention) for PAYOUT_UNRESOLVED_MS, then fails with
 * `timeout` (the reservation is released); anything else (`held_for_review` once approved, `reverse`,
 * none) succeeds after about three seconds. Live: no live rail exists, so a live payout (the API
 * refuses them with 503 `live_unavailable`) fails at once with `partner_unavailable`; the simulator
 * never pays out live money. Every timer races the sandbox `advance` signal.
 */
export async function followPayoutRail(payout: PayoutState, sandboxOutcome: string | null, hooks: RailHooks): Promise<PayoutState> {
  if (payout.environment === 'live') {
    // Runs from before the partner rail (issue 20) replay as they ran: failed at once.
    if (patched(LIVE_PARTNER_RAIL_PATCH)) return followLivePayout(payout, hooks);
    return hooks.finish('failed', 'partner_unavailable');
  }
  const plan = railPlan(payout.environment, sandboxOutcome);
  switch (plan.kind) {
    case 'fail':
      return hooks.finish('failed', plan.failureClass);
    case 'succeed':
      hooks.describe('on the rail: the sandbox pays the recipient in about 3 s');
      await hooks.timers.wait(COMPLETION_DELAY_MS, 'sandbox completion: the rail pays the recipient');
      return hooks.finish('succeeded');
    case 'time_out':
      hooks.describe('on the rail: sandbox `pending` outcome, fails with timeout after ten minutes');
      await hooks.timers.wait(PENDING_TIMEOUT_MS, 'sandbox pending outcome: ten minutes, then timeout');
      return hooks.finish('failed', 'timeout');
    case 'unresolved': {
      hooks.attention(true);
      hooks.describe('on the rail: sandbox `indeterminate`, the rail has not answered; fails with timeout after 15 minutes');
      await hooks.timers.wait(PAYOUT_UNRESOLVED_MS, 'indeterminate: unresolved for 15 minutes, then timeout');
      return hooks.finish('failed', 'timeout');
    }
  }
}

/**
 * A live payout on the partner rail: transfer, then the partner's callback or a status poll until a
 * final answer. Unanswered for ten minutes: NeedsAttention. Unanswered for LIVE_PAYOUT_DEADLINE_MS
 * (24 h): failed with `timeout`, the reservation released (the operator was asked for a day).
 */
async function followLivePayout(payout: PayoutState, hooks: RailHooks): Promise<PayoutState> {
  hooks.describe('on the partner rail: transfer sent; waiting for the partner (callback or status poll)');
  const outcome = await followPartner({
    paymentId: payout.id,
    product: 'disbursement',
    deadlineMs: Date.now() + LIVE_PAYOUT_DEADLINE_MS,
    attention: (reason) => {
      hooks.attention(true);
      hooks.describe(`on the partner rail: ${reason}`);
    },
  });
  if (outcome.kind === 'succeeded') return hooks.finish('succeeded');
  if (outcome.kind === 'failed') return hooks.finish('failed', outcome.failureClass);
  return hooks.finish('failed', 'timeout');
}

export { COMPLETION_DELAY_MS, PENDING_TIMEOUT_MS };

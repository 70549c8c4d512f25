import { RAIL_FAILOVER_PATCH } from '../src/domain/rail-failover';
import { patched } from '@temporalio/workflow';
import type { FailureClass } from '../src/domain/failure-classes';
import { LIVE_PARTNER_RAIL_PATCH, LIVE_PAYOUT_DEADLINE_MS, PARTNER_WORD_PATCH } from '../src/domain/live-rail';
import { followPartner } from './partner-follow';
import { awaitPartnerWord, type PartnerAnswer } from './partner-answer';
import { followPartnerLongWait, type LongWait } from './partner-long-wait';
import { PARTNER_WAIT_CONTINUES_PATCH } from '../src/domain/partner-wait';
import { startReviewFromWorkflow } from './payment-review-start';
import type { PayoutStatus } from '../src/domain/payout';
import type { PayoutState } from '../src/domain/payout-state';
import { COMPLETION_DELAY_MS, PENDING_TIMEOUT_MS, railPlan } from '../src/domain/sandbox-outcome';
import type { TimerDesk } from './payout-timers';
import type { PatchCheck } from './patches-at-start';

/** Sandbox `indeterminate`, runs from before PARTNER_WORD_PATCH: pending this long (NeedsAttention), then failed with `timeout`. */
export const PAYOUT_UNRESOLVED_MS = 15 * 60_000;
/**
 * Sandbox `indeterminate` (issue 29, as live): the simulated partner gives no answer for this long,
 * the reservation kept and the payout NeedsAttention all along; then its late answer comes: paid
 * (SUCCESSFUL). The sandbox `advance` plays that late answer at once.
 */
export const SANDBOX_LATE_ANSWER_MS = 24 * 3600_000;
/** Sandbox `reverse`: the payout succeeds, then the rail returns it about this long after. */
export const SANDBOX_REVERSAL_DELAY_MS = 3_000;

/** How the payout workflow writes a transition and what it waits for (workflows/payout.ts). */
export interface RailHooks {
  timers: TimerDesk;
  finish(to: PayoutStatus, failureClass?: FailureClass): Promise<PayoutState>;
  /** Marks the payout NeedsAttention (true while it is unresolved past its expected time). */
  attention(value: boolean): void;
  describe(details: string): void;
  /** The run's answers decided in its first activation (workflows/patches-at-start.ts); `patched()` for runs recorded before. */
  isPatched?: PatchCheck;
  /** How the live partner wait continues as new (PARTNER_WAIT_CONTINUES_PATCH), and what a continued run resumes. */
  longWait?: LongWait;
}

/**
 * A pending payout on the rail, to `succeeded` or `failed`. Sandbox (`metadata.sandbox_outcome`,
 * INTERFACE.md): a failure class fails at once with it; `pending` fails with `timeout` after ten
 * minutes (a partner's FAILED); `indeterminate` models the live promise: no answer, so the payout
 * stays pending, reserved and NeedsAttention until the simulated partner's late answer (paid, after
 * SANDBOX_LATE_ANSWER_MS or at `advance`); anything else (`held_for_review` once approved, `reverse`,
 * none) succeeds after about three seconds. Live: the partner rail (followLivePayoutToTheWord); runs
 * from before it failed at once with `partner_unavailable`. Every sandbox timer races the `advance` signal.
 */
export async function followPayoutRail(payout: PayoutState, sandboxOutcome: string | null, hooks: RailHooks): Promise<PayoutState> {
  const isPatched = hooks.isPatched ?? patched;
  if (payout.environment === 'live') {
    // Runs from before the partner rail (issue 20) replay as they ran: failed at once.
    if (isPatched(LIVE_PARTNER_RAIL_PATCH)) return isPatched(PARTNER_WORD_PATCH) ? followLivePayoutToTheWord(payout, hooks) : followLivePayout(payout, hooks);
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
      if (isPatched(PARTNER_WORD_PATCH)) {
        // As live: no answer is not a failure. The reservation stays, the payout stays NeedsAttention,
        // until the simulated partner's late SUCCESSFUL (or `advance`, which plays it now).
        hooks.describe(
          'on the rail: sandbox `indeterminate`, the partner has not answered: the money stays reserved and nothing is failed without its word; ' +
            'its late answer (paid) comes after 24 h, or now with POST /v1/sandbox/advance',
        );
        await hooks.timers.wait(SANDBOX_LATE_ANSWER_MS, "indeterminate: the partner's late answer (paid)");
        return hooks.finish('succeeded');
      }
      hooks.describe('on the rail: sandbox `indeterminate`, the rail has not answered; fails with timeout after 15 minutes');
      await hooks.timers.wait(PAYOUT_UNRESOLVED_MS, 'indeterminate: unresolved for 15 minutes, then timeout');
      return hooks.finish('failed', 'timeout');
    }
  }
}

/**
 * A live payout on the partner rail (issue 29): the transfer (sent for LIVE_PAYOUT_DEADLINE_MS at
 * most), then the partner's callback or a status poll until its word: SUCCESSFUL, FAILED, or
 * `unknown` confirmed once no submission can be under way. Without it the payout stays pending, its
 * reservation kept, NeedsAttention with the reason (after ten minutes, and again after a day),
 * however long it takes: nothing is failed or released on a deadline. Since PARTNER_WAIT_CONTINUES_PATCH
 * (issue 43) the wait continues as new when its history is long (workflows/partner-long-wait.ts), and
 * `unknown` after the partner acknowledged the transfer is not final (flagged, asked on).
 */
async function followLivePayoutToTheWord(payout: PayoutState, hooks: RailHooks): Promise<PayoutState> {
  const isPatched = hooks.isPatched ?? patched;
  // Issue 43: the wait continues as new when its history is long; `unknown` after an acknowledgement is not final.
  const long = hooks.longWait && isPatched(PARTNER_WAIT_CONTINUES_PATCH) ? hooks.longWait : undefined;
  const resume = long?.resume;
  hooks.describe(
    resume
      ? `on the partner rail: transfer sent at ${new Date(resume.startedMs).toISOString()}; waiting for the partner (callback or status poll; run ${resume.runs + 1} of this wait, continued as new to keep its history short)`
      : 'on the partner rail: transfer sent; waiting for the partner (callback or status poll)',
  );
  const watch = {
    paymentId: payout.id,
    product: 'disbursement' as const,
    // A continued run keeps the first run's submit window.
    submitUntilMs: resume?.submitUntilMs ?? Date.now() + LIVE_PAYOUT_DEADLINE_MS,
    attention: (reason: string) => {
      hooks.attention(true);
      hooks.describe(`on the partner rail: ${reason}`);
    },
    // Issue 46: the first transfer may fail over to the next partner of the payout's route. Runs from before replay as they ran.
    ...(isPatched(RAIL_FAILOVER_PATCH) ? { failsOver: (note: string) => hooks.describe(`on the partner rail: ${note}`) } : {}),
  };
  const answer: PartnerAnswer = long ? await followPartnerLongWait(watch, long) : await awaitPartnerWord(watch);
  if (answer.kind === 'succeeded') {
    const after = await hooks.finish('succeeded');
    // The money moved; how much differs from ours: a payment review keeps it in front of an operator.
    if (answer.mismatch) await startReviewFromWorkflow({ paymentId: payout.id, product: 'disbursement', merchantId: payout.merchantId, environment: payout.environment, source: 'late_watch', reason: `the partner's SUCCESSFUL differs from the payout: ${answer.mismatch}` });
    return after;
  }
  if (answer.kind === 'failed') return hooks.finish('failed', answer.failureClass);
  // No deadline and no stopEarly: the wait ends only with the partner's word.
  throw new Error(`payout ${payout.id}: the partner wait ended without the partner's word (${answer.kind})`);
}

/**
 * Runs started before PARTNER_WORD_PATCH only (their histories replay as they ran). A live payout on
 * the partner rail: transfer, then the partner's callback or a status poll until a final answer.
 * Unanswered for ten minutes: NeedsAttention. Unanswered for LIVE_PAYOUT_DEADLINE_MS (24 h): failed
 * with `timeout`, the reservation released.
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

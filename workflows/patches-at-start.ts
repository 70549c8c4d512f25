import { patched } from '@temporalio/workflow';
import { BOUNDED_DB_RETRIES_PATCH } from '../src/domain/charge-attention';
import { LIVE_PARTNER_RAIL_PATCH, LIVE_REFUND_RAIL_PATCH, PARTNER_WORD_PATCH } from '../src/domain/live-rail';
import { PARTNER_WAIT_CONTINUES_PATCH } from '../src/domain/partner-wait';
import { REVIEW_DECISION_REFUSED_PATCH } from '../src/domain/payout-review';
import { HANDLERS_FINISH_BEFORE_CLOSE_PATCH } from './handlers-finished';
import { RAIL_FAILOVER_PATCH } from '../src/domain/rail-failover';
import { FAILED_BATCH_WAIT_CONTINUES_PATCH, SETTLEMENT_WAIT_FOLLOWS_CURRENT_BUILD_PATCH } from './settlement-retry';

/**
 * `patched()` id (issue 32 follow-up, the charge's replay flake in payouts and settlement batches): a
 * payout, refund or settlement run decides, in its first activation (before its first local activity), the
 * patches it may meet right after a local activity, instead of where each branch is met.
 *
 * Why (as workflows/charge-patches.ts): a query answered while a local activity's result waits for the
 * workflow makes sdk-core complete the workflow task with the activity's marker and force a new task,
 * where the workflow takes the result. A replay resolves the activity in the first task already, so a
 * `patched()` asked right after it is asked before the second task's markers are known: it answers
 * false, and the replay fails with TMPRL1100 "Non-deprecated patch marker encountered". Found by
 * test/workflows/payout-query-during-begin.test.ts (live payout: live-partner-rail; sandbox
 * `indeterminate`: partner-word-only) and settlement-query-during-sweep.test.ts (live batch:
 * live-partner-rail; nothing swept: refund-settlement-handlers-finish) and refund-query-during-begin.test.ts
 * (a refund already final at begin: refund-settlement-handlers-finish). Runs recorded before this patch
 * decide as they did (lazily).
 */
export const PATCHES_AT_START_PATCH = 'patches-at-start';

/** `patched()`, or the answer a run gave in its first activation. */
export type PatchCheck = (patchId: string) => boolean;

/** What a payout run of each environment may ask right after a local activity (beginPayout, a give-up). */
export const PAYOUT_PATCHES_AT_START: Readonly<Record<string, readonly string[]>> = {
  sandbox: [BOUNDED_DB_RETRIES_PATCH, PARTNER_WORD_PATCH, REVIEW_DECISION_REFUSED_PATCH],
  live: [BOUNDED_DB_RETRIES_PATCH, LIVE_PARTNER_RAIL_PATCH, PARTNER_WORD_PATCH, PARTNER_WAIT_CONTINUES_PATCH, REVIEW_DECISION_REFUSED_PATCH, RAIL_FAILOVER_PATCH],
};

/** What a settlement batch's run may ask right after a local activity (the sweep, a transition, a give-up). */
export const SETTLEMENT_PATCHES_AT_START: Readonly<Record<string, readonly string[]>> = {
  sandbox: [BOUNDED_DB_RETRIES_PATCH, HANDLERS_FINISH_BEFORE_CLOSE_PATCH, SETTLEMENT_WAIT_FOLLOWS_CURRENT_BUILD_PATCH, FAILED_BATCH_WAIT_CONTINUES_PATCH],
  live: [BOUNDED_DB_RETRIES_PATCH, HANDLERS_FINISH_BEFORE_CLOSE_PATCH, SETTLEMENT_WAIT_FOLLOWS_CURRENT_BUILD_PATCH, LIVE_PARTNER_RAIL_PATCH, PARTNER_WORD_PATCH, PARTNER_WAIT_CONTINUES_PATCH, FAILED_BATCH_WAIT_CONTINUES_PATCH, RAIL_FAILOVER_PATCH],
};

/** What a refund's run may ask right after a local activity (beginRefund finding it final, a transition, a give-up). */
export const REFUND_PATCHES_AT_START: Readonly<Record<string, readonly string[]>> = {
  sandbox: [BOUNDED_DB_RETRIES_PATCH, HANDLERS_FINISH_BEFORE_CLOSE_PATCH],
  live: [BOUNDED_DB_RETRIES_PATCH, HANDLERS_FINISH_BEFORE_CLOSE_PATCH, LIVE_REFUND_RAIL_PATCH],
};

/**
 * Call in the run's first activation, before any local activity, with the list of the run's
 * environment (from its input or start search attributes: in the history, so replay sees the same).
 * A new run records the markers of those patches now and answers from them later; an id not decided
 * here, or a run recorded before this patch, asks `patched()` where it is met.
 */
export function patchesAtStart(lists: Readonly<Record<string, readonly string[]>>, environment: string | undefined): PatchCheck {
  const ids = environment === undefined ? undefined : lists[environment];
  if (!ids || !patched(PATCHES_AT_START_PATCH)) return patched;
  const decided = new Map(ids.map((id) => [id, patched(id)] as const));
  return (id) => decided.get(id) ?? patched(id);
}

/**
 * `patched()` id (issue 48, the cost of a payment): a new payout run records ONE marker that stands for
 * `patches-at-start` and every patch of PAYOUT_PATCHES_AT_START (both environments), instead of a
 * marker and a TemporalChangeVersion upsert each (workflows/charge-patches.ts says why). Runs recorded
 * before it have no such marker and decide patch by patch, as recorded.
 */
export const PAYOUT_PATCHES_AS_ONE_PATCH = 'payout-patches-as-one';

export const PAYOUT_PATCHES_IN_ONE: ReadonlySet<string> = new Set([PATCHES_AT_START_PATCH, ...PAYOUT_PATCHES_AT_START.sandbox, ...PAYOUT_PATCHES_AT_START.live]);

/** A payout run's patch check: one marker in a new run (PAYOUT_PATCHES_AS_ONE_PATCH), else as `patchesAtStart`. */
export function payoutPatchesAtStart(environment: string | undefined): PatchCheck {
  if (patched(PAYOUT_PATCHES_AS_ONE_PATCH)) return (id) => PAYOUT_PATCHES_IN_ONE.has(id) || patched(id);
  return patchesAtStart(PAYOUT_PATCHES_AT_START, environment);
}

import type { RailResource } from './rail-resource';

/**
 * The rail that moves live money (issue 20): `partner`, the mobile-money partner adapter
 * (src/rail/momo-adapter.ts; the fake partner when none is configured locally), or `none`. Without
 * one the live listener refuses money movement with 503 `live_unavailable`
 * (src/http/middleware/live-rail.ts), the settlement run skips live balances, and a live payment
 * never goes through the sandbox simulator (workflows/charge-rail.ts). Since issue 45 live refunds
 * go to the partner too (MoMo's refund, workflows/refund-rail.ts).
 */
export type LiveRail = 'none' | 'partner';

/** The default of code that is not told which rail the process has. */
export const LIVE_RAIL: LiveRail = 'none';

export const LIVE_UNAVAILABLE_MESSAGE =
  'Live payments are not available yet: no live payment rail is connected, so no money can move. Nothing was created. ' +
  'Use the sandbox (svc_test_ keys) meanwhile; reads, events, balances and webhook endpoints work on live.';

/**
 * `patched()` id (issue 45): a live refund goes to the partner rail (workflows/refund-rail.ts); before,
 * a live refund run (which the API never started: it answered 503) failed at once with `partner_unavailable`.
 */
export const LIVE_REFUND_RAIL_PATCH = 'live-refund-rail';

/** `patched()` id: a live charge or payout goes to the partner rail (before: it failed at once with `partner_unavailable`). */
export const LIVE_PARTNER_RAIL_PATCH = 'live-partner-rail';

/** The signal the callback route sends a payment's workflow when the partner calls back: a wake-up, confirmed by a status query. */
export const PARTNER_CALLBACK_SIGNAL = 'partnerCallback';

/** Status polls while the partner has not answered: after 2 s, 3 s, 5 s, 10 s, 30 s, then every 60 s (a callback checks at once). */
export const PARTNER_POLL_SCHEDULE_MS = [2_000, 3_000, 5_000, 10_000, 30_000, 60_000];

/** A live payment still pending at the partner this long is marked NeedsAttention with the reason (the ten-minute pending rule). */
export const PARTNER_NO_ANSWER_ATTENTION_MS = 10 * 60_000;

/**
 * A live payout or settlement is submitted (and resubmitted after `unknown`) for this long at most.
 * Runs from before PARTNER_WORD_PATCH failed it with `timeout` at this deadline; since, it stays
 * open, reserved and NeedsAttention, and keeps asking the partner: only the partner ends it.
 */
export const LIVE_PAYOUT_DEADLINE_MS = 24 * 3600_000;

/**
 * `patched()` id (issue 29): only the partner ends a live payment that reached it. A payout or a
 * settlement without a final answer stays open (reserved, NeedsAttention) however long it takes; a
 * charge asks once more at its expiry and hands a still-pending request-to-pay to a payment review
 * that watches for a late answer; no submit goes out after the payment's deadline; a refused retry
 * and a `no_rail` on a payment that already has a reference ask the partner first; the partner's
 * answer wins over an operator's resolution that raced it. Runs from before it replay as they ran.
 */
export const PARTNER_WORD_PATCH = 'partner-word-only';

/**
 * One rail call's activity budget (startToCloseTimeout). The adapter's worst case is four requests
 * (a token, the call, and after a 401 a new token and the call again), each bounded by
 * PARTNER_TIMEOUT_MS: src/rail/partner-config.ts refuses a timeout that does not fit (so a slow
 * partner is never cut off mid-answer and asked again). Runs from before PARTNER_WORD_PATCH take it
 * too (workflows/partner-follow.ts): activity timeouts are not checked on replay.
 */
export const RAIL_CALL_TIMEOUT_MS = 60_000;

/**
 * Status polls while the partner has not answered (issue 29 shape): the first schedule for an hour,
 * then every 5 minutes for a day, then every 30 minutes, however long it takes (a callback checks at
 * once). Bounded history: about 60 + 276 + 48 a day polls.
 */
export const PARTNER_POLL_BACKOFF: ReadonlyArray<{ afterMs: number; everyMs: number }> = [
  { afterMs: 24 * 3600_000, everyMs: 30 * 60_000 },
  { afterMs: 3600_000, everyMs: 5 * 60_000 },
];

/** The next status poll's delay, `poll` polls and `sinceMs` after the submission. */
export function partnerPollDelayMs(poll: number, sinceMs: number): number {
  for (const step of PARTNER_POLL_BACKOFF) if (sinceMs >= step.afterMs) return step.everyMs;
  return PARTNER_POLL_SCHEDULE_MS[Math.min(poll, PARTNER_POLL_SCHEDULE_MS.length - 1)];
}

/** What the rail activities are asked: which payment, on which partner resource (a refund: `refund`, issue 45). */
export interface RailStepRequest {
  paymentId: string;
  product: RailResource;
  /**
   * A submission after an earlier one of this payment (a resubmit after `unknown`): a refusal then
   * is checked against the partner's status before it is taken as final (activities/rail.ts).
   */
  resubmit?: boolean;
  /**
   * Issue 46: the payment may fail over (its first submission, RAIL_FAILOVER_PATCH): a submission
   * that never reached the partner answers `not_reached` at once instead of being retried.
   */
  failover?: boolean;
}

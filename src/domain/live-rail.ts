/**
 * The rail that moves live money (issue 20): `partner`, the mobile-money partner adapter
 * (src/rail/momo-adapter.ts; the fake partner when none is configured locally), or `none`. Without
 * one the live listener refuses money movement with 503 `live_unavailable`
 * (src/http/middleware/live-rail.ts), the settlement run skips live balances, and a live payment
 * never goes through the sandbox simulator (workflows/charge-rail.ts). Live refunds are not on the
 * partner rail yet: they stay 503 `live_unavailable` whatever the rail.
 */
export type LiveRail = 'none' | 'partner';

/** The default of code that is not told which rail the process has. */
export const LIVE_RAIL: LiveRail = 'none';

export const LIVE_REFUNDS_UNAVAILABLE_MESSAGE =
  'Live refunds are not available yet: the live partner rail takes charges and payouts only. Nothing was created. Refunds work in the sandbox.';

export const LIVE_UNAVAILABLE_MESSAGE =
  'Live payments are not available yet: no live payment rail is connected, so no money can move. Nothing was created. ' +
  'Use the sandbox (svc_test_ keys) meanwhile; reads, events, balances and webhook endpoints work on live.';

/** `patched()` id: a live charge or payout goes to the partner rail (before: it failed at once with `partner_unavailable`). */
export const LIVE_PARTNER_RAIL_PATCH = 'live-partner-rail';

/** The signal the callback route sends a payment's workflow when the partner calls back: a wake-up, confirmed by a status query. */
export const PARTNER_CALLBACK_SIGNAL = 'partnerCallback';

/** Status polls while the partner has not answered: after 2 s, 3 s, 5 s, 10 s, 30 s, then every 60 s (a callback checks at once). */
export const PARTNER_POLL_SCHEDULE_MS = [2_000, 3_000, 5_000, 10_000, 30_000, 60_000];

/** A live payment still pending at the partner this long is marked NeedsAttention with the reason (the ten-minute pending rule). */
export const PARTNER_NO_ANSWER_ATTENTION_MS = 10 * 60_000;

/** A live payout the partner never answers is polled this long, then failed with `timeout` (its reservation released). */
export const LIVE_PAYOUT_DEADLINE_MS = 24 * 3600_000;

/** What the rail activities are asked: which payment, on which product. */
export interface RailStepRequest {
  paymentId: string;
  product: 'collection' | 'disbursement';
}

import type { Rng } from '../chaos/random';
import { DISPUTE_REASONS } from '../domain/dispute';
import { FAILURE_CLASSES } from '../domain/failure-classes';
import { SETTLE_LATE_ACTIONS } from '../domain/payment-review';
import { REFUND_REASONS } from '../domain/refund';
import type { StepKind } from './types';

/* What the planner draws besides the step's kind and references: plain values only (src/simulation/plan.ts). */

export type Params = Record<string, string | number | boolean | null>;

/** How often each kind is picked (a weight, not a probability). */
export const STEP_WEIGHTS: Readonly<Record<StepKind, number>> = {
  create_merchant: 1,
  create_endpoint: 1,
  rotate_endpoint_secret: 1,
  disable_endpoint: 1,
  replay_delivery: 2,
  sandbox_charge: 14,
  live_charge: 8,
  repeat_request: 4,
  payout: 6,
  review_payout: 3,
  refund: 5,
  dispute: 3,
  dispute_evidence: 2,
  settlement_run: 2,
  operator_action: 4,
  partner_behaviour: 2,
  partner_statement: 1,
  receiver_failure: 2,
  restart_worker: 1,
  cut_db_connections: 1,
  fail_activity: 2,
  time_jump: 10,
  // Never drawn here (weight 0 keeps every plan drawn before it as it was): inserted from a stream of
  // its own (plan.ts MONEY_PATHS).
  settlement_account_change: 0,
  terminate_run: 0,
  restart_settlement: 0,
  reset_run: 0,
  late_return_refused: 0,
  settlement_retry_late: 0,
  unanswered_payout_jump: 0,
  partner_pays_late: 0,
  burst: 0,
  partner_down: 0,
  partner_declining: 0,
};

/**
 * Every channel live (issue 45): steps of the aggregator's channels and of live refunds, inserted
 * between the drawn steps from a stream of their own (plan.ts liveChannel), as the money paths are:
 * a plan is the same as before up to its first insertion (then its later references may differ: the
 * counts of charges, payouts and refunds they draw from have grown). They are existing kinds
 * (`live_charge`, `payout`, `refund`) with what the aggregator plays in their parameters. How often
 * (per step), and which.
 */
export const LIVE_CHANNEL_CHANCE = 0.1;
export const LIVE_CHANNELS = {
  /** A live card charge, paid through the hosted page's `sendLiveCard` with a card whose ending picks the aggregator's behaviour. */
  card_charge: 3,
  /** A live bank charge: a bank transfer at the aggregator, paid by the customer (the fake, by itself) or never (`0004`), or another ending. */
  bank_charge: 3,
  /** A live mobile-money charge whose payer ends `01NN`: its refunds at the MoMo partner play `00NN`. */
  momo_charge_refund_payer: 1,
  /** A live payout to a bank account: a transfer at the aggregator. */
  bank_payout: 2,
  /** A refund, full or part, of one of the plan's live charges (any channel). */
  live_refund: 4,
} as const;

/** A card's last four digits and what they play at the fake aggregator (docs/aggregator.md): `plain` is an ending the table does not name. */
export const CARD_ENDINGS: Readonly<Record<string, number>> = {
  plain: 6,
  '0020': 3, // an OTP challenge
  '0021': 2, // 3-D Secure
  '0022': 1, // issuer decline
  '0023': 1, // expired card, refused at once
  '0002': 1, // invalid card, refused at once
  '0001': 1, // refused later
  '0005': 1, // two webhooks
  '0101': 1, // its refunds: failed later
  '0102': 1, // its refunds: refused at once
  '0104': 1, // its refunds: never answered
  '0105': 1, // its refunds: two webhooks
  '0112': 1, // its refunds: late success
};

/** A bank charge's payer account ending, or a bank payout's account ending: the shared table (`01NN`: a charge's refunds play `00NN`). */
export const BANK_CHARGE_ENDINGS: Readonly<Record<string, number>> = {
  plain: 6, '0004': 2, '0001': 1, '0005': 1, '0007': 1, '0008': 1, '0013': 1, '0015': 1, '0101': 1, '0102': 1, '0104': 1, '0105': 1, '0112': 1, '0113': 1,
};
export const BANK_PAYOUT_ENDINGS: Readonly<Record<string, number>> = {
  plain: 6, '0001': 1, '0002': 1, '0003': 1, '0004': 1, '0005': 1, '0006': 1, '0012': 1, '0015': 1,
};
/** A mobile-money payer `01NN`: the request-to-pay succeeds, each refund of it plays `00NN` at the MoMo partner. */
export const REFUND_PAYER_ENDINGS: Readonly<Record<string, number>> = { '0101': 1, '0102': 1, '0104': 1, '0105': 1, '0112': 1, '0113': 1 };

/** An ending of `table` (`plain`: four digits the table does not name). */
export function ending(rng: Rng, table: Readonly<Record<string, number>>): string {
  const drawn = rng.weighted(table);
  return drawn === 'plain' ? String(rng.int(5000, 9999)) : drawn;
}

/** What a live card charge's customer does on the hosted page: `pay` (the card sent), or `abandon` (never typed: the charge expires). */
export function cardParams(rng: Rng): Params {
  return {
    card_ending: ending(rng, CARD_ENDINGS),
    card_brand: rng.pick(['visa', 'mastercard']),
    card_action: rng.chance(0.1) ? 'abandon' : 'pay',
    // The customer's part of a challenge: the right code or a wrong one (0020); authenticate or cancel (0021).
    otp_right: rng.chance(0.8),
    three_ds: rng.chance(0.75) ? 'authenticate' : 'cancel',
  };
}

/**
 * Step kinds only hand-written plans have (never drawn, nor inserted as a money path):
 * `partner_pays_late` needs a live charge the partner refused, which drawn plans make only by a
 * payer's phone ending 0001 (test/system/simulation-money-defects.test.ts, finding 2).
 */
export const HAND_WRITTEN_ONLY: readonly StepKind[] = ['partner_pays_late'];

/**
 * Issue 46's partner faults (steps/partner-faults.ts: `partner_down`, `partner_declining`, each for
 * its step's span), inserted between the drawn steps from a stream of their own, as bursts are: how
 * often (per step), which partner (MoMo mostly: the first of the mobile-money route, so its
 * payments fail over), and how many live payments are made while it is in force.
 */
export const PARTNER_FAULT_CHANCE = 0.03;
export const PARTNER_FAULT_PARTNERS = { momo: 3, aggregator: 1 } as const;
export const PARTNER_FAULT_MAX_PAYMENTS = 3;

/**
 * Bursts (issue 44, concurrency: steps/burst.ts), inserted between the drawn steps from a stream of
 * their own, as the money paths are: how often (per step), and which shapes.
 */
export const BURST_CHANCE = 0.03;
export const BURST_SHAPES = { refunds: 2, same_key_charge: 1, payouts: 2, callback_race: 1, slow_partner_race: 1 } as const;

/**
 * The steps of issue 43's money paths, inserted between the drawn steps from a stream of their own
 * (plan.ts): a plan is the same as before up to its first insertion. How often (per step), and which.
 */
export const MONEY_PATH_CHANCE = 0.04;
export const MONEY_PATHS = {
  /** `merchants set --settlement-account`: the merchant's next live settlements held. */
  settlement_account_change: 1,
  /** `payments restart` of a live payout (finding 1). */
  restart_live_payout: 2,
  /** `charges resolve` of a live charge with evidence, whatever the partner says (finding 3). */
  resolve_live_charge: 2,
  /** Terminate a live payout's run, then `payments restart` it (the runbook), in one step. */
  terminate_live_payout: 1,
  /** Terminate a live charge's run, then `payments restart` it. */
  terminate_live_charge: 1,
  /** A live settlement batch's run terminated, then `payments restart stl_…` (restart_settlement). */
  restart_live_settlement: 1,
  /** Temporal's reset of a live payment's run, updates reapplied or excluded (reset_run). */
  reset_live_run: 1,
  /** `payments settle-late --action return` while the partner plays `0013` (late_return_refused, finding 2). */
  late_return_0013: 1,
  /** A failed live batch paid late by the partner, then `settlements retry` (settlement_retry_late, finding 4). */
  retry_after_late_success: 1,
  /** A live payout the partner never answers, then a long time jump (unanswered_payout_jump). */
  unanswered_payout_jump: 1,
} as const;

/**
 * The time jump of `unanswered_payout_jump`: 100 days through a live payout the partner never answers
 * (issue 43). About 30 s of real time with one such payout since the worker keeps its workflow cache
 * in every plan (sticky-rescue.ts); without the cache 2 hours took as long (docs/simulation.md).
 */
export const UNANSWERED_JUMP_MS = 100 * 86_400_000;

/** How many webhook receivers the plan spreads its endpoints over (the engine's receivers by index). */
export const RECEIVERS = 3;

/** `metadata.sandbox_outcome` (src/domain/sandbox-outcome.ts): success mostly, every failure class, the slow ones. */
const SANDBOX_OUTCOMES: Readonly<Record<string, number>> = {
  succeed: 20,
  pending: 1,
  indeterminate: 1,
  ...Object.fromEntries(FAILURE_CLASSES.map((c) => [c, 1])),
};

/** The fake partner's behaviour by the phone's last four digits (src/rail/fake-partner/behaviours.ts). */
const LIVE_SUFFIXES: Readonly<Record<string, number>> = {
  plain: 12,
  ...Object.fromEntries(Array.from({ length: 13 }, (_, i) => [String(i + 1).padStart(4, '0'), 1])),
};

/** The activities a `fail_activity` step makes fail (activities/*.ts): every one the simulated engine runs but retention's and notifications' (no money moves through them). */
export const ACTIVITIES_TO_FAIL = [
  'beginCharge',
  'recordAcceptedCharge',
  'applyChargeTransition',
  'railSubmit',
  'railStatus',
  'beginPayout',
  'payoutTransition',
  'beginRefund',
  'applyRefundTransition',
  'beginDispute',
  'applyDisputeOutcome',
  'recordDisputeEvidence',
  'applySettlementTransition',
  'settlementStatus',
  'deliverWebhook',
  // Issue 44 ("fail-after-commit for every activity"): the rest of the money activities.
  'sweepSettlement',
  'settlementRunPage',
  'settlementRetryFacts',
  'compareLateAnswer',
  'settleLateAnswer',
  'submitLateReturn',
  'recordLateReturn',
  'lateReturnStatus',
  'openReconciliationBreaks',
  'importPartnerStatement',
  'recordOperatorAction',
] as const;

/** The operator's actions (src/cli/operator-actions.ts OPERATOR_COMMANDS) and what each acts on. */
export const OPERATOR_ACTIONS = {
  'charges reverse': 'charge',
  'charges resolve': 'charge',
  'charges retry': 'charge',
  'payouts approve': 'payout',
  'payouts reject': 'payout',
  'payouts reverse': 'payout',
  'settlements retry': 'merchant',
  'payments restart': 'any',
  'payments settle-late': 'any',
  'payments review-close': 'charge',
} as const;

export type OperatorActionName = keyof typeof OPERATOR_ACTIONS;

/** The mobile money network of the plan's payments (MTN Ghana's id in the seed data). */
export const MOMO_NETWORK = '3f9c2b1e-8a4d-4c6e-9b7a-1d2e3f4a5b01';
const MOMO_NETWORKS = [MOMO_NETWORK];

/** A Ghanaian mobile number; `suffix` chooses the fake partner's behaviour for live payments. */
export function phone(rng: Rng, live: boolean): string {
  if (!live) return `23324${rng.int(1_000_000, 9_999_999)}`;
  const suffix = rng.weighted(LIVE_SUFFIXES);
  return `23324${rng.int(100, 999)}${suffix === 'plain' ? String(rng.int(5000, 9999)) : suffix}`;
}

export function chargeParams(rng: Rng, live: boolean): Params {
  const channel = live ? (rng.chance(0.9) ? 'mobile_money' : rng.pick(['card', 'bank'])) : rng.weighted({ mobile_money: 7, card: 2, bank: 1 });
  return {
    amount: rng.int(1, 400) * 100 + (rng.chance(0.2) ? rng.int(1, 99) : 0),
    currency: 'GHS',
    channel,
    momo_network_id: channel === 'mobile_money' ? rng.pick(MOMO_NETWORKS) : null,
    identifier: live && channel === 'mobile_money' ? phone(rng, true) : phone(rng, false),
    outcome: live ? null : rng.weighted(SANDBOX_OUTCOMES),
    idempotency_key: rng.uuid(),
  };
}

export function payoutParams(rng: Rng, live: boolean): Params {
  const channel = rng.weighted({ mobile_money: 4, bank: 1 });
  return {
    environment: live ? 'live' : 'sandbox',
    amount: rng.chance(0.25) ? rng.int(200, 600) * 100 : rng.int(1, 30) * 100,
    currency: 'GHS',
    channel,
    momo_network_id: channel === 'mobile_money' ? rng.pick(MOMO_NETWORKS) : null,
    bank_code: channel === 'bank' ? 'GCB' : null,
    identifier: channel === 'mobile_money' ? phone(rng, live) : String(rng.int(1_000_000_000, 1_999_999_999)),
    idempotency_key: rng.uuid(),
  };
}

/** A time jump: seconds mostly, then minutes, hours, and days. */
export function jumpMs(rng: Rng): number {
  const unit = rng.weighted({ seconds: 4, minutes: 3, hours: 2, days: 1 });
  if (unit === 'seconds') return rng.int(1, 59) * 1000;
  if (unit === 'minutes') return rng.int(1, 59) * 60_000;
  if (unit === 'hours') return rng.int(1, 23) * 3_600_000;
  return rng.int(1, 3) * 86_400_000;
}

export function operatorParams(rng: Rng, action: OperatorActionName): Params {
  const params: Params = { action, reason: `simulation: ${action}` };
  if (action === 'charges resolve') {
    params.as = rng.pick(['succeeded', 'failed']);
    params.failure_class = params.as === 'failed' ? rng.pick(FAILURE_CLASSES) : null;
  }
  if (action === 'payments settle-late') params.settle_late = rng.pick(SETTLE_LATE_ACTIONS);
  return params;
}

export const RECEIVER_MODES = { ok: 4, fail_500: 2, slow: 1, drop: 1 } as const;
export const PARTNER_BEHAVIOURS = { normal: 4, late: 2, twice: 2, never: 1 } as const;
export { DISPUTE_REASONS, REFUND_REASONS };

import type { Environment } from './environment';
import type { FailureClass } from './failure-classes';
import { railOf, type PaymentRail } from './rail-routes';

/**
 * Payouts (INTERFACE.md, "Money movement"): money out of a merchant's available balance to a mobile
 * money wallet or a bank account. The payout workflow owns every transition after acceptance.
 */
export const PAYOUT_CHANNELS = ['mobile_money', 'bank'] as const;
export type PayoutChannel = (typeof PAYOUT_CHANNELS)[number];

export const PAYOUT_STATUSES = ['pending', 'held_for_review', 'succeeded', 'failed', 'reversed'] as const;
export type PayoutStatus = (typeof PAYOUT_STATUSES)[number];

/**
 * Allowed transitions (INTERFACE.md, Payout). `held_for_review` → `pending` is an approval;
 * `held_for_review` → `failed` (class `declined`) a rejection or the review timeout; `succeeded` →
 * `reversed` gives the amount back (the fee is kept). Everything else is refused.
 */
const TRANSITIONS: Record<PayoutStatus, readonly PayoutStatus[]> = {
  held_for_review: ['pending', 'failed'],
  pending: ['succeeded', 'failed'],
  succeeded: ['reversed'],
  failed: [],
  reversed: [],
};

export function canPayoutTransition(from: PayoutStatus, to: PayoutStatus): boolean {
  return TRANSITIONS[from].includes(to);
}

/**
 * The one way out of `failed` (issue 29), never taken by the normal machine above: the partner paid
 * the payout after we failed it, and an operator accepts it as paid (`settleLateAnswer`, action
 * `accept`, through the payment review). Nothing else may use it.
 */
export function canPayoutSettleLate(from: PayoutStatus, to: PayoutStatus): boolean {
  return from === 'failed' && to === 'succeeded';
}

export function isTerminalPayoutStatus(status: PayoutStatus): boolean {
  return TRANSITIONS[status].length === 0;
}

export function isPayoutStatus(value: unknown): value is PayoutStatus {
  return typeof value === 'string' && (PAYOUT_STATUSES as readonly string[]).includes(value);
}

export type PayoutEventType = 'payout.initiated' | 'payout.held_for_review' | 'payout.succeeded' | 'payout.failed' | 'payout.reversed';

/**
 * The event of each status. `pending` is `payout.initiated`: the payout is on its way to the rail,
 * either at acceptance (no review) or after an approval (a held payout's create gave
 * `payout.held_for_review` instead), so each payout has at most one of each type.
 */
export function payoutEventType(status: PayoutStatus): PayoutEventType {
  return status === 'pending' ? 'payout.initiated' : `payout.${status}`;
}

export type ReviewDecision = 'approved' | 'rejected';

export interface PayoutReview {
  decision: ReviewDecision;
  reason: string;
  /** Who sent it (an operator name, `temporal-ui`, or `system` for the timeout); recorded, never shown to the merchant. */
  decidedBy: string;
  /** ISO 8601. */
  decidedAt: string;
}

/**
 * Payout fees, in basis points of the amount, borne by the merchant on top of the amount
 * (`total_debit = amount + platform + tax`): 1.00 % on mobile money, 0.50 % on bank transfers with a
 * floor of 100 minor units (a bank transfer has a fixed cost whatever its size). Tax is 15 % of the
 * platform fee. Both rounded half up, in bigint (as src/domain/fees.ts).
 */
export const PAYOUT_FEE_BPS: Record<PayoutChannel, bigint> = { mobile_money: 100n, bank: 50n };
export const PAYOUT_FEE_MINIMUM: Record<PayoutChannel, bigint> = { mobile_money: 0n, bank: 100n };
export const PAYOUT_FEE_TAX_BPS = 1500n;

function roundedBps(amount: bigint, bps: bigint): bigint {
  return (amount * bps + 5000n) / 10000n;
}

export function computePayoutFee(amount: number, channel: PayoutChannel): { platform: number; tax: number; totalDebit: number } {
  let platform = roundedBps(BigInt(amount), PAYOUT_FEE_BPS[channel]);
  if (platform < PAYOUT_FEE_MINIMUM[channel]) platform = PAYOUT_FEE_MINIMUM[channel];
  const tax = roundedBps(platform, PAYOUT_FEE_TAX_BPS);
  return { platform: Number(platform), tax: Number(tax), totalDebit: Number(BigInt(amount) + platform + tax) };
}

/**
 * A payout as the system of record holds it: the camelCase of the `payouts` columns (amounts as
 * numbers, times as ISO strings). The recipient's identifier is masked before it gets here; metadata
 * is the text the merchant sent (key order kept), as for charges.
 */
export interface PayoutRecord {
  id: string;
  merchantId: string;
  environment: Environment;
  status: PayoutStatus;
  amount: number;
  currency: string;
  channel: PayoutChannel;
  momoNetworkId: string | null;
  bankCode: string | null;
  recipientMasked: string;
  recipientName: string;
  /** The merchant's `reference`. */
  yourReference: string;
  /** Ours, unique. */
  reference: string;
  description: string | null;
  metadataJson: string;
  feePlatform: number;
  feeTax: number;
  totalDebit: number;
  failureClass: FailureClass | null;
  /** `metadata.sandbox_outcome` at acceptance (sandbox only; null on live). */
  sandboxOutcome: string | null;
  requiresReview: boolean;
  reviewDecision: ReviewDecision | null;
  reviewReason: string | null;
  reviewDecidedBy: string | null;
  reviewDecidedAt: string | null;
  reversedAt: string | null;
  createdAt: string;
  updatedAt: string;
  /** The partner it went to, or `sandbox` (issue 45); absent or null: a row from before (railOf). */
  rail?: PaymentRail | null;
  /** Issue 46: the partners it may use in order (`momo,aggregator`), decided at creation; absent or null: its one partner. */
  railRoute?: string | null;
}

/** The public payout object (API answers and event data). */
export interface PayoutView {
  id: string;
  object: 'payout';
  status: PayoutStatus;
  amount: number;
  currency: string;
  channel: PayoutChannel;
  momo_network_id?: string;
  bank_code?: string;
  recipient: { masked: string; name: string };
  your_reference: string;
  reference: string;
  description: string | null;
  fee: { platform: number; tax: number; bearer: 'merchant' };
  total_debit: number;
  review?: { decision: ReviewDecision; reason: string; decided_at: string };
  failure_class?: FailureClass;
  livemode: boolean;
  /** The partner the payout went to (`momo`, `aggregator`), or `sandbox` (issue 45). */
  rail: PaymentRail;
  created_at: string;
  updated_at: string;
  metadata: Record<string, unknown>;
}

export function payoutObject(record: PayoutRecord): PayoutView {
  return {
    id: record.id,
    object: 'payout',
    status: record.status,
    amount: record.amount,
    currency: record.currency,
    channel: record.channel,
    ...(record.channel === 'mobile_money' ? { momo_network_id: record.momoNetworkId ?? undefined } : { bank_code: record.bankCode ?? undefined }),
    recipient: { masked: record.recipientMasked, name: record.recipientName },
    your_reference: record.yourReference,
    reference: record.reference,
    description: record.description,
    fee: { platform: record.feePlatform, tax: record.feeTax, bearer: 'merchant' },
    total_debit: record.totalDebit,
    ...(record.reviewDecision && record.reviewReason !== null && record.reviewDecidedAt
      ? { review: { decision: record.reviewDecision, reason: record.reviewReason, decided_at: record.reviewDecidedAt } }
      : {}),
    ...(record.status === 'failed' && record.failureClass ? { failure_class: record.failureClass } : {}),
    livemode: record.environment === 'live',
    rail: railOf(record),
    created_at: record.createdAt,
    updated_at: record.updatedAt,
    metadata: JSON.parse(record.metadataJson) as Record<string, unknown>,
  };
}

/**
 * The payout object serialised, with the merchant's metadata inserted as the text it was sent in
 * (metadata is the last member). This is the body of API answers and the `data` of payout events.
 */
export function payoutJson(record: PayoutRecord): string {
  const { metadata: _ignored, ...rest } = payoutObject(record);
  return `${JSON.stringify(rest).slice(0, -1)},"metadata":${record.metadataJson}}`;
}

import { maskIdentifier } from '../domain/customer';
import { computePayoutFee, type PayoutChannel, type PayoutRecord } from '../domain/payout';
import { newPaymentReference } from '../support/new-id';
import type { Caller } from './context';

/** The validated body of POST /v1/payouts (http/schemas/create-payout.ts). */
export interface PayoutRequest {
  amount: number;
  currency: string;
  channel: PayoutChannel;
  momo_network_id?: string;
  bank_code?: string;
  recipient: { identifier: string; name: string };
  reference: string;
  description?: string;
  metadata?: Record<string, unknown>;
}

/** Sandbox outcome that holds a payout for review whatever its amount (INTERFACE.md). */
export const HELD_FOR_REVIEW_OUTCOME = 'held_for_review';

/**
 * Builds the payout as accepted. The full recipient identifier stops here (only its mask is stored).
 * `metadataJson` is the metadata as the merchant sent it (source text). A payout needs review when its
 * amount is at least the merchant's threshold or, in the sandbox, `metadata.sandbox_outcome` is
 * `held_for_review`; it is then created `held_for_review` (the create answer shows that status and
 * the first event is `payout.held_for_review`), else `pending` with `payout.initiated`.
 */
export function buildPayoutDraft(caller: Caller, id: string, request: PayoutRequest, now: Date, reviewThreshold: number, metadataJson?: string): PayoutRecord {
  const metadata = request.metadata ?? {};
  const outcome = caller.environment === 'sandbox' && typeof metadata.sandbox_outcome === 'string' ? metadata.sandbox_outcome : null;
  const requiresReview = request.amount >= reviewThreshold || outcome === HELD_FOR_REVIEW_OUTCOME;
  const fee = computePayoutFee(request.amount, request.channel);
  const createdAt = now.toISOString();
  return {
    id,
    merchantId: caller.merchantId,
    environment: caller.environment,
    status: requiresReview ? 'held_for_review' : 'pending',
    amount: request.amount,
    currency: request.currency,
    channel: request.channel,
    momoNetworkId: request.channel === 'mobile_money' ? request.momo_network_id!.toLowerCase() : null,
    bankCode: request.channel === 'bank' ? request.bank_code! : null,
    recipientMasked: maskIdentifier(request.recipient.identifier),
    recipientName: request.recipient.name,
    yourReference: request.reference,
    reference: newPaymentReference('PO'),
    description: request.description ?? null,
    metadataJson: metadataJson ?? JSON.stringify(metadata),
    feePlatform: fee.platform,
    feeTax: fee.tax,
    totalDebit: fee.totalDebit,
    failureClass: null,
    sandboxOutcome: outcome,
    requiresReview,
    reviewDecision: null,
    reviewReason: null,
    reviewDecidedBy: null,
    reviewDecidedAt: null,
    reversedAt: null,
    createdAt,
    updatedAt: createdAt,
  };
}

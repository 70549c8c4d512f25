import type { Environment } from '../../domain/environment';
import type { FailureClass } from '../../domain/failure-classes';
import type { PayoutChannel, PayoutRecord, PayoutStatus, ReviewDecision } from '../../domain/payout';
import { iso, isoOrNull } from '../sql-values';
import type { PaymentRail } from '../../domain/rail-routes';

/** Columns of `payouts` in insert order (payout-create-store.ts); `workflow_started_at` is the writer's. */
export const PAYOUT_COLUMNS = [
  'id',
  'merchant_id',
  'environment',
  'status',
  'amount',
  'currency',
  'channel',
  'momo_network_id',
  'bank_code',
  'recipient_masked',
  'recipient_name',
  'your_reference',
  'reference',
  'description',
  'metadata_json',
  'fee_platform',
  'fee_tax',
  'total_debit',
  'failure_class',
  'sandbox_outcome',
  'requires_review',
  'review_decision',
  'review_reason',
  'review_decided_by',
  'review_decided_at',
  'reversed_at',
  'created_at',
  'updated_at',
  'rail',
  'rail_route',
] as const;

type Row = Record<string, unknown>;

const num = (value: unknown) => Number(value as string | number);
const textOrNull = (value: unknown) => (value === null || value === undefined ? null : String(value as string));

/** A raw `payouts` row (bigints as strings or numbers, timestamps as Date or string) as a record. */
export function rowToPayout(row: Row): PayoutRecord {
  return {
    id: String(row.id),
    merchantId: String(row.merchant_id),
    environment: row.environment as Environment,
    status: row.status as PayoutStatus,
    amount: num(row.amount),
    currency: String(row.currency),
    channel: row.channel as PayoutChannel,
    momoNetworkId: textOrNull(row.momo_network_id),
    bankCode: textOrNull(row.bank_code),
    recipientMasked: String(row.recipient_masked),
    recipientName: String(row.recipient_name),
    yourReference: String(row.your_reference),
    reference: String(row.reference),
    description: textOrNull(row.description),
    metadataJson: String(row.metadata_json),
    feePlatform: num(row.fee_platform),
    feeTax: num(row.fee_tax),
    totalDebit: num(row.total_debit),
    failureClass: textOrNull(row.failure_class) as FailureClass | null,
    sandboxOutcome: textOrNull(row.sandbox_outcome),
    requiresReview: row.requires_review === true,
    reviewDecision: textOrNull(row.review_decision) as ReviewDecision | null,
    reviewReason: textOrNull(row.review_reason),
    reviewDecidedBy: textOrNull(row.review_decided_by),
    reviewDecidedAt: isoOrNull(row.review_decided_at as Date | string | null),
    reversedAt: isoOrNull(row.reversed_at as Date | string | null),
    createdAt: iso(row.created_at as Date | string),
    updatedAt: iso(row.updated_at as Date | string),
    rail: textOrNull(row.rail) as PaymentRail | null,
    railRoute: textOrNull(row.rail_route),
  };
}

/** The record's values in PAYOUT_COLUMNS order, for a parameterised insert. */
export function payoutValues(record: PayoutRecord): unknown[] {
  return [
    record.id,
    record.merchantId,
    record.environment,
    record.status,
    record.amount,
    record.currency,
    record.channel,
    record.momoNetworkId,
    record.bankCode,
    record.recipientMasked,
    record.recipientName,
    record.yourReference,
    record.reference,
    record.description,
    record.metadataJson,
    record.feePlatform,
    record.feeTax,
    record.totalDebit,
    record.failureClass,
    record.sandboxOutcome,
    record.requiresReview,
    record.reviewDecision,
    record.reviewReason,
    record.reviewDecidedBy,
    record.reviewDecidedAt,
    record.reversedAt,
    record.createdAt,
    record.updatedAt,
    record.rail ?? null,
    record.railRoute ?? null,
  ];
}

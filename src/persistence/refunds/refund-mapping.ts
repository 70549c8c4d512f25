import type { Environment } from '../../domain/environment';
import type { FailureClass } from '../../domain/failure-classes';
import type { RefundReason, RefundRecord, RefundStatus } from '../../domain/refund';
import { iso } from '../sql-values';
import type { PaymentRail } from '../../domain/rail-routes';

/** Columns of `refunds` in insert order (refund-create-store.ts); `workflow_started_at` is the writer's. */
export const REFUND_COLUMNS = [
  'id',
  'merchant_id',
  'environment',
  'charge_id',
  'status',
  'amount',
  'currency',
  'reason',
  'metadata_json',
  'failure_class',
  'sandbox_outcome',
  'created_at',
  'updated_at',
  'rail',
] as const;

const textOrNull = (value: unknown) => (value === null || value === undefined ? null : String(value as string));

/** A raw `refunds` row (bigints as strings or numbers, timestamps as Date or string) as a record. */
export function rowToRefund(row: Record<string, unknown>): RefundRecord {
  return {
    id: String(row.id),
    merchantId: String(row.merchant_id),
    environment: row.environment as Environment,
    chargeId: String(row.charge_id),
    status: row.status as RefundStatus,
    amount: Number(row.amount as string | number),
    currency: String(row.currency),
    reason: textOrNull(row.reason) as RefundReason | null,
    metadataJson: String(row.metadata_json),
    failureClass: textOrNull(row.failure_class) as FailureClass | null,
    sandboxOutcome: textOrNull(row.sandbox_outcome),
    createdAt: iso(row.created_at as Date | string),
    updatedAt: iso(row.updated_at as Date | string),
    rail: textOrNull(row.rail) as PaymentRail | null,
  };
}

/** The record's values in REFUND_COLUMNS order, for a parameterised insert. */
export function refundValues(record: RefundRecord): unknown[] {
  return [
    record.id,
    record.merchantId,
    record.environment,
    record.chargeId,
    record.status,
    record.amount,
    record.currency,
    record.reason,
    record.metadataJson,
    record.failureClass,
    record.sandboxOutcome,
    record.createdAt,
    record.updatedAt,
    record.rail ?? null,
  ];
}

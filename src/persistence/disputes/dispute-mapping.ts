import type { DisputeReason, DisputeRecord, DisputeStatus } from '../../domain/dispute';
import type { Environment } from '../../domain/environment';
import { iso, isoOrNull } from '../sql-values';

/** Columns of `disputes` in insert order (dispute-create-store.ts); `workflow_started_at` is the writer's. */
export const DISPUTE_COLUMNS = [
  'id',
  'merchant_id',
  'environment',
  'charge_id',
  'status',
  'amount',
  'currency',
  'reason',
  'evidence_text',
  'evidence_submitted_at',
  'evidence_due_by',
  'created_at',
  'updated_at',
] as const;

/** A raw `disputes` row (bigints as strings or numbers, timestamps as Date or string) as a record. */
export function rowToDispute(row: Record<string, unknown>): DisputeRecord {
  return {
    id: String(row.id),
    merchantId: String(row.merchant_id),
    environment: row.environment as Environment,
    chargeId: String(row.charge_id),
    status: row.status as DisputeStatus,
    amount: Number(row.amount as string | number),
    currency: String(row.currency),
    reason: String(row.reason) as DisputeReason,
    evidenceText: row.evidence_text === null || row.evidence_text === undefined ? null : String(row.evidence_text as string),
    evidenceSubmittedAt: isoOrNull(row.evidence_submitted_at as Date | string | null),
    evidenceDueBy: isoOrNull(row.evidence_due_by as Date | string | null),
    createdAt: iso(row.created_at as Date | string),
    updatedAt: iso(row.updated_at as Date | string),
  };
}

/** The record's values in DISPUTE_COLUMNS order, for a parameterised insert. */
export function disputeValues(record: DisputeRecord): unknown[] {
  return [
    record.id,
    record.merchantId,
    record.environment,
    record.chargeId,
    record.status,
    record.amount,
    record.currency,
    record.reason,
    record.evidenceText,
    record.evidenceSubmittedAt,
    record.evidenceDueBy,
    record.createdAt,
    record.updatedAt,
  ];
}

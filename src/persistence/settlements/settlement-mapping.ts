import type { Environment } from '../../domain/environment';
import type { FailureClass } from '../../domain/failure-classes';
import type { SettlementRecord, SettlementStatus } from '../../domain/settlement';
import { maskAccountNumber } from '../../domain/settlement-account';
import { iso, isoOrNull } from '../sql-values';

/** Columns of `settlements` in insert order (settlement-store.ts sweepSettlement). */
export const SETTLEMENT_COLUMNS = [
  'id',
  'merchant_id',
  'environment',
  'currency',
  'status',
  'amount',
  'entry_count',
  'period_end',
  'destination_bank_code',
  'destination_account_sealed',
  'destination_account_masked',
  'paid_at',
  'failure_class',
  'run_id',
  'sandbox_outcome',
  'created_at',
  'updated_at',
] as const;

const textOrNull = (value: unknown) => (value === null || value === undefined ? null : String(value as string));

/** A raw `settlements` row (bigints as strings or numbers, timestamps as Date or string) as a record. */
export function rowToSettlement(row: Record<string, unknown>): SettlementRecord {
  return {
    id: String(row.id),
    merchantId: String(row.merchant_id),
    environment: row.environment as Environment,
    currency: String(row.currency),
    status: row.status as SettlementStatus,
    amount: Number(row.amount as string | number),
    entryCount: Number(row.entry_count as string | number),
    periodEnd: iso(row.period_end as Date | string),
    destinationBankCode: String(row.destination_bank_code),
    ...destinationAccountOf(row),
    paidAt: isoOrNull(row.paid_at as Date | string | null),
    failureClass: textOrNull(row.failure_class) as FailureClass | null,
    runId: textOrNull(row.run_id),
    sandboxOutcome: textOrNull(row.sandbox_outcome),
    createdAt: iso(row.created_at as Date | string),
    updatedAt: iso(row.updated_at as Date | string),
  };
}

/**
 * The destination number as the record holds it: sealed and masked; a row from before migration
 * 20261125000005 not sealed yet (plain `destination_account_number`) gives its masked form only, so
 * no record ever carries a plain number.
 */
function destinationAccountOf(row: Record<string, unknown>): Pick<SettlementRecord, 'destinationAccountSealed' | 'destinationAccountMasked'> {
  const sealed = textOrNull(row.destination_account_sealed);
  const masked = textOrNull(row.destination_account_masked);
  if (sealed !== null && masked !== null) return { destinationAccountSealed: sealed, destinationAccountMasked: masked };
  return { destinationAccountSealed: null, destinationAccountMasked: maskAccountNumber(String(row.destination_account_number)) };
}

/** The record's values in SETTLEMENT_COLUMNS order, for a parameterised insert. */
export function settlementValues(record: SettlementRecord): unknown[] {
  return [
    record.id,
    record.merchantId,
    record.environment,
    record.currency,
    record.status,
    record.amount,
    record.entryCount,
    record.periodEnd,
    record.destinationBankCode,
    record.destinationAccountSealed,
    record.destinationAccountMasked,
    record.paidAt,
    record.failureClass,
    record.runId,
    record.sandboxOutcome,
    record.createdAt,
    record.updatedAt,
  ];
}

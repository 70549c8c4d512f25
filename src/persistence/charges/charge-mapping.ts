import type { ChargeRecord } from '../../domain/charge';
import type { Channel, ChargeAction, ChargeStatus } from '../../domain/charge-status';
import type { Environment } from '../../domain/environment';
import type { FailureClass } from '../../domain/failure-classes';
import type { InferEntity } from '@mikro-orm/postgresql';
import type { Charge } from '../entities';
import type { PaymentRail } from '../../domain/rail-routes';

type ChargeRow = InferEntity<typeof Charge>;

export function rowToRecord(row: ChargeRow): ChargeRecord {
  return {
    id: row.id,
    merchantId: row.merchantId,
    environment: row.environment as Environment,
    status: row.status as ChargeStatus,
    reference: row.reference,
    yourReference: row.yourReference ?? null,
    amount: row.amount,
    currency: row.currency,
    channel: row.channel as Channel,
    momoNetworkId: row.momoNetworkId ?? null,
    fee: { platform: row.feePlatform, tax: row.feeTax, bearer: 'merchant' },
    merchantAmount: row.merchantAmount,
    customerMasked: row.customerMasked,
    customerName: row.customerName ?? null,
    description: row.description ?? null,
    action: (row.action as ChargeAction | null | undefined) ?? null,
    metadataJson: row.metadataJson,
    failureClass: (row.failureClass as FailureClass | null | undefined) ?? null,
    createdAt: row.createdAt.toISOString(),
    expiresAt: row.expiresAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
    amountRefunded: row.amountRefunded,
    rail: (row.rail as PaymentRail | null | undefined) ?? null,
    railRoute: row.railRoute ?? null,
    card: row.cardBrand && row.cardLast4 ? { brand: row.cardBrand, last4: row.cardLast4 } : null,
  };
}

/** The row of a charge record; `workflowStartedAt` is the writer's to set (charge-store.ts). */
export function recordToRow(record: ChargeRecord): Omit<ChargeRow, 'workflowStartedAt'> {
  return {
    id: record.id,
    merchantId: record.merchantId,
    environment: record.environment,
    status: record.status,
    reference: record.reference,
    yourReference: record.yourReference,
    amount: record.amount,
    currency: record.currency,
    channel: record.channel,
    momoNetworkId: record.momoNetworkId,
    feePlatform: record.fee.platform,
    feeTax: record.fee.tax,
    feeBearer: record.fee.bearer,
    merchantAmount: record.merchantAmount,
    customerMasked: record.customerMasked,
    customerName: record.customerName,
    description: record.description,
    action: record.action,
    metadataJson: record.metadataJson,
    failureClass: record.failureClass,
    createdAt: new Date(record.createdAt),
    expiresAt: new Date(record.expiresAt),
    updatedAt: new Date(record.updatedAt),
    amountRefunded: record.amountRefunded ?? 0,
    rail: record.rail ?? null,
    railRoute: record.railRoute ?? null,
    cardBrand: record.card?.brand ?? null,
    cardLast4: record.card?.last4 ?? null,
  };
}

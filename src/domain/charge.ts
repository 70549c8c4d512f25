import type { Channel, ChargeAction, ChargeStatus } from './charge-status';
import type { Environment } from './environment';
import type { FailureClass } from './failure-classes';
import type { Fee } from './fees';
import type { AuditOfChange } from './operator-action';
import { railOf, type PaymentRail } from './rail-routes';

/**
 * A charge as the system of record holds it. The workflow input (`ChargeDraft`) and the database
 * projection both use this shape; the customer's identifier is masked before it gets here, so no
 * workflow history ever holds the full number.
 */
export interface ChargeRecord {
  id: string;
  merchantId: string;
  environment: Environment;
  status: ChargeStatus;
  reference: string;
  yourReference: string | null;
  amount: number;
  currency: string;
  channel: Channel;
  momoNetworkId: string | null;
  fee: Fee;
  merchantAmount: number;
  customerMasked: string;
  customerName: string | null;
  description: string | null;
  action: ChargeAction | null;
  /** Metadata exactly as the merchant sent it, serialised once (key order kept). */
  metadataJson: string;
  failureClass: FailureClass | null;
  createdAt: string;
  expiresAt: string;
  updatedAt: string;
  /** Sum of the charge's succeeded refunds (`charges.amount_refunded`); absent in records written before refunds (0). */
  amountRefunded?: number;
  /** The partner it went to, or `sandbox` (issue 45); absent or null: a row from before (railOf). */
  rail?: PaymentRail | null;
  /** Issue 46: the partners it may use in order (`momo,aggregator`), decided at creation; absent or null: its one partner. */
  railRoute?: string | null;
  /** A live card charge's card once its hosted page sent it (issue 45): the brand and the last four digits, nothing else. */
  card?: ChargeCard | null;
}

export interface ChargeCard {
  brand: string;
  last4: string;
}

/** Everything the charge workflow needs; it is the record at acceptance plus the sandbox switch. */
export interface ChargeDraft extends ChargeRecord {
  sandboxOutcome: string | null;
}

/** The public charge object of SPEC 2.1. */
export interface ChargeView {
  id: string;
  object: 'charge';
  status: ChargeStatus;
  reference: string;
  your_reference: string | null;
  amount: number;
  currency: string;
  customer_amount: number;
  merchant_amount: number;
  amount_refunded: number;
  fee: Fee;
  channel: Channel;
  momo_network_id: string | null;
  customer: { masked: string; name: string | null };
  action: ChargeAction | null;
  description: string | null;
  failure_class: FailureClass | null;
  livemode: boolean;
  /** The partner the charge went to (`momo`, `aggregator`), or `sandbox` (issue 45). */
  rail: PaymentRail;
  /** A live card charge's card (brand, last four digits) once the customer sent it on the hosted page; null otherwise. */
  card: ChargeCard | null;
  created_at: string;
  expires_at: string;
  updated_at: string;
  metadata: Record<string, unknown>;
}

/**
 * The charge object serialised, with the merchant's metadata inserted as the text it was sent in
 * (metadata is the last member, so the rest is ordinary JSON).
 */
export function chargeJson(record: ChargeRecord): string {
  const { metadata: _ignored, ...rest } = toChargeView(record);
  return `${JSON.stringify(rest).slice(0, -1)},"metadata":${record.metadataJson}}`;
}

export function toChargeView(record: ChargeRecord): ChargeView {
  return {
    id: record.id,
    object: 'charge',
    status: record.status,
    reference: record.reference,
    your_reference: record.yourReference,
    amount: record.amount,
    currency: record.currency,
    customer_amount: record.amount,
    merchant_amount: record.merchantAmount,
    amount_refunded: record.amountRefunded ?? 0,
    fee: { platform: record.fee.platform, tax: record.fee.tax, bearer: record.fee.bearer },
    channel: record.channel,
    momo_network_id: record.momoNetworkId,
    customer: { masked: record.customerMasked, name: record.customerName },
    action: record.action,
    description: record.description,
    failure_class: record.failureClass,
    livemode: record.environment === 'live',
    rail: railOf(record),
    card: record.card ?? null,
    created_at: record.createdAt,
    expires_at: record.expiresAt,
    updated_at: record.updatedAt,
    metadata: JSON.parse(record.metadataJson) as Record<string, unknown>,
  };
}

/** One requested state change of a charge. */
export interface ChargeTransitionRequest {
  chargeId: string;
  to: ChargeStatus;
  failureClass: FailureClass | null;
  /** ISO time of the transition, from workflow time, so a retry writes the same value. */
  at: string;
  /** An operator's reversal: its audit row, written in the transition's transaction when it changes the charge (issue 31). */
  audit?: AuditOfChange;
}

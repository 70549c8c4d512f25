import type { ChargeDraft } from '../domain/charge';
import { initialState, type Channel } from '../domain/charge-status';
import { maskIdentifier } from '../domain/customer';
import { computeFee, merchantAmount } from '../domain/fees';
import { checkoutActionFor, CHECKOUT_STATUS } from '../domain/hosted-checkout';
import { chargeExpiry } from '../domain/charge-lifetime';
import { newPaymentReference } from '../support/new-id';
import type { Caller } from './context';

/** The validated body of POST /v1/charges. */
export interface ChargeRequest {
  amount: number;
  currency: string;
  channel: Channel;
  momo_network_id?: string;
  customer: { identifier: string; name?: string };
  reference?: string;
  description?: string;
  metadata?: Record<string, unknown>;
  /** RFC 3339; between 15 minutes and 24 hours after the create (checked as the charge is written). */
  expires_at?: string;
}

/**
 * Builds the charge the workflow will own. The full customer identifier stops here. `metadataJson`
 * is the metadata as the merchant sent it (source text), kept byte for byte.
 */
export function buildChargeDraft(caller: Caller, id: string, request: ChargeRequest, now: Date, metadataJson?: string): ChargeDraft {
  const fee = computeFee(request.amount, request.channel);
  const metadata = request.metadata ?? {};
  // Sandbox card and bank without a sandbox_outcome: the customer decides on the hosted checkout page.
  const checkout = checkoutActionFor(caller.environment, request.channel, metadata.sandbox_outcome);
  const { status, action } = checkout ? { status: CHECKOUT_STATUS, action: checkout } : initialState(request.channel);
  const createdAt = now.toISOString();
  return {
    id,
    merchantId: caller.merchantId,
    environment: caller.environment,
    status,
    reference: newPaymentReference('PAY'),
    yourReference: request.reference ?? null,
    amount: request.amount,
    currency: request.currency,
    channel: request.channel,
    momoNetworkId: request.momo_network_id ?? null,
    fee,
    merchantAmount: merchantAmount(request.amount, fee),
    customerMasked: maskIdentifier(request.customer.identifier, request.channel),
    customerName: request.customer.name ?? null,
    description: request.description ?? null,
    action,
    metadataJson: metadataJson ?? JSON.stringify(metadata),
    failureClass: null,
    createdAt,
    expiresAt: chargeExpiry(now, request.expires_at),
    updatedAt: createdAt,
    sandboxOutcome: typeof metadata.sandbox_outcome === 'string' ? metadata.sandbox_outcome : null,
  };
}

import type { RailParty, RailProduct, RailResource } from './partner-rail';

/**
 * The partner protocol as modelled on the public MTN MoMo Open API (docs/partner-rail.md,
 * "The protocol"): paths, headers and bodies, shared by the adapter (src/rail/momo-adapter.ts) and
 * the fake partner (src/rail/fake-partner/), so the two cannot drift apart.
 */

/** `POST /{product}/token/`: an access token (Basic apiUser:apiKey + subscription key). */
export function tokenPath(product: RailProduct): string {
  return `/${product}/token/`;
}

/** Where a resource's transactions live: request-to-pay for collections, transfer and refund for disbursements. */
export const TRANSACTION_PATH: Record<RailResource, string> = {
  collection: '/collection/v1_0/requesttopay',
  disbursement: '/disbursement/v1_0/transfer',
  refund: '/disbursement/v1_0/refund',
};

/** The transaction's party field: the payer of a request-to-pay, the payee of a transfer. */
export const PARTY_FIELD: Record<RailProduct, 'payer' | 'payee'> = { collection: 'payer', disbursement: 'payee' };

export const HEADER = {
  subscriptionKey: 'ocp-apim-subscription-key',
  referenceId: 'x-reference-id',
  targetEnvironment: 'x-target-environment',
  callbackUrl: 'x-callback-url',
} as const;

/** The answer of the token endpoint. */
export interface MomoToken {
  access_token: string;
  token_type: string;
  /** Seconds. */
  expires_in: number;
}

/** The body of a submission (requesttopay carries `payer`, transfer `payee`, refund `referenceIdToRefund` and no party). */
export interface MomoSubmission {
  amount: string;
  currency: string;
  externalId: string;
  payer?: RailParty;
  payee?: RailParty;
  /** A refund: the X-Reference-Id of the request-to-pay it refunds. */
  referenceIdToRefund?: string;
  payerMessage: string;
  payeeNote: string;
}

export type MomoTransactionStatus = 'PENDING' | 'SUCCESSFUL' | 'FAILED';

/** The answer of a status GET, and the body of a callback. */
export interface MomoTransaction extends MomoSubmission {
  status: MomoTransactionStatus;
  financialTransactionId?: string;
  /** With FAILED: the reason code (NOT_ENOUGH_FUNDS, …). */
  reason?: string;
}

/** An error answer: `{"code": "PAYER_NOT_FOUND", "message": "…"}`. */
export interface MomoError {
  code: string;
  message: string;
}

/** MoMo's reference ids are UUIDs (v4 by convention); the partner refuses anything else. */
export const REFERENCE_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isReferenceId(value: unknown): value is string {
  return typeof value === 'string' && REFERENCE_ID.test(value);
}

export function isRailProduct(value: unknown): value is RailProduct {
  return value === 'collection' || value === 'disbursement';
}

export function isRailResource(value: unknown): value is RailResource {
  return isRailProduct(value) || value === 'refund';
}

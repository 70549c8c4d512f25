import type { RailProduct, RailResource } from '../partner-rail';
import type { CardAuthorization, CardData } from './card-protocol';

/**
 * The aggregator's protocol as modelled on Flutterwave's v3 API (docs/aggregator.md, "The
 * protocol"): paths, fields, statuses and webhook events, shared by the adapter
 * (src/rail/aggregator/adapter.ts) and the fake aggregator (src/rail/aggregator/fake/), so the two
 * cannot drift apart. Where the model departs from Flutterwave it says so here and in the doc.
 */

/** Every call: `Authorization: Bearer <secret key>` (AGGREGATOR_SECRET_KEY). */
export const AUTHORIZATION_SCHEME = 'Bearer';

/** The header that carries the webhook secret hash (AGGREGATOR_WEBHOOK_HASH), as Flutterwave names it. */
export const WEBHOOK_HASH_HEADER = 'verif-hash';

export const PATH = {
  /** `POST /v3/charges?type=<charge type>`: a collection. */
  charges: '/v3/charges',
  /** `GET /v3/transactions/verify_by_reference?tx_ref=<ref>`: a collection's status by our reference. */
  verifyCharge: '/v3/transactions/verify_by_reference',
  /** `POST /v3/transfers`: a disbursement; `GET /v3/transfers?reference=<ref>`: its status (a deviation: by our reference). */
  transfers: '/v3/transfers',
  /** `GET /v3/refunds?reference=<ref>`: a refund's status by our reference (a deviation). */
  refunds: '/v3/refunds',
  /** `POST /v3/transactions/{id}/refund`: a refund of the charge the aggregator numbers `id`. */
  refund: (chargeId: number): string => `/v3/transactions/${chargeId}/refund`,
  /** `GET /v3/statements/{product}?date=YYYY-MM-DD` (JSON) and `…/{product}.csv` (a deviation: the engine's statement format). */
  statement: (product: RailProduct, format: 'json' | 'csv'): string => `/v3/statements/${product}${format === 'csv' ? '.csv' : ''}`,
  /** The fake aggregator only: `POST /_fake/pay/{tx_ref}`, the customer paying a bank transfer (no authentication: the customer is no merchant). */
  fakePay: '/_fake/pay/',
  /** The fake aggregator only: `POST /_fake/declining` `{"on": true|false}` (issue 46, the `partner_declining` fault; the merchant's secret key). */
  fakeDeclining: '/_fake/declining',
} as const;

/** The query parameter naming our reference on each status path. */
export const STATUS_QUERY: Record<RailResource, 'tx_ref' | 'reference'> = { collection: 'tx_ref', disbursement: 'reference', refund: 'reference' };

/** The charge type of a bank-transfer collection (a BANK_ACCOUNT party): the customer pays into a virtual account. */
export const BANK_TRANSFER_TYPE = 'bank_transfer';
/** A card charge (`type=card`): its own protocol, card-protocol.ts, and client, card.ts (never through `submit`). */
export { CARD_TYPE } from './card-protocol';

/**
 * The mobile-money charge type of each currency (an MSISDN party), as Flutterwave names them.
 * ZMW and XAF are listed for completeness; the engine knows no minor-unit exponent for them (its
 * currencies list, src/rail/momo-amount.ts), so a payment in them is refused before it is sent.
 */
export const MOBILE_MONEY_CHARGE_TYPE: Readonly<Record<string, string>> = {
  GHS: 'mobile_money_ghana',
  UGX: 'mobile_money_uganda',
  KES: 'mpesa',
  ZMW: 'mobile_money_zambia',
  RWF: 'mobile_money_rwanda',
  TZS: 'mobile_money_tanzania',
  XOF: 'mobile_money_franco',
  XAF: 'mobile_money_franco',
};

/** Ghana's mobile-money networks, by the two digits after 233: what a charge names (`network`) and what a transfer names (`account_bank`). */
export const GHANA_NETWORKS: ReadonlyArray<{ prefixes: readonly string[]; charge: string; transfer: string }> = [
  { prefixes: ['24', '25', '53', '54', '55', '59'], charge: 'MTN', transfer: 'MTN' },
  { prefixes: ['20', '50'], charge: 'VODAFONE', transfer: 'VODAFONE' },
  { prefixes: ['26', '27', '56', '57'], charge: 'TIGO', transfer: 'AIRTELTIGO' },
];

/** The network code (`account_bank`) of a mobile-money transfer in currencies other than GHS. */
export const WALLET_TRANSFER_NETWORK: Readonly<Record<string, string>> = {
  KES: 'MPS',
  UGX: 'MPS',
  RWF: 'MPS',
  TZS: 'MPS',
  ZMW: 'MPS',
  XOF: 'FMM',
  XAF: 'FMM',
};

/** Every `account_bank` that names a wallet network rather than a bank: a transfer to it pays a phone number. */
export const WALLET_NETWORK_CODES: ReadonlySet<string> = new Set([...GHANA_NETWORKS.map((n) => n.transfer), 'TELECEL', ...Object.values(WALLET_TRANSFER_NETWORK)]);

/** A francophone charge's `country`, by the number's dialling code. */
export const FRANCO_COUNTRY_BY_DIAL_CODE: Readonly<Record<string, string>> = {
  '221': 'SN',
  '223': 'ML',
  '225': 'CI',
  '226': 'BF',
  '227': 'NE',
  '228': 'TG',
  '229': 'BJ',
  '237': 'CM',
  '241': 'GA',
  '242': 'CG',
};

/** The longest `narration` we send. */
export const MAX_NARRATION_LENGTH = 100;

/** What every answer is wrapped in. An error's `code` is a deviation (Flutterwave sends only the message): the adapter reads the code first, the message after. */
export interface Envelope<T = unknown> {
  status: 'success' | 'error';
  message: string;
  code?: string;
  data: T | null;
  meta?: { authorization?: BankTransferAuthorization | CardAuthorization; page_info?: { total: number } } | null;
}

/**
 * A bank-transfer charge's instructions (`meta.authorization`, Flutterwave's fields):
 * `account_expiration` is an ISO instant in UTC (a deviation: Flutterwave's is a local time without a
 * zone) and `transfer_account_name` is ours (Flutterwave gives only a note).
 */
export interface BankTransferAuthorization {
  mode: 'banktransfer';
  transfer_reference: string;
  transfer_account: string;
  transfer_bank: string;
  transfer_account_name?: string;
  transfer_amount: number;
  transfer_note?: string;
  account_expiration: string;
}

/** `POST /v3/charges` body. No `email` (the engine keeps none; a deviation). */
export interface ChargeBody {
  tx_ref: string;
  amount: number;
  currency: string;
  narration: string;
  /** Mobile money: the payer's number, digits with the country code. */
  phone_number?: string;
  /** `mobile_money_ghana`: MTN, VODAFONE or TIGO. */
  network?: string;
  /** `mobile_money_franco`: the country (SN, CI, CM, …). */
  country?: string;
  /** `bank_transfer`: the payer's declared account (a deviation: Flutterwave's bank transfer names no payer account). */
  account_bank?: string;
  account_number?: string;
  /** `bank_transfer`: how many seconds the account to pay into stays open (Flutterwave's `expires`; the charge's own expiry, so both end together). */
  expires?: number;
  meta: { external_id: string };
}

/** The longest `expires` of a bank transfer's account (Flutterwave: 432000 s, 5 days). */
export const MAX_BANK_TRANSFER_EXPIRES_S = 432_000;

export type ChargeStatus = 'pending' | 'successful' | 'failed';

/** A charge as the charge answer, verify and a `charge.completed` webhook give it. */
export interface ChargeData {
  id: number;
  tx_ref: string;
  flw_ref: string;
  amount: number;
  charged_amount: number;
  currency: string;
  status: ChargeStatus;
  payment_type: string;
  /** The aggregator's words on the outcome ("Approved", or why it failed). */
  processor_response: string;
  /** With `failed`: the error table's code (a deviation: Flutterwave gives only processor_response). */
  failure_code?: string;
  narration: string;
  created_at: string;
  /** A card charge: the card as the aggregator keeps it (card-protocol.ts). */
  card?: CardData;
  /** A bank transfer still open: where to pay; a card charge awaiting the customer: the OTP or 3-D Secure step. */
  meta: { external_id?: string; authorization?: BankTransferAuthorization | CardAuthorization };
}

/** `POST /v3/transfers` body: Flutterwave's; `reference` is our reference (a UUID). */
export interface TransferBody {
  account_bank: string;
  account_number: string;
  amount: number;
  currency: string;
  narration: string;
  reference: string;
  callback_url?: string;
  beneficiary_name?: string;
  meta: { external_id: string };
}

export type TransferStatus = 'NEW' | 'PENDING' | 'SUCCESSFUL' | 'FAILED';

export interface TransferData {
  id: number;
  account_number: string;
  bank_code: string;
  full_name: string;
  created_at: string;
  currency: string;
  amount: number;
  fee: number;
  status: TransferStatus;
  reference: string;
  narration: string;
  complete_message: string;
  failure_code?: string;
  meta: { external_id?: string };
}

/** `POST /v3/transactions/{id}/refund` body: Flutterwave's `amount` and `comments`, and ours: `reference` (the idempotency key), `currency` (checked). */
export interface RefundBody {
  amount: number;
  currency: string;
  reference: string;
  comments: string;
  meta: { external_id: string };
}

export type RefundStatus = 'pending' | 'completed' | 'failed';

export interface RefundData {
  id: number;
  /** The refunded charge's id. */
  tx_id: number;
  /** The refunded charge's tx_ref (ours). */
  tx_ref: string;
  flw_ref: string;
  reference: string;
  amount_refunded: number;
  currency: string;
  status: RefundStatus;
  comments: string;
  complete_message: string;
  failure_code?: string;
  created_at: string;
  meta: { external_id?: string };
}

export type WebhookEvent = 'charge.completed' | 'transfer.completed' | 'refund.completed';

export const WEBHOOK_EVENT: Record<RailResource, WebhookEvent> = {
  collection: 'charge.completed',
  disbursement: 'transfer.completed',
  refund: 'refund.completed',
};

export function resourceOfEvent(event: unknown): RailResource | undefined {
  return event === 'charge.completed' ? 'collection' : event === 'transfer.completed' ? 'disbursement' : event === 'refund.completed' ? 'refund' : undefined;
}

/** A webhook's body: Flutterwave's `event` and `data` (the object as its status path answers it). */
export interface WebhookBody {
  event: WebhookEvent;
  'event.type': string;
  data: ChargeData | TransferData | RefundData;
}

/** Where our reference is in an object of a resource: a charge's `tx_ref`, a transfer's or refund's `reference`. */
export function referenceOf(resource: RailResource, data: unknown): string | undefined {
  if (typeof data !== 'object' || data === null) return undefined;
  const value = (data as Record<string, unknown>)[resource === 'collection' ? 'tx_ref' : 'reference'];
  return typeof value === 'string' ? value : undefined;
}

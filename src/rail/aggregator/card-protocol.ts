/**
 * The aggregator's card protocol as modelled on Flutterwave's v3 API (docs/aggregator.md, "Cards"),
 * shared by the card client (card.ts) and the fake aggregator (fake/cards.ts, fake/three-ds.ts).
 */

/** `POST /v3/charges?type=card` with `{client}`: a card charge. */
export const CARD_TYPE = 'card';

export const CARD_PATH = {
  /** `POST /v3/validate-charge` `{otp, flw_ref, type: 'card'}`: the customer's OTP for a charge that asked for one. */
  validateCharge: '/v3/validate-charge',
  /** The fake aggregator only: its 3-D Secure page, `GET` and `POST /_fake/3ds/{flw_ref}` (the customer's browser; no key). */
  fakeThreeDs: '/_fake/3ds/',
} as const;

/** The webhook's `event.type` of a card charge. */
export const CARD_WEBHOOK_EVENT_TYPE = 'CARD_TRANSACTION';

/**
 * What `client` encrypts (card-crypto.ts). Flutterwave's fields; `expiry_month` two digits ("09"),
 * `expiry_year` two digits ("31"). No `email` nor `fullname` (a deviation: the engine keeps neither).
 */
export interface CardChargePayload {
  card_number: string;
  cvv: string;
  expiry_month: string;
  expiry_year: string;
  currency: string;
  /** Major units, as every charge (amount.ts). */
  amount: number;
  tx_ref: string;
  /** Where the 3-D Secure page sends the customer back (with `status` and `tx_ref` added to its query). */
  redirect_url: string;
  narration: string;
  meta: { external_id: string };
}

/** The body of `POST /v3/charges?type=card`. */
export interface CardChargeBody {
  client: string;
}

/** `POST /v3/validate-charge`. */
export interface ValidateChargeBody {
  otp: string;
  flw_ref: string;
  type: 'card';
}

/** A pending card charge's `meta.authorization` when the customer must act: an OTP to send to validate-charge, or a page to visit. */
export type CardAuthorization = { mode: 'otp'; endpoint: string } | { mode: 'redirect'; redirect: string };

/** A charge's `card`: what the aggregator keeps of it (never the number, never the CVV). */
export interface CardData {
  first_6digits: string;
  last_4digits: string;
  issuer: string;
  country: string;
  /** Upper case: `VISA`, `MASTERCARD`, `VERVE`, `AMEX`, … */
  type: string;
  /** The aggregator's token of the card, for a later charge without the number (not used by the engine yet). */
  token: string;
  /** `MM/YY`. */
  expiry: string;
}

/** The query the 3-D Secure page adds to a charge's redirect_url. */
export type ThreeDsOutcome = 'successful' | 'cancelled' | 'failed';

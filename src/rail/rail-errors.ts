/**
 * The adapter's errors that a retry cannot cure, beside RailUnavailable (src/rail/partner-rail.ts),
 * which one can. Both carry `retryable = false`: the caller stops retrying, keeps the payment
 * unresolved and raises it for attention with the message as the reason.
 */

/**
 * The partner refuses who we are or where we point it: our credentials (a 401 on the token endpoint,
 * or on a call with a fresh token), our target environment or our callback host. Every payment would
 * meet the same answer until an operator fixes the PARTNER_* configuration.
 */
export class RailMisconfigured extends Error {
  readonly retryable = false;
  constructor(message: string, readonly status?: number) {
    super(message);
    this.name = 'RailMisconfigured';
  }
}

/** A request the adapter cannot send as it stands (a currency without a known exponent, a reference that is not a UUID). */
export class RailRequestInvalid extends Error {
  readonly retryable = false;
  constructor(message: string) {
    super(message);
    this.name = 'RailRequestInvalid';
  }
}

/**
 * A charge's `expires_at` (INTERFACE.md: 15 minutes after creation by default). Issue 48: a merchant
 * may set it, from the default up to a day after the create: a payment link a customer pays later,
 * a bank transfer they make tomorrow morning. Never sooner than the default, so the sandbox's ten-
 * minute `pending` outcome still fails with `timeout` before its charge could expire.
 */
export const CHARGE_LIFETIME_MS = 15 * 60_000;
export const CHARGE_LIFETIME_MAX_MS = 24 * 3_600_000;
/** Either bound takes a minute more: a merchant who sends "now + 15 minutes" by their clock is not refused for the request's transit or a clock a little apart. */
export const CHARGE_EXPIRY_ALLOWANCE_MS = 60_000;

/**
 * Milliseconds of an RFC 3339 instant the schema accepted. A leap second (`23:59:60`) is valid RFC
 * 3339 that Date.parse refuses: it is the instant after `:59`, as POSIX time counts it.
 */
export function rfc3339Ms(text: string): number {
  const ms = Date.parse(text);
  if (!Number.isNaN(ms)) return ms;
  const leap = /^(.*:)60(\.\d+)?([zZ]|[+-]\d\d:\d\d)$/.exec(text);
  return leap ? Date.parse(`${leap[1]}59${leap[2] ?? ''}${leap[3]}`) + 1000 : NaN;
}

/** The charge's expiry: `requested` (an RFC 3339 instant, already validated) or the default, as ISO UTC. */
export function chargeExpiry(createdAt: Date, requested: string | undefined): string {
  return new Date(requested === undefined ? createdAt.getTime() + CHARGE_LIFETIME_MS : rfc3339Ms(requested)).toISOString();
}

/** Why `expiresAt` is refused for a charge created at `createdAt` (both ISO), or undefined when it is within the bounds. */
export function chargeExpiryProblem(createdAt: string, expiresAt: string): string | undefined {
  const lifetime = Date.parse(expiresAt) - Date.parse(createdAt);
  const tooSoon = lifetime < CHARGE_LIFETIME_MS - CHARGE_EXPIRY_ALLOWANCE_MS;
  if (!tooSoon && lifetime <= CHARGE_LIFETIME_MAX_MS + CHARGE_EXPIRY_ALLOWANCE_MS) return undefined;
  return `expires_at must be between 15 minutes and 24 hours after the charge is created (${createdAt} by the server's clock, a minute's allowance either way); ${expiresAt} is ${tooSoon ? 'too soon' : 'too late'}. Nothing was created.`;
}

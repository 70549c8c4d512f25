import type { FailureClass } from '../domain/failure-classes';

/**
 * The partner's reason codes (MoMo Open API error reasons, in a 4xx answer's `code` or a FAILED
 * status's `reason`) and our failure_class for each (SPEC 7). docs/partner-rail.md, "Reasons".
 */
export const MOMO_REASONS: Readonly<Record<string, FailureClass>> = {
  PAYER_NOT_FOUND: 'invalid_recipient',
  PAYEE_NOT_FOUND: 'invalid_recipient',
  PAYEE_NOT_ALLOWED_TO_RECEIVE: 'invalid_recipient',
  NOT_ENOUGH_FUNDS: 'insufficient_funds',
  PAYER_LIMIT_REACHED: 'limit_exceeded',
  PAYEE_LIMIT_REACHED: 'limit_exceeded',
  APPROVAL_REJECTED: 'declined',
  PAYMENT_NOT_APPROVED: 'declined',
  TRANSACTION_CANCELED: 'declined',
  NOT_ALLOWED: 'declined',
  EXPIRED: 'timeout',
  SERVICE_UNAVAILABLE: 'partner_unavailable',
  INTERNAL_PROCESSING_ERROR: 'partner_unavailable',
  COULD_NOT_PERFORM_TRANSACTION: 'partner_unavailable',
};

/**
 * A reason the map does not name (a code the partner adds later, INVALID_CURRENCY, a FAILED status
 * without a reason, …) is a refusal we cannot explain better: `declined`. The raw reason is kept
 * beside the class, so nothing is lost.
 */
export const UNMAPPED_REASON_CLASS: FailureClass = 'declined';

/**
 * Reasons that say our configuration is wrong, not the payment: refusing the payment for them would
 * fail every payment for an operator's mistake, so the adapter throws RailMisconfigured instead.
 */
export const MISCONFIGURATION_REASONS: ReadonlySet<string> = new Set([
  'NOT_ALLOWED_TARGET_ENVIRONMENT',
  'INVALID_CALLBACK_URL_HOST',
  'RESOURCE_NOT_FOUND',
]);

/** The partner's answer to a second submission of a reference (HTTP 409). */
export const DUPLICATE_REFERENCE_REASON = 'RESOURCE_ALREADY_EXIST';

/** Our failure_class for a partner reason (`declined` for one we do not know). */
export function failureClassOf(reason: string | undefined | null): FailureClass {
  const code = reason?.trim().toUpperCase();
  return (code && Object.hasOwn(MOMO_REASONS, code) ? MOMO_REASONS[code] : undefined) ?? UNMAPPED_REASON_CLASS;
}

/**
 * The reason code in a partner body: `{"code": "PAYER_NOT_FOUND"}` (an error answer), `{"reason":
 * "NOT_ENOUGH_FUNDS"}` (a status), or `{"reason": {"code": …, "message": …}}` (older API versions).
 */
export function reasonCodeOf(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const { code, reason } = body as { code?: unknown; reason?: unknown };
  const candidate = typeof reason === 'string' ? reason : typeof reason === 'object' && reason !== null ? (reason as { code?: unknown }).code : code;
  if (typeof candidate !== 'string') return undefined;
  const trimmed = candidate.trim();
  return /^[A-Za-z0-9_]{1,64}$/.test(trimmed) ? trimmed.toUpperCase() : undefined;
}

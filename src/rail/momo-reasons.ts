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
 * The error table's retry-elsewhere column (issue 46, docs/partner-rail.md "Routing and failover"):
 * the reasons that, as the refusal of a first submission, say the partner itself cannot take the
 * payment now (its own trouble or its account's), not the customer or the payment: the partner kept
 * nothing, so another partner may be tried. A refusal for the customer (PAYER_NOT_FOUND,
 * NOT_ENOUGH_FUNDS, limits, a rejection) is final everywhere: trying elsewhere would prompt the same
 * customer again for the same answer. A FAILED status is never read with this column: it comes after
 * the partner acknowledged the request, and then only that partner's word ends the payment.
 */
export const MOMO_RETRY_ELSEWHERE: ReadonlySet<string> = new Set(['SERVICE_UNAVAILABLE', 'INTERNAL_PROCESSING_ERROR', 'COULD_NOT_PERFORM_TRANSACTION']);

/** Whether a first submission's refusal for this reason may be tried on another partner (MOMO_RETRY_ELSEWHERE). */
export function momoRetryElsewhere(reason: string | undefined | null): boolean {
  return MOMO_RETRY_ELSEWHERE.has(reason?.trim().toUpperCase() ?? '');
}

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

/**
 * The partner's refusals of a refund (`POST /disbursement/v1_0/refund`, issue 45), as the modelled
 * protocol names them and the fake partner plays them (src/rail/fake-partner/refunds.ts;
 * docs/partner-rail.md, "Refunds"). Each is a 4xx with its code, so the adapter answers `refused`
 * with the code and its class: NOT_ALLOWED is in the map (`declined`); the others are not, so they
 * are `declined` as every reason the map does not name: a refund the partner will not make, whatever
 * the cause. None is a misconfiguration reason: RESOURCE_NOT_FOUND (the reason of a path the partner
 * does not serve) is not used for an unknown request-to-pay, so that a refund of one is refused, not
 * taken for a wrong PARTNER_BASE_URL.
 */
export const REFUND_REFUSAL = {
  /** 404: `referenceIdToRefund` names no request-to-pay the partner keeps. */
  unknownOriginal: 'REFERENCE_ID_TO_REFUND_NOT_FOUND',
  /** 400: the request-to-pay is not SUCCESSFUL (still PENDING, or FAILED): nothing to refund. */
  notSuccessful: 'NOT_ALLOWED',
  /** 400: the refund's currency is not the request-to-pay's. */
  otherCurrency: 'INVALID_CURRENCY',
  /** 400: this refund and the request-to-pay's refunds not FAILED would exceed its amount. */
  exceedsOriginal: 'REFUND_EXCEEDS_ORIGINAL_AMOUNT',
} as const;

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

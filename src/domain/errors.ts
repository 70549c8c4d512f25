/** Error codes of INTERFACE.md "Errors", with their HTTP status. */
export const ERROR_STATUS = {
  invalid_request: 400,
  idempotency_key_required: 400,
  invalid_webhook_url: 400,
  invalid_api_key: 401,
  environment_mismatch: 403,
  insufficient_scope: 403,
  identity_verification_required: 403,
  not_found: 404,
  method_not_allowed: 405,
  request_timeout: 408,
  events_expired: 410,
  request_too_large: 413,
  idempotency_key_in_use: 409,
  endpoint_disabled: 409,
  delivery_not_waiting: 409,
  nothing_to_advance: 409,
  dispute_already_open: 409,
  evidence_not_accepted: 409,
  idempotency_key_reused: 422,
  insufficient_balance: 422,
  amount_exceeds_refundable: 422,
  charge_not_refundable: 422,
  charge_not_disputable: 422,
  amount_exceeds_disputable: 422,
  endpoint_limit_reached: 422,
  amount_limit_exceeded: 422,
  expires_at_out_of_range: 422,
  recover_since_out_of_range: 422,
  rate_limited: 429,
  request_headers_too_large: 431,
  internal_error: 500,
  service_unavailable: 503,
  live_unavailable: 503,
  partner_timeout: 504,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

const ERROR_TYPE: Partial<Record<ErrorCode, string>> = {
  invalid_api_key: 'authentication_error',
  environment_mismatch: 'permission_error',
  insufficient_scope: 'permission_error',
  identity_verification_required: 'permission_error',
  rate_limited: 'rate_limit_error',
  internal_error: 'api_error',
  service_unavailable: 'api_error',
  live_unavailable: 'api_error',
  partner_timeout: 'partner_error',
  idempotency_key_in_use: 'idempotency_error',
  idempotency_key_reused: 'idempotency_error',
};

/** `Retry-After` (seconds) sent with every 503 `service_unavailable`. */
export const SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS = 2;

export interface ErrorExtras {
  param?: string;
  failure_class?: string;
  transaction_id?: string;
}

/** The one error type of the API; rendered in one place into the documented envelope. */
export class ApiError extends Error {
  readonly status: number;
  readonly type: string;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly extras: ErrorExtras = {},
  ) {
    super(message);
    this.status = ERROR_STATUS[code];
    this.type = ERROR_TYPE[code] ?? 'invalid_request_error';
  }
}

import type { FailureClass } from '../../domain/failure-classes';

/**
 * The aggregator's errors (docs/aggregator.md, "Errors"): one table, read by the adapter and played
 * by the fake. Each code has the message the aggregator sends with it (Flutterwave's wording where
 * it has one; Flutterwave sends only the message, the `code` is a deviation of the model, and the
 * adapter matches the message when an answer names no code), the HTTP status the fake answers it
 * with, our failure_class (SPEC 7), and how the adapter handles it as the answer to a submission:
 *
 * - `refused`: refused and final. The aggregator kept nothing: `{kind: 'refused'}`.
 * - `retry`: retry the same request (RailUnavailable). Safe because a repeated reference is a
 *   duplicate, never a second payment.
 * - `ask_status`: ask the status first. The answer does not say whether the aggregator kept the
 *   reference (it may refuse a copy of one it is processing): the adapter asks the status of our
 *   reference; a reference it knows is a `duplicate` (follow its status), one it does not know makes
 *   the refusal final.
 * - `misconfigured`: our configuration, not the payment (RailMisconfigured, not retryable).
 *
 * In a failed status (a charge's `processor_response`, a transfer's `complete_message`, a refund's)
 * only the failure_class is read: the transaction is final whatever its handling says. A 5xx or a
 * 429 is `retry` whatever code it names.
 */
export type ErrorHandling = 'refused' | 'retry' | 'ask_status' | 'misconfigured';

export interface AggregatorErrorEntry {
  /** The message the fake sends, then the other wordings the aggregator uses for it (matched by prefix, case and spacing ignored). */
  messages: readonly [string, ...string[]];
  httpStatus: number;
  failureClass: FailureClass;
  handling: ErrorHandling;
  /** Where it is met: an error answer to a call, a failed transaction's status, or both. */
  seen: 'answer' | 'status' | 'both';
  /**
   * The retry-elsewhere column (issue 46, docs/partner-rail.md "Routing and failover"): as the
   * refusal (`refused`) of a first submission, the aggregator's own inability to take the payment
   * (not the customer's, not the payment's), so it kept nothing and another partner may be tried.
   * Read only for a submission's refusal; a failed status is never failed over.
   */
  elsewhere?: true;
}

export const AGGREGATOR_ERRORS = {
  INVALID_PHONE: { messages: ['Invalid phone number', 'Phone number is not valid'], httpStatus: 400, failureClass: 'invalid_recipient', handling: 'refused', seen: 'answer' },
  INVALID_ACCOUNT: { messages: ['Account resolve failed', 'Invalid account number'], httpStatus: 400, failureClass: 'invalid_recipient', handling: 'refused', seen: 'both' },
  INVALID_BANK: { messages: ['Invalid bank code', 'Invalid account_bank'], httpStatus: 400, failureClass: 'invalid_recipient', handling: 'refused', seen: 'answer' },
  RECIPIENT_NOT_ALLOWED: { messages: ['Recipient cannot receive funds'], httpStatus: 400, failureClass: 'invalid_recipient', handling: 'refused', seen: 'status' },
  INSUFFICIENT_FUNDS: { messages: ['Insufficient funds', 'Insufficient funds in customer account'], httpStatus: 400, failureClass: 'insufficient_funds', handling: 'refused', seen: 'status' },
  INSUFFICIENT_BALANCE: { messages: ['Insufficient balance in wallet', 'DISBURSE FAILED: Insufficient funds in customer wallet'], httpStatus: 400, failureClass: 'partner_unavailable', handling: 'retry', seen: 'both' },
  AMOUNT_ABOVE_LIMIT: { messages: ['Amount exceeds the maximum allowed', 'Transaction limit exceeded'], httpStatus: 400, failureClass: 'limit_exceeded', handling: 'refused', seen: 'both' },
  AMOUNT_BELOW_MINIMUM: { messages: ['Amount is below the minimum allowed'], httpStatus: 400, failureClass: 'limit_exceeded', handling: 'refused', seen: 'answer' },
  UNSUPPORTED_CURRENCY: { messages: ['Currency not supported for this payment type', 'Invalid currency'], httpStatus: 400, failureClass: 'declined', handling: 'refused', seen: 'answer', elsewhere: true },
  UNSUPPORTED_PAYMENT_TYPE: { messages: ['Invalid charge type'], httpStatus: 400, failureClass: 'declined', handling: 'refused', seen: 'answer', elsewhere: true },
  SERVICE_DECLINING: { messages: ['This payment option is temporarily unavailable'], httpStatus: 400, failureClass: 'partner_unavailable', handling: 'refused', seen: 'answer', elsewhere: true },
  CARD_NOT_AVAILABLE: { messages: ['Card charges are not available on this account yet'], httpStatus: 400, failureClass: 'declined', handling: 'refused', seen: 'answer' },
  INVALID_CARD: { messages: ['Invalid card number', 'Invalid card details'], httpStatus: 400, failureClass: 'declined', handling: 'refused', seen: 'answer' },
  EXPIRED_CARD: { messages: ['Card has expired', 'Expired card'], httpStatus: 400, failureClass: 'declined', handling: 'refused', seen: 'answer' },
  ISSUER_DECLINED: { messages: ['Do Not Honour', 'Do not honor', 'Declined by the card issuer'], httpStatus: 400, failureClass: 'declined', handling: 'refused', seen: 'status' },
  INVALID_OTP: { messages: ['Invalid OTP', 'Incorrect OTP'], httpStatus: 400, failureClass: 'declined', handling: 'refused', seen: 'both' },
  INVALID_REQUEST: { messages: ['Invalid request'], httpStatus: 400, failureClass: 'declined', handling: 'refused', seen: 'answer' },
  CUSTOMER_DECLINED: { messages: ['Transaction declined by customer', 'Transaction was cancelled by the customer'], httpStatus: 400, failureClass: 'declined', handling: 'refused', seen: 'status' },
  CHARGE_TIMEOUT: { messages: ['Customer did not authorize in time', 'Transaction timed out'], httpStatus: 400, failureClass: 'timeout', handling: 'refused', seen: 'status' },
  ACCOUNT_EXPIRED: { messages: ['Bank transfer account expired before payment'], httpStatus: 400, failureClass: 'timeout', handling: 'refused', seen: 'status' },
  TRANSACTION_NOT_FOUND: { messages: ['No transaction was found for this id', 'No transaction was found'], httpStatus: 404, failureClass: 'declined', handling: 'refused', seen: 'answer' },
  REFUND_NOT_ALLOWED: { messages: ['Only successful transactions can be refunded'], httpStatus: 400, failureClass: 'declined', handling: 'refused', seen: 'answer' },
  REFUND_EXCEEDS_AMOUNT: { messages: ['Refund amount exceeds the amount left to refund', 'Refund amount cannot be greater than the transaction amount'], httpStatus: 400, failureClass: 'declined', handling: 'refused', seen: 'answer' },
  REFUND_CURRENCY_MISMATCH: { messages: ["Refund currency is not the transaction's currency"], httpStatus: 400, failureClass: 'declined', handling: 'refused', seen: 'answer' },
  TRANSACTION_IN_PROGRESS: { messages: ['A transaction with this reference is already being processed'], httpStatus: 400, failureClass: 'declined', handling: 'ask_status', seen: 'answer' },
  PROCESSOR_TIMEOUT: { messages: ['The processor did not answer in time, verify the transaction'], httpStatus: 504, failureClass: 'partner_unavailable', handling: 'retry', seen: 'answer' },
  PROCESSOR_ERROR: { messages: ['Unable to process the transaction at this time', 'Something went wrong'], httpStatus: 500, failureClass: 'partner_unavailable', handling: 'retry', seen: 'both' },
  RATE_LIMITED: { messages: ['Too many requests'], httpStatus: 429, failureClass: 'partner_unavailable', handling: 'retry', seen: 'answer' },
  INVALID_AUTHORIZATION: { messages: ['Invalid authorization key', 'Authorization required'], httpStatus: 401, failureClass: 'partner_unavailable', handling: 'misconfigured', seen: 'answer' },
  IP_NOT_WHITELISTED: { messages: ['Please whitelist your IP', 'IP address not whitelisted'], httpStatus: 403, failureClass: 'partner_unavailable', handling: 'misconfigured', seen: 'answer' },
  TRANSFERS_DISABLED: { messages: ['Transfers via API are not enabled on this account'], httpStatus: 403, failureClass: 'partner_unavailable', handling: 'misconfigured', seen: 'answer' },
  ENCRYPTION_FAILED: { messages: ['Unable to decrypt the card payload', 'Encryption failed'], httpStatus: 400, failureClass: 'partner_unavailable', handling: 'misconfigured', seen: 'answer' },
} as const satisfies Record<string, AggregatorErrorEntry>;

export type AggregatorErrorCode = keyof typeof AGGREGATOR_ERRORS;

/**
 * A second submission of a reference the aggregator keeps (a charge's tx_ref, a transfer's or a
 * refund's reference): HTTP 409 with this code, the kept object as `data` (and a bank transfer's
 * instructions as `meta.authorization`). Not in the table: it is neither a refusal nor a failure,
 * the adapter answers `duplicate`. A deviation: Flutterwave answers a repeated tx_ref with a 400 and
 * a message, which the adapter also reads (DUPLICATE_MESSAGES).
 */
export const DUPLICATE_REFERENCE = { code: 'DUPLICATE_REFERENCE', httpStatus: 409, message: 'A transaction with this reference already exists' } as const;
export const DUPLICATE_MESSAGES: readonly string[] = [DUPLICATE_REFERENCE.message, 'Duplicate transaction reference', 'Transfer with this reference already exists'];

/** The reason of a failed status that names none, and of an error whose code and message we cannot read. */
export const UNSPECIFIED_REASON = 'UNSPECIFIED';

/** An error answer the table does not name (a message added later): ask the status first, and if the aggregator does not know the reference, `declined`. */
export const UNKNOWN_ERROR: Pick<AggregatorErrorEntry, 'failureClass' | 'handling'> = { failureClass: 'declined', handling: 'ask_status' };

function normalise(text: string): string {
  return text.trim().toLowerCase().replace(/\s+/g, ' ');
}

function isCode(code: string): code is AggregatorErrorCode {
  return Object.hasOwn(AGGREGATOR_ERRORS, code);
}

/** The table's code for an answer's `code`, else for its message (by prefix); undefined when neither is known. */
export function errorCodeOf(code: unknown, message: unknown): AggregatorErrorCode | undefined {
  if (typeof code === 'string' && isCode(code.trim().toUpperCase())) return code.trim().toUpperCase() as AggregatorErrorCode;
  if (typeof message !== 'string' || message.trim() === '') return undefined;
  const said = normalise(message);
  for (const [known, entry] of Object.entries(AGGREGATOR_ERRORS) as Array<[AggregatorErrorCode, AggregatorErrorEntry]>) {
    if (entry.messages.some((m) => said.startsWith(normalise(m)))) return known;
  }
  return undefined;
}

/** Whether an error answer says the reference is already kept (a duplicate), by its code or its message. */
export function isDuplicateAnswer(code: unknown, message: unknown): boolean {
  if (typeof code === 'string' && code.trim().toUpperCase() === DUPLICATE_REFERENCE.code) return true;
  return typeof message === 'string' && DUPLICATE_MESSAGES.some((m) => normalise(message).startsWith(normalise(m)));
}

/**
 * The reason we record for an error or a failure the table does not name: its code if it reads as
 * one, else its message as a code (`Something new happened` → `SOMETHING_NEW_HAPPENED`, at most 64
 * characters), else UNSPECIFIED_REASON. The raw words are the aggregator's, but a run of six digits
 * or more becomes `N` (a card number, an account or a phone number echoed in a message is never kept
 * as a reason).
 */
export function reasonOf(code: unknown, message: unknown): string {
  // Six digits or more, spaces, dashes, dots or underscores between them allowed (a card number in groups of four).
  const digitsMasked = (text: string) => text.replace(/[0-9](?:[\s._-]{0,2}[0-9]){5,}/g, 'N');
  if (typeof code === 'string' && /^[A-Za-z0-9_]{1,64}$/.test(code.trim())) return digitsMasked(code.trim().toUpperCase());
  if (typeof message === 'string') {
    const slug = digitsMasked(message.trim()).toUpperCase().replace(/[^A-Z0-9]+/g, '_').replace(/^_+|_+$/g, '').slice(0, 64).replace(/_+$/, '');
    if (slug) return slug;
  }
  return UNSPECIFIED_REASON;
}

/** How to read an error answer or a failure: the reason we record, its failure_class and the handling of the table (UNKNOWN_ERROR's when it names none). */
export function classifyError(code: unknown, message: unknown): { reason: string; failureClass: FailureClass; handling: ErrorHandling; known: boolean; elsewhere: boolean } {
  const known = errorCodeOf(code, message);
  if (known) {
    const entry: AggregatorErrorEntry = AGGREGATOR_ERRORS[known];
    return { reason: known, failureClass: entry.failureClass, handling: entry.handling, known: true, elsewhere: entry.elsewhere === true };
  }
  return { reason: reasonOf(code, message), ...UNKNOWN_ERROR, known: false, elsewhere: false };
}

/** The error answer the fake sends for a code: `{status: 'error', code, message, data: null}` and its HTTP status; `message` replaces the table's wording when given. */
export function errorAnswer(code: AggregatorErrorCode, message?: string): { status: number; body: { status: 'error'; code: string; message: string; data: null } } {
  const entry: AggregatorErrorEntry = AGGREGATOR_ERRORS[code];
  return { status: entry.httpStatus, body: { status: 'error', code, message: message ?? entry.messages[0], data: null } };
}

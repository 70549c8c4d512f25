import type { RailStatus, RailStatusAmount } from './partner-rail';
import { parseMomoAmount } from './momo-amount';
import { failureClassOf, reasonCodeOf } from './momo-reasons';

/** The reason recorded for a FAILED status that names none (its class: `declined`). */
export const UNSPECIFIED_REASON = 'UNSPECIFIED';

/**
 * Statuses beside PENDING, SUCCESSFUL and FAILED that some MoMo markets and API versions send,
 * read as their nearest meaning; the reason they imply when the body names none.
 */
const PENDING_ALIASES = new Set(['PENDING', 'CREATED', 'ONGOING']);
const FAILED_ALIASES: Record<string, string | undefined> = { FAILED: undefined, REJECTED: 'APPROVAL_REJECTED', TIMEOUT: 'EXPIRED' };

/**
 * A status GET answer or a callback body (`{"status": "SUCCESSFUL", "financialTransactionId": …}`,
 * `{"status": "FAILED", "reason": "NOT_ENOUGH_FUNDS"}`) as a RailStatus; undefined when it is not
 * such a body (not an object, no status, a status we do not know).
 *
 * A SUCCESSFUL without a financialTransactionId is still a success (the money moved; the id is the
 * partner's, for reconciliation): it reads as an empty string.
 *
 * A SUCCESSFUL or FAILED also carries the body's `amount` (the partner's decimal string of major
 * units, read back to minor units) and `currency` when the body names them: see amountOf.
 */
export function parseMomoStatus(body: unknown): RailStatus | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const { status, financialTransactionId } = body as { status?: unknown; financialTransactionId?: unknown };
  if (typeof status !== 'string') return undefined;
  const word = status.trim().toUpperCase();
  if (PENDING_ALIASES.has(word)) return { status: 'pending' };
  if (word === 'SUCCESSFUL') {
    const id = typeof financialTransactionId === 'string' || typeof financialTransactionId === 'number' ? String(financialTransactionId) : '';
    return { status: 'succeeded', financialTransactionId: id, ...amountOf(body) };
  }
  if (Object.hasOwn(FAILED_ALIASES, word)) {
    const reason = reasonCodeOf(body) ?? FAILED_ALIASES[word] ?? UNSPECIFIED_REASON;
    return { status: 'failed', reason, failureClass: failureClassOf(reason), ...amountOf(body) };
  }
  return undefined;
}

/**
 * The body's `currency` (trimmed, upper case) and `amount` in minor units of it, each only when
 * present and readable: an amount without a currency, or one that is not a plain decimal with at
 * most the currency's decimals (parseMomoAmount), is left out rather than guessed.
 */
export function amountOf(body: object): RailStatusAmount {
  const { amount, currency } = body as { amount?: unknown; currency?: unknown };
  if (typeof currency !== 'string' || currency.trim() === '') return {};
  const code = currency.trim().toUpperCase();
  const text = typeof amount === 'string' ? amount : typeof amount === 'number' && Number.isFinite(amount) ? String(amount) : undefined;
  const minor = text === undefined ? undefined : parseMomoAmount(text, code);
  return minor === undefined ? { currency: code } : { amount: minor, currency: code };
}

/** JSON text to a value, undefined when it is not JSON. */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

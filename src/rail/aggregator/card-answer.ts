import type { FailureClass } from '../../domain/failure-classes';
import { cardBrand, cardDigits, lastFour, type CardInput } from './card-input';
import { classifyError, UNSPECIFIED_REASON } from './errors';

/**
 * Reading the aggregator's card answers (docs/aggregator.md, "Cards") into what the card client
 * returns: the card as the aggregator kept it, the challenge the customer must pass, the charge's
 * flw_ref; and every reason as a code that cannot carry a card number (no digits at all).
 */

export interface CardSummary {
  /** Lower case: `visa`, `mastercard`, `verve`, `amex`, … */
  brand: string;
  last4: string;
  /** The aggregator's token of the card, when it gives one. */
  token?: string;
}

export type CardChallenge =
  /** Ask the customer for the code the issuer sent; `prompt` is the aggregator's words for them. Then `validateOtp`. */
  | { mode: 'otp'; prompt: string }
  /** Send the customer's browser to the issuer's 3-D Secure page; it comes back to the charge's redirectUrl. */
  | { mode: 'redirect'; url: string };

/** Shown when the aggregator gives no words of its own (or words we will not repeat). */
export const DEFAULT_OTP_PROMPT = 'Enter the one-time code (OTP) your bank sent you to approve this payment.';
const MAX_PROMPT_LENGTH = 200;

export function objectOf(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

/** A run of twelve digits or more (spaces and dashes between them allowed): what a card number looks like. */
const LONG_DIGIT_RUN = /[0-9](?:[\s-]?[0-9]){11,}/;

/**
 * A reason to record and return for an error or a failure: the table's code, else the answer's own
 * code when it is upper-case letters and underscores only, else UNSPECIFIED_REASON. Never the
 * message's words, never a digit: a broken aggregator echoing the card in its message or code cannot
 * put it into our reason.
 */
export function cardReason(code: unknown, message: unknown): { reason: string; failureClass: FailureClass; handling: ReturnType<typeof classifyError>['handling'] } {
  const read = classifyError(code, message);
  if (read.known) return read;
  const own = typeof code === 'string' && /^[A-Z_]{1,64}$/.test(code.trim().toUpperCase()) ? code.trim().toUpperCase() : UNSPECIFIED_REASON;
  return { ...read, reason: own };
}

/** A brand as the aggregator writes it (`VISA`, `MASTERCARD`, `AMERICAN EXPRESS`) in our words. */
export function brandOf(type: string): string {
  const word = type.trim().toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '');
  return word === 'american-express' ? 'amex' : word === 'diners-club' ? 'diners' : word || 'unknown';
}

/** The charge's `card` as a CardSummary; undefined when it has no last four digits we can read. */
export function summaryOf(card: unknown): CardSummary | undefined {
  const c = objectOf(card);
  const last4 = text(c?.last_4digits);
  if (!c || !last4 || !/^[0-9]{4}$/.test(last4)) return undefined;
  const token = text(c.token);
  return {
    brand: brandOf(text(c.type) ?? 'unknown'),
    last4,
    ...(token && token.length <= 200 && !/\s/.test(token) && !LONG_DIGIT_RUN.test(token) ? { token } : {}),
  };
}

/** Our own summary of the card we sent: its brand from its prefix, its last four digits. */
export function localSummary(card: CardInput): CardSummary {
  return { brand: cardBrand(card.number), last4: lastFour(card.number) };
}

/**
 * The challenge of a pending charge (`meta.authorization` of the answer, else of the charge):
 * `otp` (the prompt: the charge's `processor_response`), `redirect` (an http(s) URL); null when the
 * charge asks for nothing; `unsupported` for a mode we do not play (Flutterwave's `pin`,
 * `avs_noauth`) or a redirect without a URL we can send a browser to.
 */
export function challengeOf(envelopeMeta: unknown, data: Record<string, unknown>, card?: CardInput): CardChallenge | null | 'unsupported' {
  const authorization = objectOf(objectOf(envelopeMeta)?.authorization) ?? objectOf(objectOf(data.meta)?.authorization);
  if (!authorization) return null;
  const mode = text(authorization.mode)?.toLowerCase();
  if (mode === 'otp') return { mode: 'otp', prompt: promptOf(data.processor_response, card) };
  if (mode === 'redirect') {
    const url = text(authorization.redirect);
    // A page whose address carries the card (a broken aggregator echoing it) is never sent to a browser.
    const carriesCard = card !== undefined && url !== undefined && url.replace(/[^0-9]/g, '').includes(cardDigits(card.number));
    return url && isBrowserUrl(url) && !carriesCard ? { mode: 'redirect', url } : 'unsupported';
  }
  return 'unsupported';
}

/** The aggregator's words for the customer, unless they could carry the card (a long digit run, the number itself, the CVV as a word). */
function promptOf(words: unknown, card?: CardInput): string {
  const said = text(words)?.slice(0, MAX_PROMPT_LENGTH);
  if (!said || LONG_DIGIT_RUN.test(said)) return DEFAULT_OTP_PROMPT;
  if (card && (said.replace(/[\s-]/g, '').includes(cardDigits(card.number)) || new RegExp(`(^|[^0-9])${card.cvv}([^0-9]|$)`).test(said))) return DEFAULT_OTP_PROMPT;
  return said;
}

export function isBrowserUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'https:' || url.protocol === 'http:') && !url.username && !url.password && value.length <= 2048;
  } catch {
    return false;
  }
}

/** The aggregator's flw_ref of a charge (the OTP step names it), when it is one. */
export function flwRefOf(data: Record<string, unknown>): string | undefined {
  const ref = text(data.flw_ref);
  return ref && /^[A-Za-z0-9_.:-]{1,100}$/.test(ref) ? ref : undefined;
}

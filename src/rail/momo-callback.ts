import { createHmac, timingSafeEqual } from 'node:crypto';
import type { RailCallback, RailResource } from './partner-rail';
import type { PartnerConfig } from './partner-config';
import { isRailResource, isReferenceId } from './momo-protocol';
import { parseJson, parseMomoStatus } from './momo-status';

/**
 * The partner's callbacks and how we know they are the partner's (docs/partner-rail.md, "Callbacks").
 *
 * The public MoMo API signs no callback: it PUTs the transaction's status to the `X-Callback-Url` of
 * the submission. So the URL itself is the credential: we give each submission its own URL, carrying
 * `token` = HMAC-SHA256(PARTNER_CALLBACK_SECRET, `<resource>:<referenceId>`) in base64url. Only who
 * received the submission (the partner) knows it; it fits one resource and one reference, no other.
 * The resource (RailResource) is what the reference names: `collection` (a request-to-pay),
 * `disbursement` (a transfer) or `refund` (a refund, issue 45); the route's `:product` segment
 * carries it, and the callback route looks the reference up by it (rail_references.product).
 *
 * A callback is a wake-up, never a fact: the engine does not act on its body. The workflow asks the
 * status (GET) and acts on that answer, so a forged body that passed, a replay or a callback out of
 * order cannot move money or state.
 */

/** The callback route on the live listener (Koa path syntax); the lead's handler mounts it. */
export const CALLBACK_ROUTE = '/partner/momo/callbacks/:product/:referenceId';

/** The URL's `token` for a resource and reference. */
export function callbackToken(secret: string, resource: RailResource, referenceId: string): string {
  return createHmac('sha256', secret).update(`${resource}:${referenceId}`).digest('base64url');
}

/** The `X-Callback-Url` of a submission: `${PARTNER_CALLBACK_BASE_URL}/partner/momo/callbacks/${resource}/${referenceId}?token=…`. */
export function callbackUrl(config: Pick<PartnerConfig, 'callbackBaseUrl' | 'callbackSecret'>, resource: RailResource, referenceId: string): string {
  const base = config.callbackBaseUrl.replace(/\/+$/, '');
  return `${base}/partner/momo/callbacks/${resource}/${encodeURIComponent(referenceId)}?token=${callbackToken(config.callbackSecret, resource, referenceId)}`;
}

export type CallbackRefusal = { refused: 'forged' | 'malformed' };

/**
 * Checks one callback as it arrived: the route's `product` (a RailResource: `collection`,
 * `disbursement` or `refund`) and `referenceId`, the query's `token` and the raw body.
 * - `forged`: the token is missing or is not ours for this resource and reference (compared in
 *   constant time), or the path names no resource or reference we could have issued;
 * - `malformed`: the token is right but the body is not a transaction status;
 * - else the callback, whose `claimed` status the workflow confirms with a status GET.
 * A replay of a genuine callback passes here (the URL is the same, and never expires): it is harmless
 * by design, since the body is never acted upon, and the route bounds what replays cost (one signal
 * per payment per CALLBACK_DEBOUNCE_MS, CALLBACK_SIGNAL_CAP in its life: callback-signal-store.ts).
 */
export function verifyCallback(
  config: Pick<PartnerConfig, 'callbackSecret'>,
  product: string,
  referenceId: string,
  token: string | undefined | null,
  rawBody: string | Buffer,
): RailCallback | CallbackRefusal {
  if (!isRailResource(product) || !isReferenceId(referenceId) || typeof token !== 'string') return { refused: 'forged' };
  const expected = Buffer.from(callbackToken(config.callbackSecret, product, referenceId));
  const given = Buffer.from(token);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { refused: 'forged' };
  const text = typeof rawBody === 'string' ? rawBody : rawBody.toString('utf8');
  const claimed = parseMomoStatus(parseJson(text));
  if (!claimed) return { refused: 'malformed' };
  return { product, referenceId, claimed };
}

/** What the callback route saw, for its answer and its log line. */
export type CallbackOutcome =
  /** Verified, and the reference is one of ours: the workflow is woken up. */
  | 'accepted'
  /** Verified, but no payment carries this reference. */
  | 'unknown_reference'
  /** Verified, and the payment is already final, as the callback says (a duplicate callback). */
  | 'replayed'
  /**
   * Verified, the payment is already final, and the callback contradicts how it ended (e.g. SUCCESSFUL
   * for a charge that expired): a late answer, flagged for a payment review (issue 29), never dropped.
   */
  | 'late'
  /**
   * Verified, but the payment was woken by a callback less than CALLBACK_DEBOUNCE_MS ago (a replay or
   * a duplicate): no signal; the wake-up already under way asks the partner (issue 30).
   */
  | 'debounced'
  /** Verified, but the payment has had its CALLBACK_SIGNAL_CAP signals: no more; its own status polls go on (issue 30). */
  | 'capped'
  | 'forged'
  | 'malformed';

export interface CallbackAnswer {
  status: number;
  /** Empty: MoMo reads nothing of our answer. */
  body: '';
  /** How loud the route logs it: forged, malformed, late and capped callbacks are warnings, the rest information. */
  logLevel: 'info' | 'warn';
  logMessage: string;
}

const LOG: Record<CallbackOutcome, Pick<CallbackAnswer, 'logLevel' | 'logMessage'>> = {
  accepted: { logLevel: 'info', logMessage: 'partner callback accepted: the payment confirms it with a status request' },
  unknown_reference: { logLevel: 'info', logMessage: 'partner callback for a reference no payment carries: ignored' },
  replayed: { logLevel: 'info', logMessage: 'partner callback for a payment already final, as it says (a duplicate callback): nothing to do' },
  late: { logLevel: 'warn', logMessage: 'partner callback contradicts how the payment ended (a late answer): flagged for a payment review, which asks the partner and records late money' },
  debounced: { logLevel: 'info', logMessage: 'partner callback within the debounce window of the last one for this payment (a duplicate or a replay): no signal, the payment is already asking the partner' },
  capped: { logLevel: 'warn', logMessage: 'partner callback past the cap of signals for this payment (a replayed callback URL?): no signal, the payment keeps polling the partner' },
  forged: { logLevel: 'warn', logMessage: 'partner callback refused: its token is not ours for this reference (forged or damaged URL)' },
  malformed: { logLevel: 'warn', logMessage: 'partner callback with a valid token but a body that is not a transaction status: ignored' },
};

/**
 * Our answer to every callback, whatever we made of it: HTTP 200 with an empty body. MoMo expects
 * 200 and reads nothing of it, and the modelled protocol never retries a callback, so another
 * status would only put errors in the partner's logs; and a forger learns nothing from an answer
 * that is always the same. What we made of it goes to our log (never the token: a credential).
 */
export function callbackAnswer(outcome: CallbackOutcome): CallbackAnswer {
  return { status: 200, body: '', ...LOG[outcome] };
}

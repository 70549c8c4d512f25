/**
 * Merchant-side webhook verification (SPEC 6.2): self-contained, depends on node:crypto only, so
 * merchants can copy it or import it as is.
 *
 * A delivery is authentic when one `v1=` element of X-Service-Signature equals the lowercase hex
 * HMAC-SHA256, keyed with a signing secret, of `<X-Service-Timestamp>.<raw body bytes>`, and fresh
 * when that timestamp is within the tolerance of the receiver's clock.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

/** Largest accepted difference, in seconds, between X-Service-Timestamp and the receiver's clock. */
export const DEFAULT_TOLERANCE_SECONDS = 300;

/** Header carrying one or more comma-separated `v1=<hex>` signatures. */
export const SIGNATURE_HEADER = 'x-service-signature';

/** Header carrying the signed Unix timestamp (seconds, base 10). */
export const TIMESTAMP_HEADER = 'x-service-timestamp';

/** Why a delivery was refused. */
export type WebhookVerificationReason =
  | 'missing_header'
  | 'malformed_header'
  | 'timestamp_out_of_tolerance'
  | 'no_matching_signature'
  | 'malformed_payload';

/** Thrown by {@link verifyWebhook}; answer such a delivery with a 400. */
export class WebhookVerificationError extends Error {
  readonly reason: WebhookVerificationReason;

  constructor(reason: WebhookVerificationReason, message: string) {
    super(message);
    this.name = 'WebhookVerificationError';
    this.reason = reason;
  }
}

/** Options of {@link verifyWebhook}. */
export interface VerifyOptions {
  /** The endpoint's signing secret, or several (current and previous during a merchant-side rotation). */
  secrets: string | readonly string[];
  /** Defaults to {@link DEFAULT_TOLERANCE_SECONDS}. */
  toleranceSeconds?: number;
  /** The receiver's clock in milliseconds; defaults to `Date.now`. */
  now?: () => number;
}

/** The delivered event (SPEC 2.2). */
export interface WebhookEvent {
  id: string;
  object: 'event';
  type: string;
  resource_type: string;
  resource_id: string;
  transaction_id?: string;
  sequence: number;
  created_at: string;
  data: unknown;
}

/** Request headers as Node (`IncomingHttpHeaders`), fetch (`Headers`) or a plain object give them. */
export type WebhookHeaders = Record<string, string | string[] | undefined> | Headers;

const HEX_SHA256 = /^[0-9a-f]{64}$/i;

function digest(secret: string, timestamp: string, payload: Buffer | string): Buffer {
  return createHmac('sha256', secret).update(timestamp, 'utf8').update('.').update(payload).digest();
}

/**
 * The `v1=<lowercase hex>` signature of a payload, as the service computes it: handy for building
 * signed requests in a merchant's own tests.
 */
export function computeSignature(secret: string, timestamp: string, payload: Buffer | string): string {
  return `v1=${digest(secret, timestamp, payload).toString('hex')}`;
}

/** Case-insensitive header lookup; repeated headers are joined with a comma. */
function header(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const record = headers as Record<string, string | string[] | undefined>;
  const values: string[] = [];
  for (const key of Object.keys(record)) {
    const value = record[key];
    if (key.toLowerCase() !== name || value === undefined) continue;
    values.push(...(Array.isArray(value) ? value : [value]));
  }
  return values.length > 0 ? values.join(',') : undefined;
}

function required(headers: WebhookHeaders, name: string): string {
  const value = header(headers, name)?.trim();
  if (!value) throw new WebhookVerificationError('missing_header', `the ${name} header is missing`);
  return value;
}

/**
 * The signatures of the header, decoded. Elements of other schemes (a future `v2=`) are skipped, and
 * so are `v1=` values that are not 64 hex digits as long as another one is usable.
 */
function signatures(value: string): Buffer[] {
  const found = value.split(',').map((e) => e.trim()).filter((e) => e.startsWith('v1=')).map((e) => e.slice(3));
  const usable = found.filter((hex) => HEX_SHA256.test(hex)).map((hex) => Buffer.from(hex, 'hex'));
  if (usable.length === 0) {
    const detail = found.length === 0 ? 'has no v1= element' : 'has no v1= element of 64 hex digits';
    throw new WebhookVerificationError('malformed_header', `the ${SIGNATURE_HEADER} header ${detail}`);
  }
  return usable;
}

function secretList(secrets: string | readonly string[]): readonly string[] {
  const list = typeof secrets === 'string' ? [secrets] : secrets;
  if (list.length === 0 || list.some((s) => typeof s !== 'string' || s === '')) {
    throw new TypeError('verifyWebhook needs at least one non-empty signing secret');
  }
  return list;
}

function parseEvent(payload: Buffer | string): WebhookEvent {
  let event: unknown;
  try {
    event = JSON.parse(typeof payload === 'string' ? payload : payload.toString('utf8'));
  } catch {
    throw new WebhookVerificationError('malformed_payload', 'the signed body is not JSON');
  }
  const e = event as Partial<WebhookEvent> | null;
  if (typeof e !== 'object' || e === null || typeof e.id !== 'string' || e.object !== 'event' || !Number.isSafeInteger(e.sequence)) {
    throw new WebhookVerificationError('malformed_payload', 'the signed body is not an event');
  }
  return e as WebhookEvent;
}

/**
 * Verifies a delivery and returns its event. The signature is checked before the timestamp, so
 * `timestamp_out_of_tolerance` is only reported for an authentic (replayed or delayed) delivery.
 *
 * @param payload the raw body exactly as received (prefer the Buffer: a string is signed as UTF-8).
 * @param headers the request headers, looked up case-insensitively.
 * @throws WebhookVerificationError when a header is missing or malformed, no signature matches any of
 *   the secrets, the timestamp is out of tolerance, or the signed body is not an event.
 * @throws TypeError when `options` has no usable secret or tolerance (a programming error).
 */
export function verifyWebhook(payload: Buffer | string, headers: WebhookHeaders, options: VerifyOptions): WebhookEvent {
  const secrets = secretList(options.secrets);
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  if (!(tolerance >= 0)) throw new TypeError('toleranceSeconds must be a non-negative number');

  const timestamp = required(headers, TIMESTAMP_HEADER);
  const received = signatures(required(headers, SIGNATURE_HEADER));
  if (!/^\d+$/.test(timestamp)) {
    throw new WebhookVerificationError('malformed_header', `the ${TIMESTAMP_HEADER} header is not Unix seconds in base 10`);
  }

  const matches = secrets.some((secret) => {
    const expected = digest(secret, timestamp, payload);
    return received.some((signature) => timingSafeEqual(signature, expected));
  });
  if (!matches) throw new WebhookVerificationError('no_matching_signature', 'no signature matches the signing secret');

  const nowSeconds = Math.floor((options.now ?? Date.now)() / 1000);
  if (Math.abs(nowSeconds - Number(timestamp)) > tolerance) {
    throw new WebhookVerificationError('timestamp_out_of_tolerance', `the timestamp is more than ${tolerance} s away from this clock`);
  }
  return parseEvent(payload);
}

import { createHash, timingSafeEqual } from 'node:crypto';
import type { RailCallback } from '../partner-rail';
import { isReferenceId } from '../momo-protocol';
import { parseJson } from '../momo-status';
import { WEBHOOK_HASH_HEADER, referenceOf, resourceOfEvent } from './protocol';
import { parseAggregatorStatus } from './status';

/**
 * The aggregator's webhooks and how we know they are its own (docs/aggregator.md, "Webhooks").
 *
 * Flutterwave POSTs every event of the account to one webhook URL, with the header `verif-hash`
 * carrying the secret hash set in its dashboard (AGGREGATOR_WEBHOOK_HASH): no signature of the body,
 * the hash itself is the credential. So:
 * - `forged`: the header is missing, repeated, or not our hash (compared in constant time: both sides
 *   hashed to the same length first, so neither the hash's length nor its bytes leak through timing);
 * - `malformed`: the hash is right but the body is not an event we read: not JSON, an event other than
 *   `charge.completed`, `transfer.completed` or `refund.completed`, no reference of ours (a UUID: the
 *   charge's `tx_ref`, the transfer's or refund's `reference`), or a status we do not know;
 * - else the callback, whose `claimed` status the engine confirms by asking the status (a webhook is
 *   a wake-up, never a fact: a forged body that passed, a replay or one out of order moves nothing).
 */
export function verifyAggregatorWebhook(
  secretHash: string,
  headers: Record<string, string | string[] | undefined>,
  rawBody: string,
): { refused: 'forged' | 'malformed' } | RailCallback {
  const given = headerValue(headers, WEBHOOK_HASH_HEADER);
  if (!secretHash || given === undefined || !sameSecret(given, secretHash)) return { refused: 'forged' };
  const body = parseJson(rawBody);
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return { refused: 'malformed' };
  const { event, data } = body as { event?: unknown; data?: unknown };
  const product = resourceOfEvent(event);
  if (!product) return { refused: 'malformed' };
  const referenceId = referenceOf(product, data);
  if (!isReferenceId(referenceId)) return { refused: 'malformed' };
  const claimed = parseAggregatorStatus(product, data);
  if (!claimed) return { refused: 'malformed' };
  return { product, referenceId: referenceId.toLowerCase(), claimed };
}

/** The header's one value (names compared without case); undefined when absent, empty or given more than once. */
function headerValue(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const values = Object.entries(headers)
    .filter(([key]) => key.toLowerCase() === name)
    .flatMap(([, value]) => (value === undefined ? [] : Array.isArray(value) ? value : [value]));
  return values.length === 1 && values[0] !== '' ? values[0] : undefined;
}

function sameSecret(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given, 'utf8').digest();
  const b = createHash('sha256').update(expected, 'utf8').digest();
  return timingSafeEqual(a, b);
}

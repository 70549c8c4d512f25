import type { IncomingHttpHeaders } from 'node:http';
import { MASK, maskUrl } from '../../fake-partner/recording';
import { parseJson } from '../../momo-status';
import { WEBHOOK_HASH_HEADER } from '../protocol';

/** A request the fake aggregator received, its secrets masked. */
export interface RecordedAggregatorRequest {
  at: number;
  method: string;
  /** The path and query, as received. */
  path: string;
  headers: Record<string, string>;
  /** The body as JSON when it is JSON, else its text; undefined when empty. */
  body: unknown;
}

/** A webhook the fake aggregator sent (or tried to). */
export interface SentWebhook {
  at: number;
  event: string;
  resource: string;
  referenceId: string;
  /** Where it went (a query's credentials masked). */
  url: string;
  body: unknown;
  /** The receiver's HTTP status, or why no answer came (the fake never retries). */
  outcome: { status: number } | { error: string };
}

/** Headers as recorded: Authorization keeps its scheme only; the webhook hash, cookies and anything named secret or key are masked. */
export function maskHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, raw] of Object.entries(headers)) {
    if (raw === undefined) continue;
    const value = Array.isArray(raw) ? raw.join(', ') : raw;
    if (name === 'authorization') out[name] = `${value.split(' ')[0] ?? ''} ${MASK}`.trim();
    else if (name === WEBHOOK_HASH_HEADER || name === 'cookie' || name.includes('secret') || name.includes('key') || name.includes('hash')) out[name] = MASK;
    else out[name] = value;
  }
  return out;
}

export { MASK, maskUrl };

/** Fields of a body recorded masked: a card charge's `client` (the card, encrypted) and a validation's `otp`. */
const MASKED_BODY_FIELDS = ['client', 'otp'] as const;

/** A request's body as recorded: JSON when it is JSON (MASKED_BODY_FIELDS masked), else its text; undefined when empty. */
export function recordedBody(text: string | null): unknown {
  if (!text) return undefined;
  const json = parseJson(text);
  if (json === undefined) return text;
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return json;
  const masked: Record<string, unknown> = { ...(json as Record<string, unknown>) };
  for (const field of MASKED_BODY_FIELDS) if (field in masked) masked[field] = MASK;
  return masked;
}

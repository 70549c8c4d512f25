import type { IncomingHttpHeaders } from 'node:http';

/** A request the fake partner received, with its secrets masked. */
export interface RecordedRequest {
  at: number;
  method: string;
  path: string;
  headers: Record<string, string>;
  /** The body as JSON when it is JSON, else its text; undefined when empty. */
  body: unknown;
}

/** A callback the fake partner sent (or tried to). */
export interface SentCallback {
  at: number;
  /** The reference's resource: `collection`, `disbursement` or `refund`. */
  product: string;
  referenceId: string;
  /** The X-Callback-Url, its `token` masked. */
  url: string;
  body: unknown;
  /** The receiver's HTTP status, or why no answer came (the fake never retries). */
  outcome: { status: number } | { error: string };
}

export const MASK = '[redacted]';

/** A URL with the values of its query's credentials (`token`, `key`, `secret`, …) masked. */
export function maskUrl(text: string): string {
  return text.replace(/([?&](?:token|key|secret|signature|sig|code)=)[^&#]*/gi, `$1${MASK}`);
}

/** Headers as recorded: Authorization keeps its scheme only, the subscription key is masked, the callback URL's token too. */
export function maskHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, raw] of Object.entries(headers)) {
    if (raw === undefined) continue;
    const value = Array.isArray(raw) ? raw.join(', ') : raw;
    if (name === 'authorization') out[name] = `${value.split(' ')[0] ?? ''} ${MASK}`.trim();
    else if (name === 'ocp-apim-subscription-key' || name === 'cookie' || name.includes('secret') || name.includes('api-key')) out[name] = MASK;
    else if (name === 'x-callback-url') out[name] = maskUrl(value);
    else out[name] = value;
  }
  return out;
}

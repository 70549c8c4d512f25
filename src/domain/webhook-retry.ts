/** Retry timing of webhook deliveries (INTERFACE.md "Webhooks"). Pure: callers pass time and randomness in. */

/** Delays after each failed attempt; the number of entries is the number of retries. */
export const DEFAULT_RETRY_SCHEDULE = '5s,5m,30m,2h,5h,10h,10h';

/** Jitter applied to every scheduled delay: ±20 %. */
export const RETRY_JITTER = 0.2;

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** Parses a duration such as `5s`, `30m`, `2h`, `5d` or `250ms`. */
export function parseDuration(text: string): number {
  const match = /^\s*(\d+)\s*(ms|s|m|h|d)\s*$/.exec(text);
  if (!match) throw new Error(`"${text}" is not a duration like 5s, 30m, 2h or 5d`);
  return Number(match[1]) * UNIT_MS[match[2]];
}

/** Parses WEBHOOK_RETRY_SCHEDULE: comma-separated durations, at least one. */
export function parseRetrySchedule(text: string): number[] {
  const delays = text.split(',').map(parseDuration);
  if (delays.length === 0 || delays.some((d) => d <= 0)) throw new Error(`retry schedule "${text}" needs positive durations`);
  return delays;
}

/** A scheduled delay with jitter; `unit` is a uniform random number in [0, 1). */
export function jittered(delayMs: number, unit: number): number {
  return Math.round(delayMs * (1 - RETRY_JITTER + 2 * RETRY_JITTER * unit));
}

/**
 * Reads a Retry-After header (delta seconds or an HTTP date) into milliseconds from `nowMs`;
 * null when absent or unreadable.
 */
export function parseRetryAfter(header: string | undefined, nowMs: number): number | null {
  if (!header) return null;
  const text = header.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  // Only the HTTP-date form (IMF-fixdate, RFC 9110), e.g. "Sun, 22 Nov 2026 08:00:00 GMT".
  if (!/^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/.test(text)) return null;
  const at = Date.parse(text);
  return Number.isNaN(at) ? null : Math.max(0, at - nowMs);
}

/**
 * The wait before the next attempt: the jittered schedule delay, or for a 429 or 503 with a
 * Retry-After, that value held within [delay, 2 × delay].
 */
export function nextRetryDelay(jitteredDelayMs: number, statusCode: number | null, retryAfterMs: number | null): number {
  if (retryAfterMs === null || (statusCode !== 429 && statusCode !== 503)) return jitteredDelayMs;
  return Math.min(2 * jitteredDelayMs, Math.max(jitteredDelayMs, retryAfterMs));
}

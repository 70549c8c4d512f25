/** Endpoint health and the auto-disable rule (INTERFACE.md "Webhooks"). */

export interface DisableRule {
  /** WEBHOOK_DISABLE_AFTER_FAILURES, default 10. */
  failures: number;
  /** WEBHOOK_DISABLE_AFTER, default 5 days, in ms. */
  afterMs: number;
}

export const DEFAULT_DISABLE_RULE: DisableRule = { failures: 10, afterMs: 5 * 86_400_000 };

/**
 * True when an active endpoint must be disabled: at least `failures` consecutive failed attempts and
 * the first of them at least `afterMs` before `nowMs`.
 */
export function shouldAutoDisable(rule: DisableRule, consecutiveFailures: number, streakStartedAtMs: number, nowMs: number): boolean {
  return consecutiveFailures >= rule.failures && nowMs - streakStartedAtMs >= rule.afterMs;
}

/** Why an attempt failed, in words a merchant can act on (stored as `last_failure_reason`). */
export function failureReason(statusCode: number | null, error: string | null): string {
  if (statusCode === null) return error ?? 'no response';
  if (statusCode >= 300 && statusCode < 400) return `HTTP ${statusCode}: redirects are not followed; register the final URL`;
  return `HTTP ${statusCode}`;
}

/** Success is a 2xx; a 3xx is a failure and is never followed. */
export function isSuccessStatus(statusCode: number): boolean {
  return statusCode >= 200 && statusCode < 300;
}

/**
 * A delivery's first attempt runs as a local activity (workflows/webhook-delivery.ts) when its
 * endpoint answers within this many seconds (`timeout_seconds`, default 10): its workflow task stays
 * open while the receiver answers, and a task open longer than the workflow task timeout (10 s) makes
 * the SDK heartbeat it, which adds history events. Slower endpoints take a regular activity from the
 * first attempt.
 */
export const LOCAL_FIRST_ATTEMPT_MAX_TIMEOUT_S = 10;

export function localFirstAttemptFor(timeoutSeconds: number): boolean {
  return timeoutSeconds <= LOCAL_FIRST_ATTEMPT_MAX_TIMEOUT_S;
}

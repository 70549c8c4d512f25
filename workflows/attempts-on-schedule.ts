import { sleep } from '@temporalio/workflow';
import { jittered } from '../src/domain/webhook-retry';

/** What one attempt of a delivery (a webhook, a notification) answers. */
export interface AttemptOutcome {
  outcome: string;
  reason: string | null;
  /** Wait before the next attempt; null when there is none (the last, or a permanent failure). */
  retryInMs: number | null;
}

/** Where the attempts stand, as the workflow's state query shows it. */
export interface AttemptsState<O extends AttemptOutcome> {
  attempt: number;
  last: O | null;
  nextAttemptAt: string | null;
}

/**
 * The delivery shape of webhooks and notifications: attempt 1, 2, … until one does not fail, or a
 * failure says no retry follows; after each failure a durable timer of the outcome's `retryInMs`.
 * Each attempt is told the delay that would follow its failure (the schedule's entry for it, ±20 %
 * jitter from the workflow's deterministic random), null after the last. Keeps `state` current.
 */
export async function attemptsOnSchedule<O extends AttemptOutcome>(
  schedule: readonly number[],
  state: AttemptsState<O>,
  attemptOnce: (attempt: number, retryDelayMs: number | null) => Promise<O>,
  /** The first attempt's number (1 unless a run takes over from a closed one, issue 32). */
  first = 1,
): Promise<{ status: O['outcome']; attempts: number; reason: string | null }> {
  for (let attempt = first; ; attempt++) {
    state.attempt = attempt;
    state.nextAttemptAt = null;
    const retryDelayMs = attempt <= schedule.length ? jittered(schedule[attempt - 1], Math.random()) : null;
    const outcome = await attemptOnce(attempt, retryDelayMs);
    state.last = outcome;
    if (outcome.outcome !== 'failed' || outcome.retryInMs === null) return { status: outcome.outcome, attempts: attempt, reason: outcome.reason };
    state.nextAttemptAt = new Date(Date.now() + outcome.retryInMs).toISOString();
    await sleep(outcome.retryInMs, { summary: `retry ${attempt + 1} after: ${outcome.reason ?? 'failure'}` });
  }
}

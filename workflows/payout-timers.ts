import { condition, log, patched, setHandler } from '@temporalio/workflow';
import type { Environment } from '../src/domain/environment';
import { advanceSignal, nextTimerQuery, type NextTimer } from './messages';

/** How a wait ended: its timer fired, the sandbox `advance` signal won the race, or what it also waited for happened. */
export type WaitOutcome = 'timer' | 'advanced' | 'interrupted';

export interface TimerDesk {
  /**
   * A durable timer of `ms` with `summary`, raced by the `advance` signal and by `until` (e.g. an
   * operator's decision). `advance` proceeds as if the timer had fired; the history shows the signal
   * and the timer cancelled. Nothing else is waited for.
   */
  wait(ms: number, summary: string, until?: () => boolean): Promise<WaitOutcome>;
}

/**
 * `patched()` id (issue 31): the `advance` signal is sandbox-only for payouts, refunds, disputes and
 * settlements too, as it always was for charges. Before, a raw `advance` (the Temporal UI, `temporal
 * workflow signal`) fired a live payment's timer: a live payout held for review was rejected with
 * no operator, no reason and no audit row. The patch is taken when a live advance arrives, so a run
 * whose history already holds a live advance that fired replays as it ran.
 */
export const LIVE_ADVANCE_IGNORED_PATCH = 'live-advance-ignored';

/**
 * Registers the `advance` signal and the `nextTimer` query of one workflow. An `advance` with no
 * timer waiting does nothing (the sandbox endpoint asks `nextTimer` first and answers 409
 * `nothing_to_advance`); neither does one on a payment that is not sandbox (`environment`: the
 * payment's environment once the run has read it), which is logged as a warning: only an operator's
 * audited update ends a live payment's wait (a held payout's review: `decidePayout`).
 */
export function timerDesk(paymentId: string, environment: () => Environment | undefined): TimerDesk {
  let next: NextTimer | null = null;
  let advanced = false;
  setHandler(nextTimerQuery, () => next);
  setHandler(advanceSignal, () => {
    if (!next) {
      log.info('advance signal with no timer waiting: ignored', { paymentId });
      return;
    }
    const env = environment();
    if (env !== 'sandbox' && patched(LIVE_ADVANCE_IGNORED_PATCH)) {
      log.warn('advance signal on a payment that is not sandbox: ignored (advance is sandbox-only; a live wait ends only through its audited update)', { paymentId, environment: env ?? 'unknown', timer: next.summary });
      return;
    }
    advanced = true;
  });
  return {
    async wait(ms, summary, until = () => false) {
      next = { summary, firesAt: new Date(Date.now() + ms).toISOString() };
      advanced = false;
      try {
        const early = await condition(() => advanced || until(), ms, { summary });
        if (!early) return 'timer';
        // `until` first: a decision that arrived with an advance in the same task is the decision.
        return until() ? 'interrupted' : 'advanced';
      } finally {
        next = null;
        advanced = false;
      }
    },
  };
}

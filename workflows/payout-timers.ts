import { condition, log, setHandler } from '@temporalio/workflow';
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
 * Registers the `advance` signal and the `nextTimer` query of one workflow. An `advance` with no
 * timer waiting does nothing (the sandbox endpoint asks `nextTimer` first and answers 409
 * `nothing_to_advance`).
 */
export function timerDesk(): TimerDesk {
  let next: NextTimer | null = null;
  let advanced = false;
  setHandler(nextTimerQuery, () => next);
  setHandler(advanceSignal, () => {
    if (next) advanced = true;
    else log.info('advance signal with no timer waiting: ignored');
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

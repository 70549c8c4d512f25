import { condition, log, patched, setHandler, sleep } from '@temporalio/workflow';
import type { Environment } from '../src/domain/environment';
import { advanceSignal, nextTimerQuery, type NextTimer } from './messages';

/**
 * Charges recorded before `POST /v1/sandbox/advance/{id}` existed slept on a bare timer; the patch
 * keeps them replaying as they ran. New runs race every timer with the `advance` signal.
 */
export const SANDBOX_ADVANCE_PATCH = 'sandbox-advance';

/** How a charge's wait ended: its timer fired, or the sandbox `advance` signal won the race. */
export type ChargeWaitOutcome = 'timer' | 'advanced' | 'interrupted';

export interface ChargeTimers {
  /**
   * A durable timer of `ms` with `summary`, raced by the `advance` signal (sandbox only): either way
   * the charge proceeds as if the timer had fired. The history shows the winner: `TimerFired`, or
   * the signal followed by `TimerCanceled`. With `until`, the wait also ends (`interrupted`) once
   * it holds (an operator's resolution), in every environment.
   */
  wait(ms: number, summary: string, until?: () => boolean): Promise<ChargeWaitOutcome>;
}

/**
 * Registers the `advance` signal and the `nextTimer` query of one charge workflow. `nextTimer` names
 * the timer waiting now (null when none); an `advance` with no timer waiting, or on a live charge,
 * does nothing (the sandbox endpoint asks `nextTimer` first and answers 409 `nothing_to_advance`).
 * `isPatched`: the run's answer for SANDBOX_ADVANCE_PATCH when it decided it at start
 * (workflows/charge-patches.ts), else `patched()` here.
 */
export function chargeTimers(chargeId: string, environment: Environment, isPatched: (patchId: string) => boolean = patched): ChargeTimers {
  let next: NextTimer | null = null;
  let advanced = false;
  setHandler(nextTimerQuery, () => next);
  setHandler(advanceSignal, () => {
    if (next && environment === 'sandbox') advanced = true;
    else log.info('advance signal with no timer waiting (or on a live charge): ignored', { chargeId });
  });
  return {
    async wait(ms, summary, until) {
      if (until?.()) return 'interrupted';
      if (until && ms <= 0) return 'timer';
      if (until && environment !== 'sandbox') return (await condition(until, ms, { summary })) ? 'interrupted' : 'timer';
      if (!until && (ms <= 0 || environment !== 'sandbox' || !isPatched(SANDBOX_ADVANCE_PATCH))) {
        await sleep(ms, { summary });
        return 'timer';
      }
      next = { summary, firesAt: new Date(Date.now() + ms).toISOString() };
      advanced = false;
      try {
        const early = await condition(() => advanced || (until?.() ?? false), ms, { summary });
        if (early && until?.()) return 'interrupted';
        if (early) log.info('sandbox advance fired the timer before it was due', { chargeId, summary });
        return early ? 'advanced' : 'timer';
      } finally {
        next = null;
        advanced = false;
      }
    },
  };
}

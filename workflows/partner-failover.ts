import { log, proxyActivities } from '@temporalio/workflow';
import type { RailActivities, RailSubmitOutcome } from '../activities/types';
import type { FailoverResult } from '../src/domain/rail-failover';
import type { RailStepRequest } from '../src/domain/live-rail';

/** The failover gate is a few database statements: retried briefly, then the payment stays where it is. */
const GATE_CALL = {
  startToCloseTimeout: '30 seconds',
  scheduleToCloseTimeout: '5 minutes',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds' },
} as const;
const gate = proxyActivities<RailActivities>(GATE_CALL);

/** The submission a wait makes (workflows/partner-answer.ts `railCalls`). */
export interface FailoverCalls {
  verb: string;
  submit(resubmit: boolean, options?: { failover?: boolean; summary?: string }): Promise<RailSubmitOutcome | undefined>;
}

/** What the workflow tells about each attempt it left (the Temporal UI, the payment's details). */
export type AttemptNote = (note: string) => void;

function whyLeft(first: RailSubmitOutcome | undefined): 'not_reached' | 'refused' | undefined {
  if (first?.kind === 'not_reached') return 'not_reached';
  if (first?.kind === 'refused' && first.retryElsewhere === true) return 'refused';
  return undefined;
}

/**
 * A payment's first submission with failover (issue 46, RAIL_FAILOVER_PATCH;
 * src/domain/rail-failover.ts): the submission is asked to answer `not_reached` at once when it never
 * reached the partner. When it did not reach it, or the partner refused it with a reason its table
 * marks retry-elsewhere, the failover gate (an activity, the database's facts under a row lock)
 * moves the payment to the next partner of its route, and the next attempt is submitted; again
 * while it is safe. When the gate says no (the partner may have the request, no other partner
 * admits it, the route has one): a refusal is the payment's answer, as without failover; a
 * submission that never reached its partner is submitted again the way it always was (retried
 * until the submit window closes, then the partner's word as before). Any other first answer is
 * returned at once: accepted, duplicate, a final refusal, no answer at all (the partner may have it).
 */
export async function submitWithFailover(request: RailStepRequest, calls: FailoverCalls, note: AttemptNote): Promise<RailSubmitOutcome | undefined> {
  let first = await calls.submit(false, { failover: true });
  for (let attempt = 1; ; attempt++) {
    const cause = whyLeft(first);
    if (!cause) return first;
    const said = cause === 'not_reached' ? 'never reached the partner' : `was refused ${first?.kind === 'refused' ? first.reason : ''} (retry elsewhere)`;
    const moved: FailoverResult = await gate.railFailover.executeWithOptions(
      { ...GATE_CALL, summary: `failover gate: attempt ${attempt} ${said}` },
      [request],
    );
    if (!moved.moved) {
      note(`attempt ${attempt} ${said}; no failover: ${moved.why}`);
      // Without another partner the attempt goes on as it always did.
      return cause === 'not_reached' ? calls.submit(false) : first;
    }
    note(`attempt ${attempt} at ${moved.from} ${said}; attempt ${moved.attempt} goes to ${moved.partner}`);
    first = await calls.submit(false, { failover: true, summary: `partner ${calls.verb}: submit, attempt ${moved.attempt} via ${moved.partner} (same reference on every retry)` });
  }
}

/** An AttemptNote that writes each attempt left to the workflow's log (replay-safe), naming the payment. */
export function attemptLog(paymentId: string): AttemptNote {
  return (note) => log.info(`${paymentId}: ${note}`, { paymentId });
}

import { Context } from '@temporalio/activity';
import type { RailActivities, RailStatusAnswer, RailSubmitOutcome } from '../../../activities/types';
import type { RailStepRequest } from '../../../src/domain/live-rail';
import type { FailoverResult } from '../../../src/domain/rail-failover';

/** A call the fake rail saw, with the test server's time when it came (when a clock is set). */
export type SeenCall = RailStepRequest & { atMs?: number };

/**
 * In-memory stand-in for the partner rail's activities (activities/rail.ts). By default the worker
 * has no rail (`no_rail`: a live payment fails at once with partner_unavailable). `partner(...)`
 * scripts one: the submission's answer and the statuses answered in turn (the last one repeats).
 * `statusBy` scripts the status by the test server's time instead (set `clock` first), and
 * `submitFailsUntil` makes every submission throw (a partner that cannot be reached) until then.
 */
export class FakeRail {
  readonly submits: RailStepRequest[] = [];
  readonly statusCalls: RailStepRequest[] = [];
  /** Issue 46: the failover gate's calls, and what it answers in turn (none left: not moved). */
  readonly failovers: RailStepRequest[] = [];
  private readonly nextAttempts: Array<{ result: FailoverResult; submit: RailSubmitOutcome; statuses: RailStatusAnswer[] }> = [];
  /**
   * Every submission and status call with its time on the test server's clock when the double ran
   * (`atMs`), and when the server scheduled that attempt (`scheduledMs`: what the workflow and the
   * activity's scheduleToClose decided; the run itself may start milliseconds later on a busy machine).
   */
  readonly timeline: Array<{ kind: 'submit' | 'status'; paymentId: string; atMs: number; scheduledMs: number }> = [];
  /** The test server's clock (`env.currentTimeMs`); without it the timeline stays empty. */
  clock?: () => Promise<number>;
  /** The current script: `partner(...)` puts a new one in place; a call answers from the one current when it came. */
  private script: Script = { submit: { kind: 'no_rail' }, statuses: [{ status: 'pending' }] };
  /** Payments seen before the current script (its owners and any other): their late polls (a payment review, say) never consume a later script. */
  private readonly earlierOwners = new Set<string>();

  partner(submit: RailSubmitOutcome, statuses: RailStatusAnswer[]): this {
    if (this.script.owner !== undefined) this.earlierOwners.add(this.script.owner);
    // Every payment seen so far belongs to an earlier script: under load an earlier test's payment
    // may still poll, before this script's payment submits, and must not take its first answer.
    for (const seen of [...this.submits, ...this.statusCalls]) this.earlierOwners.add(seen.paymentId);
    this.script = { submit, statuses: statuses.length ? [...statuses] : [{ status: 'pending' }] };
    // The failover answers scripted for an earlier script are not this one's.
    this.nextAttempts.length = 0;
    return this;
  }

  /**
   * Issue 46: the failover gate's next answer. Moved: the payment's next attempt answers `submit`
   * and `statuses` (the script is replaced, its owner kept). Unscripted, the gate answers not moved.
   */
  thenFailover(result: FailoverResult, submit: RailSubmitOutcome = { kind: 'accepted' }, statuses: RailStatusAnswer[] = [{ status: 'pending' }]): this {
    this.nextAttempts.push({ result, submit, statuses });
    return this;
  }

  /** The status as a function of the test server's time (needs `clock`). */
  statusBy(fn: (nowMs: number) => RailStatusAnswer): this {
    this.script.byTime = fn;
    return this;
  }

  /** Every submission throws (retryably) while the test server's time is before `untilMs` (needs `clock`). */
  submitFailsUntil(untilMs: number): this {
    this.script.failSubmitsUntilMs = untilMs;
    return this;
  }

  private async now(kind: 'submit' | 'status', paymentId: string): Promise<number | undefined> {
    if (!this.clock) return undefined;
    const atMs = await this.clock();
    this.timeline.push({ kind, paymentId, atMs, scheduledMs: Context.current().info.currentAttemptScheduledTimestampMs });
    return atMs;
  }

  readonly activities: RailActivities = {
    railSubmit: async (request) => {
      // The script is taken before the first await (the clock): a call is answered by the script
      // current when it came, never by one `partner(...)` put in place while it awaited.
      const script = this.script;
      this.submits.push(request);
      if (!this.earlierOwners.has(request.paymentId)) script.owner ??= request.paymentId;
      const now = await this.now('submit', request.paymentId);
      if (script.failSubmitsUntilMs !== undefined && now !== undefined && now < script.failSubmitsUntilMs) throw new Error('the partner cannot be reached (scripted)');
      // Issue 46: `not_reached` is an answer only to a submission that may fail over; one that may not
      // (after the gate said no) is retried by Temporal until the partner answers: here, at once, accepted.
      if (script.submit.kind === 'not_reached' && !request.failover) return { kind: 'accepted' };
      return script.submit;
    },
    railFailover: async (request) => {
      this.failovers.push(request);
      const next = this.nextAttempts.shift();
      if (!next) return { moved: false, why: 'no other partner (scripted)' };
      if (next.result.moved) this.script = { submit: next.submit, statuses: next.statuses.length ? [...next.statuses] : [{ status: 'pending' }], owner: request.paymentId };
      return next.result;
    },
    railStatus: async (request) => {
      // Whose call this is and which script answers it are decided together, before the first
      // await: a poll that came under an earlier script (a payment review an earlier test's charge
      // started, asking at once) used to pass the owner check there, await the clock while the next
      // test called `partner(...)`, then take the new script's first answer (charge-live-rail's
      // scripted `unknown`: its charge then saw `succeeded` at once and never submitted again).
      const script = this.script;
      this.statusCalls.push(request);
      if (this.earlierOwners.has(request.paymentId)) return { status: 'pending' };
      if (script.owner !== undefined && request.paymentId !== script.owner) return { status: 'pending' };
      const now = await this.now('status', request.paymentId);
      if (script.byTime && now !== undefined) return script.byTime(now);
      return script.statuses.length > 1 ? script.statuses.shift()! : script.statuses[0];
    },
  };
}

/** One `partner(...)` script: the submission's answer, the statuses in turn (the last repeats), and the payment it is for. */
interface Script {
  submit: RailSubmitOutcome;
  statuses: RailStatusAnswer[];
  byTime?: (nowMs: number) => RailStatusAnswer;
  failSubmitsUntilMs?: number;
  /**
   * The payment the script is for: the first to submit after `partner(...)` that was not seen
   * before it. Other payments (a payment review an earlier test left polling, say) get `pending`
   * and never consume the script.
   */
  owner?: string;
}

/**
 * For `statusBy`: the partner's SUCCESSFUL one minor unit short of what was sent (with the mismatch
 * text railStatus gives it) until `corrected()`, then its corrected SUCCESSFUL (patch success-must-match).
 */
export function shortThenCorrected(sent: { amount: number; currency: string }, financialTransactionId: string, corrected: () => boolean): () => RailStatusAnswer {
  const short = sent.amount - 1;
  return () =>
    corrected()
      ? { status: 'succeeded', financialTransactionId, amount: sent.amount, currency: sent.currency }
      : { status: 'succeeded', financialTransactionId, amount: short, currency: sent.currency, mismatch: `the partner's SUCCESSFUL says amount ${short} minor units, ours ${sent.amount}` };
}

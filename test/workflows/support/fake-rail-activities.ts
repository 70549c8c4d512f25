import { Context } from '@temporalio/activity';
import type { RailActivities, RailStatusAnswer, RailSubmitOutcome } from '../../../activities/types';
import type { RailStepRequest } from '../../../src/domain/live-rail';
import type { RailStatus } from '../../../src/rail/partner-rail';

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
  /**
   * Every submission and status call with its time on the test server's clock when the double ran
   * (`atMs`), and when the server scheduled that attempt (`scheduledMs`: what the workflow and the
   * activity's scheduleToClose decided; the run itself may start milliseconds later on a busy machine).
   */
  readonly timeline: Array<{ kind: 'submit' | 'status'; paymentId: string; atMs: number; scheduledMs: number }> = [];
  /** The test server's clock (`env.currentTimeMs`); without it the timeline stays empty. */
  clock?: () => Promise<number>;
  private submitAnswer: RailSubmitOutcome = { kind: 'no_rail' };
  private statuses: RailStatusAnswer[] = [{ status: 'pending' }];
  private byTime?: (nowMs: number) => RailStatusAnswer;
  private failSubmitsUntilMs?: number;
  /**
   * The payment the script is for: the first to submit after `partner(...)`. Other payments (a
   * payment review an earlier test left polling, say) get `pending` and never consume the script.
   */
  private owner?: string;
  /** Payments seen before the current script (its owners and any other): their late polls (a payment review, say) never consume a later script. */
  private readonly earlierOwners = new Set<string>();

  partner(submit: RailSubmitOutcome, statuses: RailStatusAnswer[]): this {
    this.submitAnswer = submit;
    this.statuses = statuses.length ? statuses : [{ status: 'pending' }];
    this.byTime = undefined;
    this.failSubmitsUntilMs = undefined;
    if (this.owner !== undefined) this.earlierOwners.add(this.owner);
    // Every payment seen so far belongs to an earlier script: under load an earlier test's payment
    // may still poll, before this script's payment submits, and must not take its first answer.
    for (const seen of [...this.submits, ...this.statusCalls]) this.earlierOwners.add(seen.paymentId);
    this.owner = undefined;
    return this;
  }

  /** The status as a function of the test server's time (needs `clock`). */
  statusBy(fn: (nowMs: number) => RailStatus): this {
    this.byTime = fn;
    return this;
  }

  /** Every submission throws (retryably) while the test server's time is before `untilMs` (needs `clock`). */
  submitFailsUntil(untilMs: number): this {
    this.failSubmitsUntilMs = untilMs;
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
      this.submits.push(request);
      this.owner ??= request.paymentId;
      const now = await this.now('submit', request.paymentId);
      if (this.failSubmitsUntilMs !== undefined && now !== undefined && now < this.failSubmitsUntilMs) throw new Error('the partner cannot be reached (scripted)');
      return this.submitAnswer;
    },
    railStatus: async (request) => {
      this.statusCalls.push(request);
      if (this.earlierOwners.has(request.paymentId)) return { status: 'pending' };
      if (this.owner !== undefined && request.paymentId !== this.owner) return { status: 'pending' };
      const now = await this.now('status', request.paymentId);
      if (this.byTime && now !== undefined) return this.byTime(now);
      return this.statuses.length > 1 ? this.statuses.shift()! : this.statuses[0];
    },
  };
}

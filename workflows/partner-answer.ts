import { ActivityFailure, allHandlersFinished, condition, patched, proxyActivities, setHandler, sleep, workflowInfo, type ActivityOptions } from '@temporalio/workflow';
import type { RailActivities, RailStatusAnswer, RailSubmitOutcome } from '../activities/types';
import type { FailureClass } from '../src/domain/failure-classes';
import { PARTNER_NO_ANSWER_ATTENTION_MS, partnerPollDelayMs, RAIL_CALL_TIMEOUT_MS, type RailStepRequest } from '../src/domain/live-rail';
import { partnerCallbackSignal } from './partner-follow';
import { submitWithFailover, type AttemptNote } from './partner-failover';
import { heldSuccessReason, longWaitPollDelayMs, PARTNER_WAIT_HISTORY_EVENTS, SUCCESS_MUST_MATCH_PATCH, type PartnerWaitCarry } from '../src/domain/partner-wait';

/** Each rail call: one call's budget (RAIL_CALL_TIMEOUT_MS, which PARTNER_TIMEOUT_MS must fit), retried with backoff to 1 minute. */
const RAIL_CALL: ActivityOptions = {
  startToCloseTimeout: RAIL_CALL_TIMEOUT_MS,
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
};
/** A status question is retried this long before the wait goes on (the next poll asks again). */
const STATUS_BUDGET_MS = 5 * 60_000;

const rail = proxyActivities<RailActivities>(RAIL_CALL);

/** The partner's word on a live payment, or why the wait ended without it. */
export type PartnerAnswer =
  /** SUCCESSFUL. `mismatch` says how its amount or currency differ from ours (the money moved all the same). */
  | { kind: 'succeeded'; financialTransactionId?: string; mismatch?: string }
  /** FAILED, a refusal of the submission, or `unknown` confirmed after the last submission ended (it never reached the partner). */
  | { kind: 'failed'; failureClass: FailureClass; reason: string }
  /** Only with `deadlineMs`: the deadline came and the partner, asked once more, still had no final answer. */
  | { kind: 'deadline'; lastStatus: 'pending' | 'unknown' | 'no_answer' }
  /** `stopEarly` said so and the partner, asked once more, had no final answer. */
  | { kind: 'stopped' };

export interface PartnerWatch extends RailStepRequest {
  /** Workflow time (ms) after which no submission is sent (the payment's deadline). */
  submitUntilMs: number;
  /** Charges: workflow time (ms) at which the wait ends with `deadline` once a final check found no final answer. None: wait however long it takes. */
  deadlineMs?: number;
  /** Marks the payment NeedsAttention with a reason (pending for ten minutes; still unanswered at the submission deadline). */
  attention(reason: string): void;
  /** Checked whenever the wait wakes up: true asks the partner once more, then ends the wait (`stopped`) unless it answered. */
  stopEarly?(): boolean;
  /**
   * Issue 43 (a live charge of PARTNER_DECIDES_LIVE_CHARGE_PATCH): only the partner's final answer
   * ends the wait, whatever an operator or a deadline says (`stopEarly` is not used, and the answer is
   * never `deadline` nor `stopped`).
   */
  untilTheWord?: UntilTheWord;
  /**
   * Issue 43 (CHARGE_WAIT_CONTINUES_PATCH, with `untilTheWord` only): the wait continues the
   * workflow as new when its history is long, and `resume` is the wait an earlier run carried.
   */
  continues?: { resume?: PartnerWaitCarry; continueAsNew(carry: PartnerWaitCarry): Promise<never> };
  /**
   * Issue 45 (with `untilTheWord` only: a live card charge): the first submission was made outside
   * the workflow (the hosted page sent the card) and `acknowledged` is what the partner answered it.
   * Nothing is submitted from here (`submitUntilMs` is when the page sent it).
   */
  submittedElsewhere?: { acknowledged: boolean };
  /**
   * Issue 46 (RAIL_FAILOVER_PATCH): the first submission may fail over to the next partner of the
   * payment's route when it provably moved no money (workflows/partner-failover.ts); each attempt
   * left is told here. Absent: one partner, as before.
   */
  failsOver?: AttemptNote;
}

/** What the partner had to say when it had no final answer (`differs`: a SUCCESSFUL for another amount or currency, held: SUCCESS_MUST_MATCH_PATCH). */
export type NotFinal = 'pending' | 'unknown' | 'no_answer' | 'differs';

/** How a wait that only the partner's final answer ends hears about operators and its deadline. */
export interface UntilTheWord {
  /** True while an operator's resolution waits for the partner: the wait wakes and asks the partner at once. */
  asked(): boolean;
  /** The partner, asked for that resolution, gave no final answer: the resolution is refused (the wait goes on). */
  notFinal(last: NotFinal): void;
  /** `deadlineMs` came and the partner, asked there, gave no final answer (once): the wait goes on. */
  pastDeadline(last: NotFinal): void;
}

export type Asked = RailStatusAnswer | undefined;

/** SUCCESSFUL or FAILED as the wait's answer; undefined for anything else. */
export function finalOf(status: Asked): PartnerAnswer | undefined {
  if (status?.status === 'succeeded') return { kind: 'succeeded', financialTransactionId: status.financialTransactionId, ...(status.mismatch ? { mismatch: status.mismatch } : {}) };
  if (status?.status === 'failed') return { kind: 'failed', failureClass: status.failureClass, reason: status.reason };
  return undefined;
}

/**
 * finalOf, except that (SUCCESS_MUST_MATCH_PATCH) a SUCCESSFUL for another amount or currency than
 * ours is held, not final: `hold` hears the difference and the wait goes on. For the waits that only
 * the partner's word ends; `patched` is asked only when such an answer comes.
 */
export function finalUnlessDiffers(status: Asked, hold: (mismatch: string) => void): PartnerAnswer | undefined {
  const final = finalOf(status);
  if (final?.kind !== 'succeeded' || final.mismatch === undefined || !patched(SUCCESS_MUST_MATCH_PATCH)) return final;
  hold(final.mismatch);
  return undefined;
}

/** A `hold` for finalUnlessDiffers that flags the payment once per difference; `held()` is the one held last. */
export function heldSuccessFlag(verb: string, paymentId: string, flag: (reason: string) => void, before?: string) {
  let held = before;
  return {
    hold(mismatch: string) {
      if (mismatch === held) return;
      held = mismatch;
      flag(heldSuccessReason(verb, paymentId, mismatch));
    },
    held: () => held,
  };
}

/**
 * A live payment on the partner rail, followed until the partner's word (issue 29): submit with the
 * payment's fixed reference, never after `submitUntilMs`; then the callback (a wake-up) or the next
 * poll, and the status, which is all the payment follows. Only these end it:
 * - SUCCESSFUL or FAILED (the status), or a refusal of the first submission;
 * - `unknown` once no submission can still be under way (the last one ended and the deadline for
 *   submitting passed), asked once more first;
 * - with `deadlineMs` (a charge's expiry): the partner asked once more at the deadline;
 * - `stopEarly` (an operator's resolution): the partner asked once more, and its final answer wins.
 * A submission that fails for good (retries spent, or a non-retryable misconfiguration) may still
 * have reached the partner: the wait asks the status, it never decides. Ten minutes without a final
 * answer, and again at `submitUntilMs`: NeedsAttention with the reason; the polls go on, backing off
 * (PARTNER_POLL_BACKOFF), however long it takes.
 */
export async function awaitPartnerWord(w: PartnerWatch): Promise<PartnerAnswer> {
  const calls = railCalls(w);
  if (w.untilTheWord) return followUntilTheWord(w, w.untilTheWord, calls);
  const { verb, ask, submit } = calls;

  const first = w.failsOver ? await submitWithFailover({ paymentId: w.paymentId, product: w.product }, calls, w.failsOver) : await submit(false);
  if (first?.kind === 'no_rail') return { kind: 'failed', failureClass: 'partner_unavailable', reason: 'no live partner rail on the worker, and nothing was ever sent to the partner' };
  if (first?.kind === 'refused') return { kind: 'failed', failureClass: first.failureClass, reason: first.reason };

  const startedMs = Date.now();
  let flagged = false;
  let flaggedLate = false;
  let last: Asked;
  // A charge's older wait (with a deadline) ends on any SUCCESSFUL, as it did; a payout's or batch's holds a differing one.
  const differs = heldSuccessFlag(verb, w.paymentId, (reason) => {
    flagged = flaggedLate = true;
    w.attention(reason);
  });
  const finalAnswer = (status: Asked) => (w.deadlineMs === undefined ? finalUnlessDiffers(status, differs.hold) : finalOf(status));
  // Callbacks counted up to the last question: one that comes while a status request is in flight
  // wakes the next wait at once (its answer may be newer than the one in flight).
  let seen = calls.callbacks();
  for (let poll = 0; ; poll++) {
    const stop = () => w.stopEarly?.() ?? false;
    const delay = partnerPollDelayMs(poll, Date.now() - startedMs);
    const wait = w.deadlineMs === undefined ? delay : Math.min(delay, w.deadlineMs - Date.now());
    // At the deadline there is no wait: the partner is asked once more at once (condition's 0 would mean no timeout).
    if (wait > 0) await condition(() => calls.callbacks() > seen || stop(), wait);
    seen = calls.callbacks();
    last = await ask();
    const final = finalAnswer(last);
    if (final) return final;
    if (stop()) return { kind: 'stopped' };
    if (last?.status === 'unknown') {
      const again = await submit(true);
      if (again?.kind === 'refused') return { kind: 'failed', failureClass: again.failureClass, reason: again.reason };
      if (again === undefined && Date.now() >= w.submitUntilMs) {
        // No submission can be under way any more once the last attempt's own budget has passed
        // (an attempt cut off by its deadline may still be talking to the partner): then ask once more.
        await sleep(RAIL_CALL_TIMEOUT_MS);
        const confirm = await ask();
        const confirmed = finalAnswer(confirm);
        if (confirmed) return confirmed;
        if (confirm?.status === 'unknown') {
          return { kind: 'failed', failureClass: 'partner_unavailable', reason: `the partner confirmed it never received ${verb} ${w.paymentId} after the last submission ended` };
        }
        last = confirm;
      }
    }
    if (w.deadlineMs !== undefined && Date.now() >= w.deadlineMs) {
      return { kind: 'deadline', lastStatus: last === undefined ? 'no_answer' : last.status === 'unknown' ? 'unknown' : 'pending' };
    }
    const waited = Date.now() - startedMs;
    if (!flagged && waited >= PARTNER_NO_ANSWER_ATTENTION_MS) {
      flagged = true;
      w.attention(`the partner has not given a final answer for ${verb} ${w.paymentId} since ${new Date(startedMs).toISOString()}; the money stays where it is and the engine keeps asking`);
    }
    if (!flaggedLate && w.deadlineMs === undefined && Date.now() >= w.submitUntilMs) {
      flaggedLate = true;
      w.attention(
        `no final answer from the partner for ${verb} ${w.paymentId} since ${new Date(startedMs).toISOString()}: nothing is released or failed without the partner's word; ` +
          `the engine keeps asking; the partner's statement (reconcile run) or its transaction id settles it`,
      );
    }
  }
}

export interface RailCalls {
  verb: string;
  /** Callbacks received so far (each a wake-up). */
  callbacks(): number;
  ask(): Promise<Asked>;
  /**
   * A submission, retried until the deadline for submitting; undefined when it did not end with an
   * answer (it may have arrived). `failover` (issue 46): a submission that never reached the partner
   * answers `not_reached` at once; `summary` names the attempt in the Temporal UI.
   */
  submit(resubmit: boolean, options?: { failover?: boolean; summary?: string }): Promise<RailSubmitOutcome | undefined>;
}

/** The partner callback's handler and the payment's two rail calls (the same commands for every wait). */
export function railCalls(w: PartnerWatch): RailCalls {
  let callbacks = 0;
  setHandler(partnerCallbackSignal, () => {
    callbacks += 1;
  });
  const verb = w.product === 'collection' ? 'request-to-pay' : w.product === 'refund' ? 'refund' : 'transfer';
  const request: RailStepRequest = { paymentId: w.paymentId, product: w.product };
  return {
    verb,
    callbacks: () => callbacks,
    ask: () => askPartnerOnce(request, `partner ${verb}: status`),
    async submit(resubmit, options) {
      const remaining = w.submitUntilMs - Date.now();
      if (remaining <= 0) return undefined;
      try {
        const args: RailStepRequest = { ...request, ...(resubmit ? { resubmit: true } : {}), ...(options?.failover ? { failover: true } : {}) };
        return await rail.railSubmit.executeWithOptions({ ...RAIL_CALL, scheduleToCloseTimeout: remaining, summary: options?.summary ?? `partner ${verb}: submit (same reference on every retry)` }, [args]);
      } catch (error) {
        if (error instanceof ActivityFailure) return undefined;
        throw error;
      }
    },
  };
}

/** The run's history is long enough to continue as new (as workflows/partner-long-wait.ts). */
function historyIsLong(): boolean {
  const info = workflowInfo();
  return info.historyLength >= PARTNER_WAIT_HISTORY_EVENTS || info.continueAsNewSuggested;
}

const notFinal = (last: Asked): NotFinal => (last === undefined ? 'no_answer' : last.status === 'unknown' ? 'unknown' : last.status === 'succeeded' ? 'differs' : 'pending');

/**
 * Issue 43: a wait that only the partner's final answer ends (a live charge). As awaitPartnerWord,
 * with these differences:
 * - an operator's resolution (`asked`) wakes the wait and the partner is asked at once; without a
 *   final answer the resolution is refused (`notFinal`) and the wait goes on;
 * - at `deadlineMs` (the charge's expiry) the partner is asked at once; without a final answer
 *   `pastDeadline` says so (once) and the wait goes on, polls backing off as before, however long;
 * - `unknown` is taken as final (the partner never received it) only while the partner never
 *   acknowledged the reference: no submission accepted (or a duplicate), no status PENDING. After an
 *   acknowledgement `unknown` is one more answer that is not final.
 */
async function followUntilTheWord(w: PartnerWatch, word: UntilTheWord, calls: RailCalls): Promise<PartnerAnswer> {
  const { verb, ask, submit } = calls;
  const long = w.continues;
  const resume = long?.resume;
  let acknowledged: boolean;
  let startedMs: number;
  let flagged = false;
  let pastDeadline = false;
  let lastAtDeadline: NotFinal | undefined;
  let firstPoll = 0;
  let wake = false;
  if (resume) {
    // A run continued as new (CHARGE_WAIT_CONTINUES_PATCH): no first submission; the flags as they were.
    ({ acknowledged, startedMs, flagged, poll: firstPoll, wake } = resume);
    pastDeadline = resume.pastDeadline ?? false;
    lastAtDeadline = resume.lastAtDeadline;
    if (pastDeadline) word.pastDeadline(lastAtDeadline ?? 'pending');
    else if (resume.reason) w.attention(resume.reason);
  } else if (w.submittedElsewhere) {
    acknowledged = w.submittedElsewhere.acknowledged;
    startedMs = Date.now();
  } else {
    const first = w.failsOver ? await submitWithFailover({ paymentId: w.paymentId, product: w.product }, calls, w.failsOver) : await submit(false);
    if (first?.kind === 'no_rail') return { kind: 'failed', failureClass: 'partner_unavailable', reason: 'no live partner rail on the worker, and nothing was ever sent to the partner' };
    if (first?.kind === 'refused') return { kind: 'failed', failureClass: first.failureClass, reason: first.reason };
    acknowledged = first?.kind === 'accepted' || first?.kind === 'duplicate';
    startedMs = Date.now();
  }
  let reason: string | undefined = resume?.reason;
  const differs = heldSuccessFlag(verb, w.paymentId, (why) => {
    flagged = true;
    reason = why;
    w.attention(why);
  }, resume?.heldMismatch);
  let seen = calls.callbacks();
  for (let poll = firstPoll; ; poll++) {
    // Never while an operator's resolution waits for the partner's answer.
    if (long && !word.asked() && historyIsLong()) {
      await condition(allHandlersFinished);
      if (!word.asked()) {
        const carry: PartnerWaitCarry = { startedMs, submitUntilMs: w.submitUntilMs, acknowledged, poll, flagged, flaggedLate: false, flaggedUnknown: false, wake: wake || calls.callbacks() > seen, runs: (resume?.runs ?? 0) + 1, pastDeadline };
        const heldMismatch = differs.held();
        if (heldMismatch !== undefined) carry.heldMismatch = heldMismatch;
        if (w.deadlineMs !== undefined) carry.deadlineMs = w.deadlineMs;
        if (reason !== undefined) carry.reason = reason;
        if (lastAtDeadline !== undefined) carry.lastAtDeadline = lastAtDeadline;
        await long.continueAsNew(carry);
      }
    }
    const delay = long ? longWaitPollDelayMs(poll, Date.now() - startedMs) : partnerPollDelayMs(poll, Date.now() - startedMs);
    const wait = pastDeadline || w.deadlineMs === undefined ? delay : Math.min(delay, w.deadlineMs - Date.now());
    // At the deadline there is no wait: the partner is asked at once (condition's 0 would mean no timeout).
    if (wait > 0 && !wake) await condition(() => calls.callbacks() > seen || word.asked(), wait);
    wake = false;
    seen = calls.callbacks();
    // A resolution that comes while this question is in flight is asked about by the next one.
    const forOperator = word.asked();
    let last = await ask();
    const final = finalUnlessDiffers(last, differs.hold);
    if (final) return final;
    // PENDING, or a SUCCESSFUL held for its difference: the partner has the reference.
    if (last?.status === 'pending' || last?.status === 'succeeded') acknowledged = true;
    if (forOperator) word.notFinal(notFinal(last));
    if (last?.status === 'unknown') {
      const again = await submit(true);
      if (again?.kind === 'refused') return { kind: 'failed', failureClass: again.failureClass, reason: again.reason };
      if (again?.kind === 'accepted' || again?.kind === 'duplicate') acknowledged = true;
      if (again === undefined && !acknowledged && Date.now() >= w.submitUntilMs) {
        // As awaitPartnerWord: once the last attempt's own budget has passed, ask once more.
        await sleep(RAIL_CALL_TIMEOUT_MS);
        const confirm = await ask();
        const confirmed = finalUnlessDiffers(confirm, differs.hold);
        if (confirmed) return confirmed;
        if (confirm?.status === 'unknown') {
          return { kind: 'failed', failureClass: 'partner_unavailable', reason: `the partner confirmed it never received ${verb} ${w.paymentId} after the last submission ended` };
        }
        if (confirm?.status === 'pending') acknowledged = true;
        last = confirm;
      }
    }
    if (!pastDeadline && w.deadlineMs !== undefined && Date.now() >= w.deadlineMs) {
      pastDeadline = true;
      lastAtDeadline = notFinal(last);
      word.pastDeadline(lastAtDeadline);
    } else if (!flagged && !pastDeadline && Date.now() - startedMs >= PARTNER_NO_ANSWER_ATTENTION_MS) {
      flagged = true;
      reason = `the partner has not given a final answer for ${verb} ${w.paymentId} since ${new Date(startedMs).toISOString()}; the money stays where it is and the engine keeps asking`;
      w.attention(reason);
    }
  }
}

/**
 * The partner's status of a payment, asked once (retried for a few minutes): undefined when it did
 * not answer. What a retry that might duplicate asks first (workflows/settlement-retry.ts).
 */
export async function askPartnerOnce(request: RailStepRequest, summary = 'partner: status'): Promise<RailStatusAnswer | undefined> {
  try {
    return await rail.railStatus.executeWithOptions({ ...RAIL_CALL, scheduleToCloseTimeout: STATUS_BUDGET_MS, summary }, [request]);
  } catch (error) {
    if (error instanceof ActivityFailure) return undefined;
    throw error;
  }
}

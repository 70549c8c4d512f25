import { allHandlersFinished, condition, makeContinueAsNewFunc, patched, sleep, workflowInfo, type Workflow } from '@temporalio/workflow';
import type { SearchAttributePair } from '@temporalio/common';
import { PARTNER_NO_ANSWER_ATTENTION_MS, RAIL_CALL_TIMEOUT_MS } from '../src/domain/live-rail';
import { longWaitPollDelayMs, PARTNER_WAIT_HISTORY_EVENTS, UNKNOWN_FLAG_NEEDS_EARLIER_ACK_PATCH, type PartnerWaitCarry } from '../src/domain/partner-wait';
import { SA } from '../src/domain/search-attributes';
import { finalUnlessDiffers, heldSuccessFlag, railCalls, type PartnerAnswer, type PartnerWatch } from './partner-answer';
import { submitWithFailover } from './partner-failover';

/** How a long partner wait (PARTNER_WAIT_CONTINUES_PATCH) starts again in a new run of its workflow. */
export interface LongWait {
  /** This run continues a wait an earlier run began: no first submission, the carried state. None: a first run. */
  resume?: PartnerWaitCarry;
  /** Continues the payment's workflow as new with `carry` as its input's `resume` (never returns). */
  continueAsNew(carry: PartnerWaitCarry): Promise<never>;
}

/** The run's history is long enough to continue as new (ours, or the server's suggestion). */
export function historyIsLong(): boolean {
  const info = workflowInfo();
  return info.historyLength >= PARTNER_WAIT_HISTORY_EVENTS || info.continueAsNewSuggested;
}

/**
 * Issue 43: a live payment's wait for the partner's word that no deadline ends (a payout, a
 * settlement batch), as awaitPartnerWord's, with these differences:
 * - once the run's history is long (PARTNER_WAIT_HISTORY_EVENTS or the server's suggestion), the
 *   workflow continues as new at the next poll, after its update handlers have answered, carrying the
 *   wait (PartnerWaitCarry: when it began, the first run's submit window, whether the partner
 *   acknowledged, the flags raised and the last reason, the poll's position, a callback not yet asked
 *   about). The new run does not submit again as a first submission: it resumes asking;
 * - `unknown` is final (the partner never received it) only while the partner never acknowledged
 *   the reference (no submission accepted or duplicate, no PENDING): after an acknowledgement it is
 *   one more answer that is not final, and the payment is flagged NeedsAttention with the reason;
 * - after a week, polls every two hours (a callback still wakes the wait at once).
 */
export async function followPartnerLongWait(w: PartnerWatch, long: LongWait): Promise<PartnerAnswer> {
  const calls = railCalls(w);
  const { verb, ask, submit } = calls;
  let s: PartnerWaitCarry;
  if (long.resume) {
    s = { ...long.resume };
    if (s.reason) w.attention(s.reason);
  } else {
    const first = w.failsOver ? await submitWithFailover({ paymentId: w.paymentId, product: w.product }, calls, w.failsOver) : await submit(false);
    if (first?.kind === 'no_rail') return { kind: 'failed', failureClass: 'partner_unavailable', reason: 'no live partner rail on the worker, and nothing was ever sent to the partner' };
    if (first?.kind === 'refused') return { kind: 'failed', failureClass: first.failureClass, reason: first.reason };
    const acknowledged = first?.kind === 'accepted' || first?.kind === 'duplicate';
    s = { startedMs: Date.now(), submitUntilMs: w.submitUntilMs, acknowledged, poll: 0, flagged: false, flaggedLate: false, flaggedUnknown: false, wake: false, runs: 0 };
  }
  const flag = (reason: string) => {
    s.reason = reason;
    w.attention(reason);
  };
  // SUCCESS_MUST_MATCH_PATCH: a SUCCESSFUL for another amount or currency is held, flagged once per difference.
  const differs = heldSuccessFlag(verb, w.paymentId, (reason) => {
    s.flagged = s.flaggedLate = true;
    flag(reason);
  }, s.heldMismatch);
  const since = new Date(s.startedMs).toISOString();
  let wake = s.wake;
  let seen = calls.callbacks();
  for (; ; s.poll++) {
    if (historyIsLong()) {
      await condition(allHandlersFinished);
      const heldMismatch = differs.held();
      await long.continueAsNew({ ...s, wake: wake || calls.callbacks() > seen, runs: s.runs + 1, ...(heldMismatch !== undefined ? { heldMismatch } : {}) });
    }
    if (!wake) await condition(() => calls.callbacks() > seen, longWaitPollDelayMs(s.poll, Date.now() - s.startedMs));
    wake = false;
    seen = calls.callbacks();
    let last = await ask();
    const final = finalUnlessDiffers(last, differs.hold);
    if (final) return final;
    if (last?.status === 'pending' || last?.status === 'succeeded') s.acknowledged = true;
    if (last?.status === 'unknown') {
      const acknowledgedBefore = s.acknowledged;
      const again = await submit(true);
      if (again?.kind === 'accepted' || again?.kind === 'duplicate') s.acknowledged = true;
      if (again?.kind === 'refused' && !s.acknowledged) return { kind: 'failed', failureClass: again.failureClass, reason: again.reason };
      if (again === undefined && !s.acknowledged && Date.now() >= s.submitUntilMs) {
        // As awaitPartnerWord: once the last attempt's own budget has passed, ask once more.
        await sleep(RAIL_CALL_TIMEOUT_MS);
        const confirm = await ask();
        const confirmed = finalUnlessDiffers(confirm, differs.hold);
        if (confirmed) return confirmed;
        if (confirm?.status === 'unknown') {
          return { kind: 'failed', failureClass: 'partner_unavailable', reason: `the partner confirmed it never received ${verb} ${w.paymentId} after the last submission ended` };
        }
        if (confirm?.status === 'pending') s.acknowledged = true;
        last = confirm;
      }
      // Acknowledged only by the resubmission just sent: the partner has it now (UNKNOWN_FLAG_NEEDS_EARLIER_ACK_PATCH).
      const ownResubmission = !acknowledgedBefore && s.acknowledged && last?.status === 'unknown' && !s.flaggedUnknown && patched(UNKNOWN_FLAG_NEEDS_EARLIER_ACK_PATCH);
      if (s.acknowledged && last?.status === 'unknown' && !s.flaggedUnknown && !ownResubmission) {
        s.flaggedUnknown = true;
        flag(
          `the partner says it does not know ${verb} ${w.paymentId}, which it acknowledged before: that is not final (its records may lag or it lost track); ` +
            `nothing is released or failed without its final word; the engine keeps asking; the partner's statement (reconcile run) or its support settles it`,
        );
        continue;
      }
    }
    if (!s.flagged && Date.now() - s.startedMs >= PARTNER_NO_ANSWER_ATTENTION_MS) {
      s.flagged = true;
      if (!s.flaggedUnknown) flag(`the partner has not given a final answer for ${verb} ${w.paymentId} since ${since}; the money stays where it is and the engine keeps asking`);
    }
    if (!s.flaggedLate && Date.now() >= s.submitUntilMs) {
      s.flaggedLate = true;
      if (!s.flaggedUnknown) flag(
        `no final answer from the partner for ${verb} ${w.paymentId} since ${since}: nothing is released or failed without the partner's word; ` +
          `the engine keeps asking; the partner's statement (reconcile run) or its transaction id settles it`,
      );
    }
  }
}

/**
 * Continues the current workflow as new with `input` (same type and task queue), carrying its
 * search attributes as they are now (MerchantId, Environment, …, NeedsAttention and its reason): the
 * new run's start checks them, and `payments stuck` keeps listing the payment.
 */
export function continueWaitAsNew<F extends Workflow>(...args: Parameters<F>): Promise<never> {
  const attributes = workflowInfo().typedSearchAttributes;
  const carried = Object.values(SA).flatMap((key) => {
    const value = attributes.get(key);
    return value === undefined ? [] : [{ key, value } as SearchAttributePair];
  });
  return makeContinueAsNewFunc<F>({ typedSearchAttributes: carried })(...args);
}

import { ActivityFailure, condition, defineSignal, proxyActivities, setHandler, type ActivityOptions } from '@temporalio/workflow';
import type { RailActivities, RailSubmitOutcome } from '../activities/types';
import type { FailureClass } from '../src/domain/failure-classes';
import { PARTNER_CALLBACK_SIGNAL, PARTNER_NO_ANSWER_ATTENTION_MS, PARTNER_POLL_SCHEDULE_MS, RAIL_CALL_TIMEOUT_MS, type RailStepRequest } from '../src/domain/live-rail';
import type { RailStatus } from '../src/rail/partner-rail';

/** The partner called back about this payment: a wake-up to ask the partner for the status now (the body is never trusted). */
export const partnerCallbackSignal = defineSignal(PARTNER_CALLBACK_SIGNAL);

/**
 * Each rail call: RAIL_CALL_TIMEOUT_MS, which PARTNER_TIMEOUT_MS's worst case must fit (it was 30 s;
 * activity timeouts are not part of replay, so runs in flight take the new budget); retried with
 * backoff to 1 minute.
 */
const RAIL_CALL: ActivityOptions = {
  startToCloseTimeout: RAIL_CALL_TIMEOUT_MS,
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
};

const rail = proxyActivities<RailActivities>(RAIL_CALL);

export type PartnerOutcome =
  | { kind: 'succeeded' }
  | { kind: 'failed'; failureClass: FailureClass; reason: string }
  /** The deadline came and the partner had given no final answer. */
  | { kind: 'no_answer' }
  /** `stopEarly` said so (an operator resolved the payment meanwhile). */
  | { kind: 'stopped' };

export interface PartnerFollow extends RailStepRequest {
  /** Workflow time (ms) after which the payment stops waiting for the partner. */
  deadlineMs: number;
  /** Marks the payment NeedsAttention with a reason (the partner has not answered for ten minutes). */
  attention(reason: string): void;
  /** Checked whenever the wait wakes up: true ends the wait at once (`stopped`). */
  stopEarly?(): boolean;
}

/** The rail call, retried until `deadlineMs`; undefined when the deadline came first. */
async function untilDeadline<T>(call: (options: ActivityOptions) => Promise<T>, summary: string, deadlineMs: number): Promise<T | undefined> {
  const remaining = deadlineMs - Date.now();
  if (remaining <= 0) return undefined;
  try {
    return await call({ ...RAIL_CALL, scheduleToCloseTimeout: Math.max(remaining, 60_000), summary });
  } catch (error) {
    if (error instanceof ActivityFailure) return undefined;
    throw error;
  }
}

/**
 * Runs started before PARTNER_WORD_PATCH only (new runs take workflows/partner-answer.ts, which
 * never ends a payment without the partner's word). A live payment on the partner rail (src/rail/partner-rail.ts): submit (request-to-pay or transfer,
 * with the payment's fixed reference), then wait for whichever comes first, the partner's callback
 * (signal `partnerCallback`) or the next status poll (PARTNER_POLL_SCHEDULE_MS), and ask the partner
 * for the status; a final status ends the wait. A callback is a wake-up only: the status query is what
 * the payment follows, so a forged, replayed or duplicate callback changes nothing. The partner not
 * knowing the reference (it never received it) re-sends the same request. Pending for ten minutes:
 * NeedsAttention with the reason; the wait goes on until `deadlineMs`.
 */
export async function followPartner(f: PartnerFollow): Promise<PartnerOutcome> {
  let callbacks = 0;
  setHandler(partnerCallbackSignal, () => {
    callbacks += 1;
  });
  const request: RailStepRequest = { paymentId: f.paymentId, product: f.product };
  const verb = f.product === 'collection' ? 'request-to-pay' : 'transfer';
  const submit = () => untilDeadline<RailSubmitOutcome>((o) => rail.railSubmit.executeWithOptions(o, [request]), `partner ${verb}: submit (same reference on every retry)`, f.deadlineMs);

  const submitted = await submit();
  if (!submitted) return { kind: 'no_answer' };
  if (submitted.kind === 'no_rail') return { kind: 'failed', failureClass: 'partner_unavailable', reason: 'no live partner rail on the worker' };
  if (submitted.kind === 'refused') return { kind: 'failed', failureClass: submitted.failureClass, reason: submitted.reason };

  const startedMs = Date.now();
  let flagged = false;
  for (let poll = 0; ; poll++) {
    const remaining = f.deadlineMs - Date.now();
    if (remaining <= 0) return { kind: 'no_answer' };
    const seen = callbacks;
    const waitMs = Math.min(PARTNER_POLL_SCHEDULE_MS[Math.min(poll, PARTNER_POLL_SCHEDULE_MS.length - 1)], remaining);
    await condition(() => callbacks > seen || (f.stopEarly?.() ?? false), waitMs);
    if (f.stopEarly?.()) return { kind: 'stopped' };
    const status = await untilDeadline<RailStatus>((o) => rail.railStatus.executeWithOptions(o, [request]), `partner ${verb}: status`, Math.min(f.deadlineMs, Date.now() + 5 * 60_000));
    if (status?.status === 'succeeded') return { kind: 'succeeded' };
    if (status?.status === 'failed') return { kind: 'failed', failureClass: status.failureClass, reason: status.reason };
    if (status?.status === 'unknown') {
      const again = await submit();
      if (again?.kind === 'refused') return { kind: 'failed', failureClass: again.failureClass, reason: again.reason };
      if (again?.kind === 'no_rail') return { kind: 'failed', failureClass: 'partner_unavailable', reason: 'no live partner rail on the worker' };
    }
    if (!flagged && Date.now() - startedMs >= PARTNER_NO_ANSWER_ATTENTION_MS) {
      flagged = true;
      f.attention(`the partner has not given a final answer for ${verb} ${f.paymentId} since ${new Date(startedMs).toISOString()}; polling until ${new Date(f.deadlineMs).toISOString()}`);
    }
  }
}

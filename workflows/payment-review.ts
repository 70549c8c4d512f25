import {
  allHandlersFinished,
  ApplicationFailure,
  condition,
  log,
  patched,
  proxyActivities,
  setCurrentDetails,
  setHandler,
  sleep,
  upsertSearchAttributes,
  type ActivityOptions,
} from '@temporalio/workflow';
import type { LateVerdict, PaymentReviewActivities } from '../activities/payment-review';
import type { RailActivities } from '../activities/types';
import { RAIL_CALL_TIMEOUT_MS } from '../src/domain/live-rail';
import { operatorOf } from '../src/domain/operator-action';
import {
  closeReviewRefusal,
  reviewedKind,
  settleLateActionRefusal,
  settleLateRefusal,
  type PaymentReviewFlag,
  type PaymentReviewStart,
  type PaymentReviewState,
  type SettleLateRequest,
} from '../src/domain/payment-review';
import { attentionReason, needsAttentionPairs } from '../src/domain/attention-reason';
import { plainLine } from '../src/domain/plain-text';
import type { RailStatus } from '../src/rail/partner-rail';
import { auditOperatorAction } from './operator-audit';
import { endSettlementWait, REVIEW_ENDS_SETTLEMENT_WAIT_PATCH } from './settlement-settled-late';
import { closeReviewUpdate, paymentReviewQuery, returnCallbackSignal, reviewFlagSignal, settleLateAnswerUpdate } from './payment-review-messages';
import { continueWaitAsNew, historyIsLong } from './partner-long-wait';
import { REVIEW_WAIT_CONTINUES_PATCH, reviewCarryProblem, type PaymentReviewCarry } from '../src/domain/review-wait';

/**
 * `patched()` id (issue 31): a `reviewFlag` with `resolved: true` is taken only for the reconciliation
 * source, and only once the payment has no open break left (the database says); before, a signal sent
 * by hand could close a contradiction or a reconciliation reason without the audited path. Runs from
 * before took every resolved flag, and replay so.
 */
export const REVIEW_FLAG_CHECKED_PATCH = 'review-flag-checked';

/**
 * `patched()` id (issue 43, finding 2): the return transfer's wait between status requests ends early
 * on the partner's callback for it (`returnCallback`, sent by the callback route once the return's
 * reference is matched), so the review asks the partner then instead of at its next poll. Runs from
 * before slept the whole delay (a timer that no signal ends), and replay so.
 */
export const RETURN_CALLBACK_WAKES_PATCH = 'return-callback-wakes';

/**
 * `patched()` id (issue 43): a review run that finds its return transfer already ended (succeeded,
 * or failed and perhaps settled by hand: a run reopened with `payments review-open`) says so and
 * follows nothing; runs from before went on to poll the return's status, forever for a reference the
 * partner never kept, and replay so.
 */
export const RETURN_ENDED_KNOWN_PATCH = 'return-ended-known';

/** Waits between the partner's status requests: 1 min, 5 min, 15 min, then hourly for as long as it takes. */
export const REVIEW_POLL_DELAYS_MS = [60_000, 5 * 60_000, 15 * 60_000];
export const REVIEW_POLL_EVERY_MS = 3_600_000;
const pollDelay = (round: number) => REVIEW_POLL_DELAYS_MS[round] ?? REVIEW_POLL_EVERY_MS;
/** The return transfer we sent ourselves is asked after 5 s first (a transfer is usually quick), then as above. */
const returnPollDelay = (round: number) => (round === 0 ? 5_000 : pollDelay(round - 1));

/** A status request: one call's budget, retried for 5 minutes; a round without an answer waits for the next. */
const STATUS_CALL: ActivityOptions = {
  startToCloseTimeout: RAIL_CALL_TIMEOUT_MS,
  scheduleToCloseTimeout: '5 minutes',
  retry: { initialInterval: '5 seconds', backoffCoefficient: 2, maximumInterval: '1 minute', nonRetryableErrorTypes: ['RailMisconfigured', 'RailRequestInvalid'] },
};
/** Database steps and the return transfer: retried until they succeed (money that moved is never dropped). */
const STEP: ActivityOptions = {
  startToCloseTimeout: RAIL_CALL_TIMEOUT_MS,
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '5 minutes', nonRetryableErrorTypes: ['DeterministicDatabaseError', 'LateSettleRefusedError', 'LateReturnNotFound'] },
};

const rail = proxyActivities<RailActivities>(STATUS_CALL);
const steps = proxyActivities<PaymentReviewActivities>(STEP);

const isFinal = (status: RailStatus) => status.status !== 'pending';
const partnerWord = (status: RailStatus) =>
  status.status === 'succeeded' ? 'SUCCESSFUL' : status.status === 'failed' ? `FAILED (${status.reason})` : status.status === 'unknown' ? 'unknown reference' : 'PENDING';

/**
 * The payment review (issue 29; docs/partner-rail.md, "Late answers"), id `review-<paymentId>`: the
 * one place a payment that already ended gets an operator's attention. NeedsAttention from the start,
 * every reason in the current details (what `payments stuck` shows). It asks the partner for the
 * payment's status (1 min, 5 min, 15 min, then hourly) until a final answer, then compares it with
 * our record (activities/payment-review.ts):
 * - a SUCCESSFUL for a payment we ended without its money is late money, recorded (late_answers row,
 *   `late_funds` posting, event, metric), and the review waits for the operator's audited
 *   `settleLateAnswer` update (credit, return or accept); a `return` then sends the transfer back to
 *   the payer and follows it to the partner's final answer;
 * - an answer that agrees with ours ends the review with NeedsAttention cleared, unless reasons stay
 *   open (a reconciliation break, or an answer that contradicts ours in a way no action settles): then
 *   it waits for a `reviewFlag` with `resolved: true` for each open source.
 */
export async function paymentReviewWorkflow(start: PaymentReviewStart): Promise<PaymentReviewState> {
  const kind = reviewedKind(start.paymentId);
  const state: PaymentReviewState = {
    paymentId: start.paymentId,
    product: start.product,
    phase: 'polling',
    needsAttention: true,
    reasons: [{ source: start.source, reason: start.reason }],
    partnerStatus: null,
    ourStatus: null,
    settledAction: null,
  };
  /** Sources whose reasons were resolved since (a reconciliation break resolved elsewhere). */
  const resolved = new Set<string>();
  let contradiction = null as string | null;
  let contradictionClosed = false;
  let settling = false;
  let returnNote = null as string | null;
  /** The partner called back for the return transfer since the last status request. */
  let returnCalledBack = false;
  // A run continued as new (REVIEW_WAIT_CONTINUES_PATCH) takes up the wait where the last run left it;
  // a malformed resume (a start by hand) is ignored: the review asks the partner from the beginning.
  const carryProblem = start.resume === undefined ? null : reviewCarryProblem(start.resume);
  if (carryProblem) log.warn('payment review: resume ignored', { paymentId: start.paymentId, problem: carryProblem });
  const resume: PaymentReviewCarry | undefined = carryProblem ? undefined : start.resume;
  const startedMs = resume?.startedMs ?? Date.now();
  if (resume) {
    state.reasons = resume.reasons.map((r) => ({ ...r }));
    for (const source of resume.resolved) resolved.add(source);
    if (resume.at === 'return') {
      state.phase = 'settling';
      state.settledAction = 'return';
      state.partnerStatus = resume.partnerStatus ?? null;
      state.ourStatus = resume.ourStatus ?? null;
      returnNote = resume.returnNote ?? null;
      returnCalledBack = resume.wake === true;
    }
  }
  /** Continues the review as new at a wait's next poll, carrying it (never returns). */
  const continueAsNew = async (at: PaymentReviewCarry['at'], round: number): Promise<never> => {
    await condition(allHandlersFinished);
    const carry: PaymentReviewCarry = {
      at,
      round,
      startedMs,
      reasons: state.reasons,
      resolved: [...resolved],
      ...(at === 'return' ? { partnerStatus: state.partnerStatus, ourStatus: state.ourStatus, returnNote, wake: returnCalledBack } : {}),
      runs: (resume?.runs ?? 0) + 1,
    };
    log.info('payment review continues as new', { paymentId: start.paymentId, at, round, runs: carry.runs });
    return continueWaitAsNew<typeof paymentReviewWorkflow>({ ...start, resume: carry });
  };
  /** The wait's history is long: continue as new (runs from before the patch never do). */
  const longWait = () => patched(REVIEW_WAIT_CONTINUES_PATCH) && historyIsLong();

  const openReasons = () => state.reasons.filter((r) => !resolved.has(r.source));
  const refresh = () => {
    const reasons = openReasons().map((r) => `[${r.source}] ${r.reason}`);
    const head =
      state.phase === 'polling'
        ? `asking the partner for the final status of ${start.paymentId} (1m, 5m, 15m, then hourly)`
        : state.phase === 'late_money'
          ? `LATE MONEY: the partner said ${state.partnerStatus} after we ended ${start.paymentId} ${state.ourStatus}; settle it: payments settle-late ${start.paymentId} --action ${kind === 'charge' ? 'credit|return' : 'accept'} --reason TEXT`
          : state.phase === 'settling'
            ? `late money of ${start.paymentId} settled with ${state.settledAction}: ${returnNote ?? 'applying'}`
            : `partner said ${state.partnerStatus}, we recorded ${state.ourStatus}${contradiction ? `: ${contradiction}${contradictionClosed ? ' (closed by an operator)' : `; close it once looked at: payments review-close ${start.paymentId} --reason TEXT`}` : ''}`;
    setCurrentDetails([head, ...(returnNote && state.phase !== 'settling' ? [returnNote] : []), ...reasons.map((r) => `- ${r}`)].join('\n'));
  };
  const attention = (value: boolean) => {
    state.needsAttention = value;
    upsertSearchAttributes(needsAttentionPairs(value ? attentionReason('payment review', state.phase) : null));
  };

  setHandler(paymentReviewQuery, () => state);
  setHandler(returnCallbackSignal, () => void (returnCalledBack = true));
  setHandler(reviewFlagSignal, (flag: PaymentReviewFlag) => {
    if (!flag || typeof flag.reason !== 'string' || typeof flag.source !== 'string') return;
    if (flag.resolved) {
      // Only a reconciliation break is resolved elsewhere (reconcile resolve, audited); any other
      // source's reason, the contradiction included, is closed by the audited closeReview update.
      if (flag.source !== 'reconciliation' && patched(REVIEW_FLAG_CHECKED_PATCH)) {
        log.warn('reviewFlag resolving a source only closeReview closes: ignored', { paymentId: start.paymentId, source: flag.source });
        return;
      }
      resolved.add(flag.source);
    } else {
      resolved.delete(flag.source);
      // Plain text on one line (issue 43): a reason sent by hand cannot be refused, so what is not plain becomes a space.
      const reason = plainLine(flag.reason);
      if (state.reasons.some((r) => r.source === flag.source && r.reason === reason)) return refresh();
      state.reasons.push({ source: flag.source, reason: reason.slice(0, 500) });
    }
    log.info('payment review flagged', { paymentId: start.paymentId, source: flag.source, resolved: flag.resolved === true });
    refresh();
  });

  const contradictionOpen = () => contradiction !== null && !contradictionClosed && !resolved.has(start.source);
  const closeRefusal = (request: unknown): string | null =>
    closeReviewRefusal(request) ??
    (contradictionOpen() ? null : `nothing to close on the review of ${start.paymentId}: ${state.phase === 'polling' ? 'the partner has not answered yet' : 'no contradiction is open'} (a reconciliation reason is closed by resolving its break)`);
  setHandler(
    closeReviewUpdate,
    async (request) => {
      const why = closeRefusal(request);
      if (why) throw ApplicationFailure.create({ type: 'CloseReviewRefused', message: why, nonRetryable: true });
      const before = { phase: state.phase, partner_status: state.partnerStatus, our_status: state.ourStatus, contradiction };
      contradictionClosed = true;
      refresh();
      await auditOperatorAction({ paymentId: start.paymentId, action: 'payment.review_close', operator: operatorOf(request), reason: request.reason.trim(), batchId: request.batch_id, before, after: { ...before, closed: true } });
      return state;
    },
    {
      validator: (request) => {
        const why = closeRefusal(request);
        if (why) throw new Error(why);
      },
    },
  );

  const refusal = (request: SettleLateRequest): string | null => {
    const shape = settleLateRefusal(request);
    if (shape) return shape;
    if (!kind) return `${start.paymentId} is not a charge, payout or settlement`;
    const action = settleLateActionRefusal(kind, request.action);
    if (action) return action;
    if (state.settledAction || settling) return `the late money of ${start.paymentId} is already settled (${state.settledAction ?? 'in progress'})`;
    if (state.phase !== 'late_money') return `no late money to settle for ${start.paymentId}: the review is ${state.phase} (partner: ${state.partnerStatus ?? 'no final answer yet'})`;
    return null;
  };
  setHandler(
    settleLateAnswerUpdate,
    async (request) => {
      const why = refusal(request);
      if (why) throw ApplicationFailure.create({ type: 'SettleLateRefused', message: why, nonRetryable: true });
      settling = true;
      const operator = operatorOf(request);
      const reason = request.reason.trim();
      try {
        const settled = await steps.settleLateAnswer({ paymentId: start.paymentId, action: request.action, operator, at: new Date().toISOString() });
        state.settledAction = request.action;
        state.ourStatus = settled.after.status;
        state.phase = request.action === 'return' ? 'settling' : 'settled';
        if (request.action === 'return') returnNote = 'return transfer to the payer requested';
        await auditOperatorAction({
          paymentId: start.paymentId,
          action: 'payment.settle_late',
          operator,
          reason,
          batchId: request.batch_id,
          before: { ...settled.before, partner_status: state.partnerStatus },
          after: { ...settled.after, action: request.action, ...(request.evidence ? { evidence: request.evidence } : {}) },
        });
        refresh();
        return { paymentId: start.paymentId, action: request.action, status: settled.after.status, review: state };
      } finally {
        settling = false;
      }
    },
    {
      validator: (request) => {
        const why = refusal(request);
        if (why) throw new Error(why);
      },
    },
  );

  upsertSearchAttributes(needsAttentionPairs(attentionReason('payment review', state.phase)));
  refresh();
  log.warn('payment review started', { paymentId: start.paymentId, source: start.source, reason: start.reason });

  if (resume?.at === 'return') {
    // A continued return watch: the late money was settled with a return already submitted.
    await watchReturn(resume.round);
    state.phase = 'settled';
    return finish();
  }

  // 1. The partner's final word, however long it takes (a sandbox payment never reached a partner).
  let status: RailStatus | null = start.environment === 'sandbox' ? { status: 'unknown' } : null;
  for (let round = resume?.at === 'polling' ? resume.round : 0; status === null; round++) {
    if (longWait()) await continueAsNew('polling', round);
    try {
      const answer = await rail.railStatus({ paymentId: start.paymentId, product: start.product });
      if (isFinal(answer)) status = answer;
    } catch (error) {
      log.warn('payment review: no status from the partner this round', { paymentId: start.paymentId, error: error instanceof Error ? error.message : String(error) });
    }
    if (status === null) await sleep(pollDelay(round));
  }
  const sandbox = start.environment === 'sandbox';
  state.partnerStatus = sandbox ? 'none (a sandbox payment never reaches a partner)' : partnerWord(status);

  // 2. Compared with our record; late money recorded. A sandbox payment has no partner to compare with.
  const verdict: LateVerdict = sandbox
    ? { verdict: 'agrees', ourStatus: 'sandbox', kind: kind ?? 'charge' }
    : await steps.compareLateAnswer({ paymentId: start.paymentId, product: start.product, status, at: new Date().toISOString() });
  state.ourStatus = verdict.ourStatus;
  if (verdict.verdict === 'late_money') {
    state.phase = verdict.settledAction ? 'settled' : 'late_money';
    state.settledAction = verdict.settledAction;
    if (!verdict.settledAction) state.reasons.push({ source: start.source, reason: `late money: the partner said SUCCESSFUL, we had ended it ${verdict.ourStatus}` });
    refresh();
    log.warn('payment review: late money waits for an operator (settleLateAnswer)', { paymentId: start.paymentId, ourStatus: verdict.ourStatus });
    await condition(() => state.settledAction !== null && !settling);
    if (state.settledAction === 'return') await followReturn();
    // A failed settlement batch's run still waits for a retry: tell it the batch was paid after all,
    // so it ends instead of offering to pay the money again.
    if (state.settledAction === 'accept' && kind === 'settlement' && patched(REVIEW_ENDS_SETTLEMENT_WAIT_PATCH)) await endSettlementWait(start.paymentId);
    state.phase = 'settled';
  } else {
    state.phase = 'agreed';
    if (verdict.verdict === 'disagrees') {
      contradiction = verdict.why;
      state.reasons.push({ source: start.source, reason: `the partner contradicts us: ${verdict.why}` });
    }
  }
  refresh();

  // 3. Reasons still open (a reconciliation break, a contradiction): wait until each source is resolved.
  const stillOpen = () => openReasons().some((r) => r.source === 'reconciliation') || contradictionOpen();
  if (state.phase === 'agreed' && stillOpen()) {
    log.warn('payment review: reasons remain open', { paymentId: start.paymentId, contradiction });
    for (;;) {
      await condition(() => !stillOpen());
      // A reviewFlag sent by hand (the Temporal UI) must not close reconciliation reasons whose
      // breaks are still open: the database says (reconcile resolve signals once none is left).
      if (!state.reasons.some((r) => r.source === 'reconciliation') || !patched(REVIEW_FLAG_CHECKED_PATCH)) break;
      const open = await steps.openReconciliationBreaks(start.paymentId);
      if (open === 0) break;
      log.warn('reviewFlag resolved the reconciliation reasons, but breaks are still open: ignored (reconcile resolve BRK_ID --reason TEXT)', { paymentId: start.paymentId, open });
      resolved.delete('reconciliation');
      refresh();
    }
  }
  return finish();

  /** The review's end: NeedsAttention cleared unless a return is still owed to the payer. */
  async function finish(): Promise<PaymentReviewState> {
    if (!returnNote || returnNote.startsWith('returned')) attention(false);
    refresh();
    await condition(allHandlersFinished);
    return state;
  }

  /** A settled `return`: the transfer back to the payer, followed to the partner's final word. */
  async function followReturn(): Promise<void> {
    let refused: string | null = null;
    for (let round = 0; ; round++) {
      const submitted = await steps.submitLateReturn(start.paymentId);
      if (submitted.kind === 'nothing' && submitted.status && patched(RETURN_ENDED_KNOWN_PATCH)) {
        returnNote =
          submitted.status === 'succeeded'
            ? 'returned: the return transfer to the payer was paid'
            : `return transfer failed: the money stays in returns_in_transit; return it by hand and record it: payments settle-return ${start.paymentId} --evidence TEXT --reason TEXT`;
        refresh();
        return;
      }
      if (submitted.kind === 'refused') refused = submitted.reason;
      if (submitted.kind !== 'no_rail') break;
      returnNote = 'return transfer pending: this worker has no partner rail';
      refresh();
      await sleep(pollDelay(round));
    }
    if (refused !== null) {
      returnNote = `return transfer refused by the partner (${refused}): the money stays in returns_in_transit; return it by hand and record it: payments settle-return ${start.paymentId} --evidence TEXT --reason TEXT`;
      await steps.recordLateReturn({ paymentId: start.paymentId, status: 'failed', at: new Date().toISOString() });
      refresh();
      return;
    }
    await steps.recordLateReturn({ paymentId: start.paymentId, status: 'submitted', at: new Date().toISOString() });
    returnNote = 'return transfer submitted to the partner';
    refresh();
    await watchReturn(0);
  }

  /** The submitted return transfer, asked about from poll `first` until the partner's final word. */
  async function watchReturn(first: number): Promise<void> {
    for (let round = first; ; round++) {
      if (longWait()) await continueAsNew('return', round);
      let answer: RailStatus | null = null;
      try {
        answer = await steps.lateReturnStatus(start.paymentId);
      } catch (error) {
        log.warn('payment review: no status for the return transfer this round', { paymentId: start.paymentId, error: error instanceof Error ? error.message : String(error) });
      }
      if (answer?.status === 'succeeded') {
        await steps.recordLateReturn({ paymentId: start.paymentId, status: 'succeeded', at: new Date().toISOString() });
        returnNote = 'returned: the partner paid the return transfer to the payer';
        return;
      }
      if (answer?.status === 'failed') {
        await steps.recordLateReturn({ paymentId: start.paymentId, status: 'failed', at: new Date().toISOString() });
        returnNote = `return transfer FAILED at the partner (${answer.reason}): the money stays in returns_in_transit; return it by hand and record it: payments settle-return ${start.paymentId} --evidence TEXT --reason TEXT`;
        return;
      }
      // The partner's callback for the return ends the wait early (its status is asked at once).
      if (patched(RETURN_CALLBACK_WAKES_PATCH)) {
        await condition(() => returnCalledBack, returnPollDelay(round));
        returnCalledBack = false;
      } else {
        await sleep(returnPollDelay(round));
      }
    }
  }
}

import { RAIL_FAILOVER_PATCH } from '../src/domain/rail-failover';
import { ApplicationFailure, defineQuery, setCurrentDetails, setHandler, upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import type { FailureClass } from '../src/domain/failure-classes';
import { SA } from '../src/domain/search-attributes';
import { isTerminalSettlementStatus, settlementPlan, type SettlementOutcome, type SettlementState } from '../src/domain/settlement';
import { LIVE_PARTNER_RAIL_PATCH, LIVE_PAYOUT_DEADLINE_MS, PARTNER_WORD_PATCH } from '../src/domain/live-rail';
import { followPartner } from './partner-follow';
import { awaitPartnerWord, type PartnerAnswer } from './partner-answer';
import { continueWaitAsNew, followPartnerLongWait } from './partner-long-wait';
import { PARTNER_WAIT_CONTINUES_PATCH } from '../src/domain/partner-wait';
import { startReviewFromWorkflow } from './payment-review-start';
import type { RetriedSettlement } from '../src/domain/settlement-retry';
import { settlementSearchAttributePairs } from '../src/domain/settlement-search-attributes';
import { SETTLEMENT_INPUT_REFUSED, settlementStartProblem, type SettlementStart } from '../src/domain/settlement-start';
import { attentionDesk } from './charge-attention';
import { handlersFinished } from './handlers-finished';
import { timerDesk } from './payout-timers';
import { applySettlementTransition, sweepSettlement } from './settlement-activities';
import { settlementRetryDesk, type RetryDesk } from './settlement-retry';
import { answerRecord } from './record-query';
import { patchesAtStart, SETTLEMENT_PATCHES_AT_START, type PatchCheck } from './patches-at-start';
import { auditRestart } from './operator-restart';

/** Current state of the batch as the workflow last wrote it (`temporal workflow query --type settlementState`; no account data). */
export const settlementStateQuery = defineQuery<SettlementState | undefined>('settlementState');

/**
 * One settlement batch: one merchant's available balance in one environment and currency, swept and
 * paid to its settlement bank account. Workflow id = settlement id (`stl_…`), started by the
 * settlement run (or `settlements run`) with a SettlementStart (src/domain/settlement-start.ts):
 *
 * 0. Refuse to run (non-retryably, `SettlementInputRefused`, nothing written) unless the input is a
 *    SettlementStart, the workflow id is its settlement id, and the run's MerchantId, Environment
 *    and Currency search attributes (when set) are the input's.
 * 1. Sweep (local activity, one transaction; src/persistence/settlements/settlement-store.ts): the batch row, the
 *    swept postings marked, available → reserved (in transit), `settlement.created`. No settlement
 *    account or no positive balance: nothing is written and the run ends `{ kind: 'nothing', reason }`.
 *    A batch already written under this id is returned as it is (nothing moves twice).
 * 2. The payment through the simulator (src/domain/settlement.ts settlementPlan): sandbox, a timer
 *    of about three seconds raced by the sandbox `advance` signal (query `nextTimer`), then paid, or
 *    failed (`declined`) for `outcome: 'failed'`; live: the partner rail's transfer
 *    (workflows/partner-follow.ts; no rail on the worker: failed at once with `partner_unavailable`).
 * 3. Paid: reserved → settlement_clearing, `settlement.paid`; the run ends with the batch. Failed:
 *    reserved → available, `settlement.failed`, and the run stays open waiting for an operator
 *    (workflows/settlement-retry.ts): NeedsAttention = true with the reason (the `chargeAttention`
 *    query answers it, so `payments stuck` lists the batch), current details naming
 *    `settlements retry stl_… --reason TEXT`. The `retrySettlement` update (that command, or the
 *    Temporal UI) starts a new batch for the same balance as a child workflow, clears NeedsAttention,
 *    and the run ends with the failed batch plus `retried_as` and who/why. The new batch sweeps what
 *    is available then (the released money, unless a settlement run swept it first: then it ends
 *    `{ kind: 'nothing' }`); nothing moves twice (the sweep's lock and settlement_entries).
 *
 * Search attributes: PaymentStatus, Amount and FailureClass follow the batch. Database steps retry
 * for a bounded time; one that gives up marks the run NeedsAttention and waits for `retryStep`
 * (workflows/charge-attention.ts). History holds the batch's state only (no account number).
 */
export async function settlementWorkflow(input: SettlementStart): Promise<SettlementOutcome | RetriedSettlement> {
  const { workflowId } = workflowInfo();
  const problem = settlementStartProblem(input);
  if (problem) throw refused(`a settlement workflow takes a SettlementStart (${problem}): refused to run ${workflowId}`);
  // `restart` is audited once, by this run: a run continued as new does not carry it.
  const { restart, ...given } = input;
  const start: SettlementStart = { ...given, outcome: input.outcome ?? null, runId: input.runId ?? null };
  const settlementId = start.settlementId;
  if (workflowId !== settlementId) throw refused(`workflow ${workflowId} was started for settlement ${settlementId}: a settlement workflow runs only under its settlement's id`);
  const mismatch = startedForAnother(start);
  if (mismatch) throw refused(`settlement ${settlementId}: ${mismatch}; the settlement workflow refuses to run`);
  // Before the sweep (the first local activity): replay reads these markers at the same point whatever
  // the workflow tasks of the first run were (workflows/patches-at-start.ts, issue 32 follow-up).
  const isPatched = patchesAtStart(SETTLEMENT_PATCHES_AT_START, start.environment);
  // A run started by `payments restart stl_…` (issue 43) is audited first; any other run has no `restart`.
  await auditRestart(settlementId, 'settlement.restart', restart);

  let batch: SettlementState | undefined;
  setHandler(settlementStateQuery, () => batch);
  answerRecord(() => batch);
  const desk = attentionDesk(settlementId, isPatched);
  const timers = timerDesk(settlementId, () => start.environment);
  const retries = settlementRetryDesk(settlementId, () => batch, isPatched);

  setCurrentDetails(`sweep: moving the ${start.environment} ${start.currency} available balance of ${start.merchantId} into this batch`);
  const swept = await desk.persist('sweep settlement', () => sweepSettlement({ ...start, at: new Date().toISOString() }));
  if (swept.kind === 'nothing') {
    setCurrentDetails(`finished: nothing to settle (${swept.reason})`);
    await handlersFinished(isPatched);
    return swept;
  }
  batch = swept;
  upsertSearchAttributes(settlementSearchAttributePairs(batch));
  if (isTerminalSettlementStatus(batch.status)) return finished(batch, retries, isPatched);

  const finish = async (to: 'paid' | 'failed', failureClass: FailureClass | null): Promise<SettlementState | RetriedSettlement> => {
    const step = `settlement -> ${to}${failureClass ? ` (${failureClass})` : ''}`;
    setCurrentDetails(`writing ${step}`);
    batch = await desk.persist(step, () => applySettlementTransition({ settlementId, to, failureClass, at: new Date().toISOString() }));
    upsertSearchAttributes(settlementSearchAttributePairs(batch));
    return finished(batch, retries, isPatched);
  };

  // Live (issue 20): the partner rail's transfer to the settlement account. Runs from before it
  // replay as they ran (failed at once: no live rail).
  if (batch.environment === 'live' && isPatched(LIVE_PARTNER_RAIL_PATCH)) {
    setCurrentDetails(`on the partner rail: transfer of ${batch.amount} ${batch.currency} to the settlement account; waiting for the partner`);
    if (isPatched(PARTNER_WORD_PATCH)) {
      // Issue 29: only the partner's word ends the batch; without it the money stays in transit
      // (reserved), the batch NeedsAttention, and the settlement run skips this balance meanwhile.
      // Issue 43 (PARTNER_WAIT_CONTINUES_PATCH): the wait continues as new when its history is long
      // (the input's `resume` carries it); `unknown` after an acknowledgement is not final.
      const resume = isPatched(PARTNER_WAIT_CONTINUES_PATCH) ? start.resume : undefined;
      const watch = {
        paymentId: settlementId,
        product: 'disbursement' as const,
        // A continued run keeps the first run's submit window.
        submitUntilMs: resume?.submitUntilMs ?? Date.now() + LIVE_PAYOUT_DEADLINE_MS,
        attention: (reason: string) => {
          desk.flag('partner rail', reason);
          setCurrentDetails(`on the partner rail: ${reason}`);
        },
        // Issue 46: the first transfer may fail over to the next partner of the batch's route. Runs from before replay as they ran.
        ...(isPatched(RAIL_FAILOVER_PATCH) ? { failsOver: (note: string) => setCurrentDetails(`on the partner rail: ${note}`) } : {}),
      };
      if (resume) setCurrentDetails(`on the partner rail: transfer sent at ${new Date(resume.startedMs).toISOString()}; waiting for the partner (run ${resume.runs + 1} of this wait, continued as new to keep its history short)`);
      const answer: PartnerAnswer = isPatched(PARTNER_WAIT_CONTINUES_PATCH)
        ? await followPartnerLongWait(watch, { resume, continueAsNew: (carry) => continueWaitAsNew<typeof settlementWorkflow>({ ...start, resume: carry }) })
        : await awaitPartnerWord(watch);
      if (answer.kind === 'succeeded') {
        const paid = await finish('paid', null);
        // The money moved; how much differs from ours: a payment review keeps it in front of an operator.
        if (answer.mismatch) {
          await startReviewFromWorkflow({ paymentId: settlementId, product: 'disbursement', merchantId: start.merchantId, environment: start.environment, source: 'late_watch', reason: `the partner's SUCCESSFUL differs from the batch: ${answer.mismatch}` });
        }
        return paid;
      }
      if (answer.kind === 'failed') return finish('failed', answer.failureClass);
      throw new Error(`settlement ${settlementId}: the partner wait ended without the partner's word (${answer.kind})`);
    }
    const outcome = await followPartner({
      paymentId: settlementId,
      product: 'disbursement',
      deadlineMs: Date.now() + LIVE_PAYOUT_DEADLINE_MS,
      attention: (reason) => desk.flag('partner rail', reason),
    });
    if (outcome.kind === 'succeeded') return finish('paid', null);
    return finish('failed', outcome.kind === 'failed' ? outcome.failureClass : 'timeout');
  }
  const plan = settlementPlan(batch.environment, batch.sandboxOutcome);
  if (plan.kind === 'fail_now') return finish('failed', plan.failureClass);
  const summary = plan.kind === 'pay' ? "sandbox payment: the settlement reaches the merchant's bank account" : 'sandbox payment: the bank refuses the settlement (outcome failed)';
  setCurrentDetails(`waiting: ${summary} (about 3 s, or advance); ${batch.amount} ${batch.currency} in transit`);
  await timers.wait(plan.afterMs, summary);
  return plan.kind === 'pay' ? finish('paid', null) : finish('failed', plan.failureClass);
}

/**
 * The run's last words: a paid batch ends here. A failed batch needs an operator: the run waits for
 * `retrySettlement` (NeedsAttention = true until then) and ends once the new batch has started.
 */
async function finished(batch: SettlementState, retries: RetryDesk, isPatched: PatchCheck): Promise<SettlementState | RetriedSettlement> {
  if (batch.status !== 'failed') {
    setCurrentDetails(`finished: ${batch.status}`);
    await handlersFinished(isPatched); // an accepted retryStep answers (and writes its audit row) before the run closes
    return batch;
  }
  return retries.awaitRetry(batch);
}

/**
 * The run starts with the batch's MerchantId, Environment and Currency as search attributes; one set
 * to another value than the input's refuses the run, one not set is set here (a batch started by hand).
 */
function startedForAnother(start: SettlementStart): string | undefined {
  const attributes = workflowInfo().typedSearchAttributes;
  const expected = [
    { key: SA.MerchantId, value: start.merchantId },
    { key: SA.Environment, value: start.environment },
    { key: SA.Currency, value: start.currency },
  ];
  const wrong = expected.filter(({ key, value }) => attributes.get(key) !== undefined && attributes.get(key) !== value);
  if (wrong.length > 0) {
    return `the run's search attributes say ${wrong.map(({ key }) => `${key.name}=${attributes.get(key)}`).join(', ')}, the input ${start.merchantId} ${start.environment} ${start.currency}`;
  }
  const missing = expected.filter(({ key }) => attributes.get(key) === undefined);
  if (missing.length > 0) upsertSearchAttributes(missing);
  return undefined;
}

function refused(message: string): ApplicationFailure {
  return ApplicationFailure.create({ type: SETTLEMENT_INPUT_REFUSED, message, nonRetryable: true });
}

import {
  allHandlersFinished,
  ApplicationFailure,
  condition,
  log,
  makeContinueAsNewFunc,
  ParentClosePolicy,
  patched,
  proxyActivities,
  setCurrentDetails,
  setHandler,
  startChild,
  upsertSearchAttributes,
  uuid4,
  workflowInfo,
  type ActivityOptions,
} from '@temporalio/workflow';
import type { SettlementActivities } from '../activities/types';
import { PARTNER_WORD_PATCH } from '../src/domain/live-rail';
import { askPartnerOnce } from './partner-answer';
import { startReviewFromWorkflow } from './payment-review-start';
import { NO_ATTENTION, type ChargeAttention } from '../src/domain/charge-attention';
import { attentionReason, needsAttentionPairs } from '../src/domain/attention-reason';
import { settlementFailureReason, type SettlementOutcome, type SettlementState } from '../src/domain/settlement';
import {
  RETRY_SENDER_ALIASES,
  RETRY_UNNAMED_SENDER,
  retryCommand,
  retryRequestRefusal,
  retryPartnerRefusal,
  retryRecordRefusal,
  retryStateRefusal,
  SETTLEMENT_RETRY_REFUSED,
  type RetriedSettlement,
  type SettlementRetry,
} from '../src/domain/settlement-retry';
import { settlementIdFromHex } from '../src/domain/settlement-run';
import { settlementStartSearchAttributePairs } from '../src/domain/settlement-search-attributes';
import { SETTLEMENT_WORKFLOW_TYPE, type SettlementStart } from '../src/domain/settlement-start';
import { operatorOf } from '../src/domain/operator-action';
import { workflowDetails } from '../src/domain/workflow-details';
import { chargeAttentionQuery } from './messages';
import { auditOperatorAction } from './operator-audit';
import { RETRY_WAITS_FOR_BUILD_MOVE, retrySettlementUpdate } from './settlement-retry-messages';
import { settlementSettledLateSignal } from './settlement-settled-late';
import { continueWaitAsNew, historyIsLong } from './partner-long-wait';

/** The settlement workflow's signature, by its type name (no import of workflows/settlement.ts, which imports this file). */
type SettlementWorkflowFn = (input: SettlementStart) => Promise<SettlementOutcome | RetriedSettlement>;

/**
 * Issue 31, finding 8: a failed batch waiting for its retry does not hold an old build forever. On a
 * versioned deployment (workers/worker-versioning.ts) the run is pinned to the build it started on,
 * and its retry's new batch (a child on the same queue) would inherit that build. With this patch the
 * wait checks every BUILD_CHECK_INTERVAL_MS, and on every workflow task (a retry request included),
 * whether the deployment's current build changed (`targetWorkerDeploymentVersionChanged`, Temporal
 * server 1.31 or newer; always false on an unversioned worker). When it has, the run continues as new
 * with `initialVersioningBehavior: 'AUTO_UPGRADE'`: the next run starts on the current build, finds
 * its batch already written (the sweep returns it, nothing moves) and waits there. A retry that
 * arrives before the move is refused (RETRY_WAITS_FOR_BUILD_MOVE) in the same task that moves the run;
 * `settlements retry` sends it again to the new run, so the new batch starts on the current build.
 */
export const SETTLEMENT_WAIT_FOLLOWS_CURRENT_BUILD_PATCH = 'settlement-wait-follows-current-build';

/**
 * `patched()` id (issue 43, Medium "no continue-as-new in partner waits"): a failed batch's wait for
 * its retry (SETTLEMENT_WAIT_FOLLOWS_CURRENT_BUILD_PATCH's hourly build check: five events an hour)
 * continues as new once the run's history is long (PARTNER_WAIT_HISTORY_EVENTS, or the server's
 * suggestion), as the build move does: the next run's sweep finds the failed batch written and goes
 * straight back to waiting. The wait has no deadline to carry; the batch, its failure and since when
 * it waits are the database's. Decided at the run's start (SETTLEMENT_PATCHES_AT_START). Runs from
 * before replay as they ran (terminated by the server's history limit after about a year).
 */
export const FAILED_BATCH_WAIT_CONTINUES_PATCH = 'failed-batch-wait-continues-as-new';

/** How often a failed batch waiting for its retry looks for a newer current build (a timer; nothing else wakes an idle run). */
export const BUILD_CHECK_INTERVAL_MS = 60 * 60 * 1000;

/** Memo of a run continued onto the current build: the build it left (`deployment:build id`), so a run kept there (a pinned override) does not move again and again. */
const MOVED_FROM_MEMO = 'movedFromBuild';

const versionKey = (v: { deploymentName: string; buildId: string } | undefined) => (v ? `${v.deploymentName}:${v.buildId}` : '');

/**
 * `patched()` id (issue 31): a failed batch's run ends on `settlementSettledLate` only when the
 * database says the batch was accepted as paid late (its status `paid`); a signal sent by hand to a
 * batch nobody accepted is ignored. Runs from before trusted the signal, and replay so.
 */
export const SETTLED_LATE_CHECKED_PATCH = 'settled-late-checked';

/**
 * `patched()` id (issue 43, finding 4): a retry of a failed live batch first reads what our records
 * hold (settlementRetryFacts): late money recorded for it, or the partner's SUCCESSFUL on record,
 * refuses the retry (settle-late accepts it instead); then, whatever its failure class, a batch with a
 * partner reference asks the partner, and only FAILED or `unknown` lets the money go out again (a
 * SUCCESSFUL also starts the batch's payment review, which records the late money). Runs from before
 * asked the partner only for a batch failed with `timeout`, and replay so.
 */
export const SETTLEMENT_RETRY_ASKS_PARTNER_PATCH = 'settlement-retry-asks-partner';

/** The stored status read: retried until the database answers (the wait must not end on a guess). */
const STATUS_READ: ActivityOptions = { startToCloseTimeout: '30s', retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '1m' } };
const stored = proxyActivities<Pick<SettlementActivities, 'settlementStatus' | 'settlementRetryFacts'>>(STATUS_READ);

/**
 * Why a failed live batch is not retried, or null (SETTLEMENT_RETRY_ASKS_PARTNER_PATCH): our records
 * first (late money, the partner's SUCCESSFUL), then the partner itself when the batch has a reference.
 */
async function liveRetryRefusal(batch: SettlementState): Promise<string | null> {
  const facts = await stored.settlementRetryFacts.executeWithOptions({ ...STATUS_READ, summary: 'retry: late money or a partner SUCCESSFUL on record?' }, [batch.id]);
  const recorded = retryRecordRefusal(batch.id, facts);
  if (recorded) return recorded;
  if (!facts.hasReference) return null;
  const answer = await askPartnerOnce({ paymentId: batch.id, product: 'disbursement' }, 'partner: status of the failed batch, before a retry');
  if (answer?.status === 'succeeded') {
    // Paid after all: its payment review asks again, records the late money and waits for settle-late.
    await startReviewFromWorkflow({
      paymentId: batch.id,
      product: 'disbursement',
      merchantId: batch.merchantId,
      environment: batch.environment,
      source: 'late_watch',
      reason: 'the partner says SUCCESSFUL for a batch we recorded failed (asked before a retry)',
    });
  }
  return retryPartnerRefusal(batch.id, answer?.status);
}

/** A failed batch's run that ended because its payment review accepted it as paid late. */
export type SettledLateSettlement = SettlementState & { settled_late: true };

export interface RetryDesk {
  /**
   * A failed batch waits here for an operator: NeedsAttention = true, the `chargeAttention` query
   * answers why (what `payments stuck` shows), the current details name the command. Ends once a
   * `retrySettlement` has started the new batch and cleared NeedsAttention: the batch's state with
   * `retried_as` and who/why. No timer: the wait costs no history.
   */
  awaitRetry(batch: SettlementState): Promise<RetriedSettlement | SettledLateSettlement>;
}

/**
 * The failed batch's run continues as new on the deployment's current build (a run of the same
 * type, same id and queue; memo and search attributes carried over by the server). Its input is the
 * batch's own start: the next run's sweep finds the batch written and returns it, so it goes straight
 * back to waiting for its retry.
 */
async function continueOnCurrentBuild(batch: SettlementState): Promise<never> {
  const info = workflowInfo();
  const from = versionKey(info.currentDeploymentVersion);
  log.info('settlement batch waiting for a retry moves to the current build', { settlementId: batch.id, from });
  setCurrentDetails(`moving to the current build (from ${from}): the batch waits for its retry there`);
  return makeContinueAsNewFunc<SettlementWorkflowFn>({ initialVersioningBehavior: 'AUTO_UPGRADE', memo: { ...(info.memo ?? {}), [MOVED_FROM_MEMO]: from } })(batchStart(batch));
}

/** The failed batch's own start: a run started with it finds the batch written (the sweep returns it) and waits for its retry. */
function batchStart(batch: SettlementState): SettlementStart {
  return {
    settlementId: batch.id,
    merchantId: batch.merchantId,
    environment: batch.environment,
    currency: batch.currency,
    outcome: batch.sandboxOutcome === 'failed' ? 'failed' : null,
    runId: null,
  };
}

/**
 * FAILED_BATCH_WAIT_CONTINUES_PATCH: the failed batch's wait continues as new to keep its history
 * short, on the build it runs on (memo kept: a run moved onto its build does not move again), its
 * search attributes carried (NeedsAttention and its reason: `payments stuck` keeps listing it).
 */
function continueFailedWait(batch: SettlementState): Promise<never> {
  log.info('failed settlement batch waiting for a retry continues as new (long history)', { settlementId: batch.id, historyLength: workflowInfo().historyLength });
  return continueWaitAsNew<SettlementWorkflowFn>(batchStart(batch));
}

/**
 * Registers the `retrySettlement` update of one settlement batch (at the start, so an early request
 * is refused with a reason, not for want of a handler). Its validator refuses a blank reason, a batch
 * that is not failed (or not swept yet), and a second retry; nothing is written then. The handler
 * starts the new batch as a child workflow (id `stl_` + 24 base62 characters from the history-seeded
 * `uuid4`, as the settlement run makes them; same task queue; parent close policy ABANDON; search
 * attributes MerchantId, Environment, Currency, NeedsAttention false; outcome null), then clears
 * NeedsAttention and answers.
 */
export function settlementRetryDesk(settlementId: string, current: () => SettlementState | undefined, isPatched: (patchId: string) => boolean = patched): RetryDesk {
  let waiting = false;
  let retrying = false;
  let retried: { as: string; retry: SettlementRetry } | undefined;
  let attention: ChargeAttention | undefined;
  /** A payment review accepted the batch as paid late (workflows/settlement-settled-late.ts): the wait ends, nothing is retried. */
  let settledLate = false;
  setHandler(settlementSettledLateSignal, () => void (settledLate = true));
  /** The wait follows the current build (SETTLEMENT_WAIT_FOLLOWS_CURRENT_BUILD_PATCH). */
  let followsCurrentBuild = false;
  /** A newer build is current and this run has not come from a move onto the build it runs on. */
  const buildMoveDue = () => {
    if (!followsCurrentBuild) return false;
    const info = workflowInfo();
    if (!info.targetWorkerDeploymentVersionChanged) return false;
    const from = info.memo?.[MOVED_FROM_MEMO];
    return !(typeof from === 'string' && from !== '' && from === versionKey(info.currentDeploymentVersion));
  };

  /**
   * Whether the batch was accepted as paid late, as the database says (its payment review's
   * settle-late wrote it `paid` before the signal): otherwise the signal is ignored, logged as a
   * warning, and the batch waits on. Runs from before SETTLED_LATE_CHECKED_PATCH trusted the signal.
   */
  const settledLateConfirmed = async (): Promise<boolean> => {
    if (!patched(SETTLED_LATE_CHECKED_PATCH)) return true;
    const status = await stored.settlementStatus.executeWithOptions({ ...STATUS_READ, summary: 'settled late? the batch as stored' }, [settlementId]);
    if (status === 'paid') return true;
    log.warn('settlementSettledLate signal for a batch not accepted as paid late (stored status is not paid): ignored; it still waits for a retry', { settlementId, status });
    settledLate = false;
    return false;
  };

  const refusal = () =>
    retryStateRefusal(settlementId, current(), retried?.as, retrying) ??
    (settledLate ? `settlement ${settlementId} was accepted as paid late (the partner paid it after all): nothing to retry` : null) ??
    (waiting ? null : `settlement ${settlementId} is not waiting for a retry`) ??
    (buildMoveDue() ? `settlement ${settlementId} ${RETRY_WAITS_FOR_BUILD_MOVE}: nothing changed, send the retry again in a few seconds` : null);

  setHandler(
    retrySettlementUpdate,
    async (request) => {
      const why = refusal();
      if (why) throw ApplicationFailure.create({ type: SETTLEMENT_RETRY_REFUSED, message: why, nonRetryable: true });
      const batch = current()!;
      retrying = true;
      if (batch.environment === 'live' && patched(SETTLEMENT_RETRY_ASKS_PARTNER_PATCH)) {
        // Issue 43: a failed live batch may have been paid after all, whatever its failure class.
        const why = await liveRetryRefusal(batch);
        if (why) {
          retrying = false;
          log.warn('settlement retry refused: the batch may have been paid', { settlementId, why });
          throw ApplicationFailure.create({ type: SETTLEMENT_RETRY_REFUSED, message: why, nonRetryable: true });
        }
      } else if (batch.environment === 'live' && batch.failureClass === 'timeout' && patched(PARTNER_WORD_PATCH)) {
        // Issue 29: a live batch failed without the partner's word (a run from before PARTNER_WORD_PATCH
        // failed it with `timeout`) may have been paid: ask the partner before a retry that might pay twice.
        const answer = await askPartnerOnce({ paymentId: settlementId, product: 'disbursement' }, 'partner: status of the failed batch, before a retry');
        const why = retryPartnerRefusal(settlementId, answer?.status);
        if (why) {
          retrying = false;
          throw ApplicationFailure.create({ type: SETTLEMENT_RETRY_REFUSED, message: why, nonRetryable: true });
        }
      }
      const retry: SettlementRetry = { reason: request.reason.trim(), by: operatorOf(request, RETRY_SENDER_ALIASES) || RETRY_UNNAMED_SENDER, at: new Date().toISOString() };
      // Two uuid4s before any await: the same id on replay.
      const newId = settlementIdFromHex(uuid4() + uuid4());
      const start: SettlementStart = { settlementId: newId, merchantId: batch.merchantId, environment: batch.environment, currency: batch.currency, outcome: null, runId: null };
      try {
        await startChild<SettlementWorkflowFn>(SETTLEMENT_WORKFLOW_TYPE, {
          workflowId: newId,
          taskQueue: workflowInfo().taskQueue,
          args: [start],
          parentClosePolicy: ParentClosePolicy.ABANDON,
          workflowIdReusePolicy: 'REJECT_DUPLICATE',
          typedSearchAttributes: settlementStartSearchAttributePairs(batch),
          staticSummary: `retry of failed settlement ${settlementId}: ${batch.environment} ${batch.currency} for ${batch.merchantId}`,
          staticDetails: workflowDetails({ kind: 'Settlement batch', id: newId, merchantId: batch.merchantId, environment: batch.environment, currency: batch.currency, extra: { 'retry of': settlementId, by: retry.by, reason: retry.reason } }),
        });
      } catch (error) {
        retrying = false;
        const message = error instanceof Error ? error.message : String(error);
        log.warn('settlement retry: the new batch did not start; still waiting for a retry', { settlementId, newId, error: message });
        throw ApplicationFailure.create({ type: SETTLEMENT_RETRY_REFUSED, message: `settlement ${settlementId}: the new batch ${newId} did not start (${message}); nothing changed, send the retry again`, nonRetryable: true });
      }
      retried = { as: newId, retry };
      attention = { ...(attention ?? NO_ATTENTION), needsAttention: false, operatorRetries: 1, lastRetry: { at: retry.at, by: 'operator', reason: `${retry.reason} (by ${retry.by}; retried as ${newId})` } };
      upsertSearchAttributes(needsAttentionPairs(null));
      setCurrentDetails(`finished: failed, retried as ${newId} by ${retry.by}: ${retry.reason}`);
      log.info('settlement batch retried', { settlementId, retriedAs: newId, by: retry.by, reason: retry.reason });
      await auditOperatorAction({ paymentId: settlementId, action: 'settlement.retry', operator: retry.by, reason: retry.reason, batchId: request.batch_id, before: batch, after: { ...batch, retried_as: newId } });
      return { id: settlementId, status: 'failed', retried_as: newId, retry };
    },
    {
      validator: (request) => {
        const why = retryRequestRefusal(request) ?? refusal();
        if (why) throw new Error(why);
      },
    },
  );

  return {
    async awaitRetry(batch) {
      attention = { ...NO_ATTENTION, needsAttention: true, step: 'settlement payment', reason: settlementFailureReason(batch), since: batch.updatedAt };
      setHandler(chargeAttentionQuery, () => attention!);
      upsertSearchAttributes(needsAttentionPairs(attentionReason('settlement failed', batch.failureClass ?? undefined)));
      setCurrentDetails(
        `waiting for an operator: failed (${batch.failureClass ?? 'unknown'}), ${batch.amount} ${batch.currency} returned to available. ` +
          `Retry: ${retryCommand(batch.id)} (or the retrySettlement update from the Temporal UI: {"reason":"…"})`,
      );
      log.warn('settlement batch failed: waiting for an operator (retrySettlement)', { settlementId, failureClass: batch.failureClass });
      waiting = true;
      const wait = async () => {
        // Asked right after the failed transition (a local activity): decided at start by new runs (workflows/patches-at-start.ts).
        if (isPatched(SETTLEMENT_WAIT_FOLLOWS_CURRENT_BUILD_PATCH)) {
          followsCurrentBuild = true;
          const ended = () => retried !== undefined || settledLate;
          const continues = isPatched(FAILED_BATCH_WAIT_CONTINUES_PATCH);
          for (;;) {
            await condition(() => ended() || (buildMoveDue() && !retrying && allHandlersFinished()), BUILD_CHECK_INTERVAL_MS);
            if (ended()) break;
            if (buildMoveDue() && !retrying && allHandlersFinished()) await continueOnCurrentBuild(batch);
            if (continues && historyIsLong() && !retrying && allHandlersFinished()) await continueFailedWait(batch);
          }
        } else {
          await condition(() => retried !== undefined || settledLate);
        }
      };
      await wait();
      // A settlementSettledLate signal sent by hand (the Temporal UI) must not end the wait of a batch
      // nobody accepted as paid: only the payment review's audited settle-late does (issue 31).
      while (!retried && !(await settledLateConfirmed())) await wait();
      if (!retried) {
        // Accepted as paid late by its payment review: the run ends with the batch as it was written then.
        waiting = false;
        attention = { ...attention!, needsAttention: false };
        upsertSearchAttributes(needsAttentionPairs(null));
        setCurrentDetails('finished: the partner paid this batch after all; accepted as paid by its payment review (payments settle-late)');
        await condition(allHandlersFinished);
        return { ...batch, settled_late: true };
      }
      // The update's answer goes out before the run closes.
      await condition(allHandlersFinished);
      return { ...batch, retried_as: retried!.as, retry: retried!.retry };
    },
  };
}

import { ActivityFailure, ApplicationFailure, condition, log, patched, setHandler, TimeoutFailure, workflowInfo } from '@temporalio/workflow';
import {
  BOUNDED_DB_RETRIES_PATCH,
  CHARGE_NOT_RECORDED,
  DOMAIN_REFUSALS,
  isAutomaticRetry,
  MAX_REASON_LENGTH,
  NO_ATTENTION,
  retryRefusal,
  type ActivityTrouble,
  type ChargeAttention,
  type RetryRequester,
} from '../src/domain/charge-attention';
import { publishNeedsAttention } from './charge-search-attributes';
import { attentionReason } from '../src/domain/attention-reason';
import { SA } from '../src/domain/search-attributes';
import { operatorOf, RECONCILER_OPERATOR, retryStepAction } from '../src/domain/operator-action';
import { activityRecoveredSignal, activityTroubleSignal, chargeAttentionQuery, retryStepUpdate, type RetryStepResult } from './messages';
import { auditOperatorAction } from './operator-audit';

/**
 * The failure of a local activity as the workflow sees it: the activity's own failure (an
 * ApplicationFailure, once its retries ran out or when it is not retryable), a TimeoutFailure
 * (schedule-to-close), or either wrapped in an ActivityFailure.
 */
type StepFailure = ApplicationFailure | TimeoutFailure | ActivityFailure;

const failureOf = (error: StepFailure) => (error instanceof ActivityFailure && error.cause ? error.cause : error);

/**
 * A database step that gave up: its bounded retries ran out (or timed out), or the database refused
 * the input for good (DeterministicDatabaseError). A refusal by the charge's rules is not one.
 */
export function gaveUp(error: unknown): error is StepFailure {
  if (!(error instanceof ActivityFailure || error instanceof ApplicationFailure || error instanceof TimeoutFailure)) return false;
  const failure = failureOf(error);
  return !(failure instanceof ApplicationFailure && failure.type && DOMAIN_REFUSALS.includes(failure.type));
}

/** How it gave up and what failed last, in one line for operators (no stack). */
export function lastError(error: StepFailure): { how: string; what: string } {
  const failure = failureOf(error);
  const how = failure instanceof TimeoutFailure ? 'timed out' : failure instanceof ApplicationFailure && failure.nonRetryable ? 'not retryable' : 'retries exhausted';
  const type = failure instanceof ApplicationFailure && failure.type ? failure.type : failure.name;
  return { how, what: `${type}: ${failure.message}` };
}

export interface PersistOptions {
  /**
   * When the step gives up: fail the run (NeedsAttention set, the reason as the failure) instead of
   * waiting for `retryStep`. For a step that is safe to repeat from scratch by the next run (the
   * settlement run's page step: the next scheduled run starts afresh, and a run waiting forever
   * would hold the Schedule, whose overlap policy skips every later run).
   */
  failRunOnGiveUp?: { type: string; patch: string; next: string };
}

export interface AttentionDesk {
  /**
   * Runs a database step; when it gives up, marks the charge NeedsAttention with the reason and
   * waits (durably: no timer, no history) for `retryStep`, then runs the step again (another bounded
   * round), until it succeeds; NeedsAttention stays true until then. A refusal by the charge's rules
   * is thrown as before.
   */
  persist<T>(step: string, attempt: () => Promise<T>, options?: PersistOptions): Promise<T>;
  /**
   * Marks the charge NeedsAttention for a reason that is not a database step (an indeterminate
   * charge waiting for its partner's answer); the next step that succeeds clears it.
   */
  flag(step: string, reason: string): void;
}

/** Registers the `chargeAttention` query and the `retryStep` update of one charge workflow. */
export function attentionDesk(chargeId: string, isPatched: (patchId: string) => boolean = patched): AttentionDesk {
  let state: ChargeAttention = { ...NO_ATTENTION };
  let retry: { by: RetryRequester; reason: string } | undefined;

  setHandler(chargeAttentionQuery, () => state);
  // An activity failing past ACTIVITY_ATTENTION_ATTEMPTS (the worker says so): flag it with the last
  // failure, unless a step already gave up (that reason stands); clear it once the activity recovers.
  let trouble: ActivityTrouble | undefined;
  setHandler(activityTroubleSignal, (signalled) => {
    if (state.needsAttention && !trouble) return;
    const since = trouble ? state.since : new Date().toISOString();
    trouble = signalled;
    const reason = `${signalled.activity}: still failing at attempt ${signalled.attempt}: ${signalled.failure}`.slice(0, MAX_REASON_LENGTH);
    state = { ...state, needsAttention: true, step: signalled.activity, reason, since };
    publishNeedsAttention(true, attentionReason('activity failing', signalled.activity));
    log.warn('payment needs attention: an activity keeps failing', { chargeId, activity: signalled.activity, attempt: signalled.attempt });
  });
  setHandler(activityRecoveredSignal, ({ activity }) => {
    if (!trouble || trouble.activity !== activity) return;
    trouble = undefined;
    state = { ...state, needsAttention: false };
    publishNeedsAttention(false);
    log.info('activity recovered: NeedsAttention cleared', { chargeId, activity });
  });
  setHandler(
    retryStepUpdate,
    async (request) => {
      const by: RetryRequester = isAutomaticRetry(request) ? 'reconciler' : 'operator';
      const before = state;
      retry = { by, reason: request.reason.trim() };
      const at = new Date().toISOString();
      state = {
        ...state,
        operatorRetries: state.operatorRetries + (by === 'operator' ? 1 : 0),
        automaticRetries: state.automaticRetries + (by === 'reconciler' ? 1 : 0),
        lastRetry: { at, by, reason: retry.reason },
      };
      log.info('charge database step retried', { chargeId, step: state.step, by, reason: retry.reason });
      const answer: RetryStepResult = { chargeId, step: state.step!, by };
      // Requests recorded before issue 31 could say `by: "reconciler"` without an operator.
      const operator = operatorOf(request) || RECONCILER_OPERATOR;
      await auditOperatorAction({ paymentId: chargeId, action: retryStepAction(chargeId), operator, reason: request.reason.trim(), batchId: request.batch_id, before, after: state });
      return answer;
    },
    {
      validator: (request) => {
        if (retry && state.needsAttention) throw new Error(`charge ${chargeId}: a retry of "${state.step}" is already under way`);
        if (trouble) throw new Error(`${chargeId}: ${trouble.activity} is still being retried by the worker (attempt ${trouble.attempt}); retryStep applies once a step gives up`);
        // What the run published as NeedsAttentionReason: a payout on the partner rail says `waiting: partner rail` there only.
        const refusal = retryRefusal(chargeId, state, request, workflowInfo().typedSearchAttributes.get(SA.NeedsAttentionReason));
        if (refusal) throw new Error(refusal);
      },
    },
  );

  return {
    flag(step, reason) {
      state = { ...state, needsAttention: true, step, reason: reason.slice(0, MAX_REASON_LENGTH), since: new Date().toISOString() };
      publishNeedsAttention(true, attentionReason('waiting', step));
      log.warn('charge needs attention', { chargeId, step, reason: state.reason });
    },
    async persist(step, attempt, options) {
      for (;;) {
        try {
          const result = await attempt();
          if (state.needsAttention) {
            trouble = undefined;
            state = { ...state, needsAttention: false };
            publishNeedsAttention(false);
            log.info('charge database step succeeded after a retry', { chargeId, step });
          }
          return result;
        } catch (error) {
          // Runs recorded before bounded retries never reach this point; the patch keeps any run
          // that does (new, or in flight during the deploy) on one path when replayed.
          if (!gaveUp(error) || !isPatched(BOUNDED_DB_RETRIES_PATCH)) throw error;
          const { how, what } = lastError(error);
          const reason = `${step}: gave up (${how}): ${what}`.slice(0, MAX_REASON_LENGTH);
          state = { ...state, needsAttention: true, step, reason, since: new Date().toISOString(), giveUps: state.giveUps + 1 };
          trouble = undefined;
          retry = undefined;
          publishNeedsAttention(true, attentionReason('step gave up', step));
          const fail = options?.failRunOnGiveUp;
          if (fail && patched(fail.patch)) {
            log.warn('a database step gave up: the run fails', { chargeId, step, reason });
            throw ApplicationFailure.create({ type: fail.type, message: `${reason}; ${fail.next}`, nonRetryable: true });
          }
          log.warn('charge needs attention: a database step gave up; waiting for retryStep', { chargeId, step, reason });
          await condition(() => retry !== undefined);
        }
      }
    },
  };
}

/** The acceptance could not be recorded: no charge row, no ledger entry, no event exist. */
export function neverRecorded(error: StepFailure): ApplicationFailure {
  const { how, what } = lastError(error);
  return ApplicationFailure.create({
    type: CHARGE_NOT_RECORDED,
    message: `charge was never recorded: ${what} (${how})`.slice(0, MAX_REASON_LENGTH),
    nonRetryable: true,
    cause: error,
  });
}

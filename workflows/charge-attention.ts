import { ActivityFailure, ApplicationFailure, condition, log, patched, setHandler, TimeoutFailure } from '@temporalio/workflow';
import {
  BOUNDED_DB_RETRIES_PATCH,
  CHARGE_NOT_RECORDED,
  DOMAIN_REFUSALS,
  MAX_REASON_LENGTH,
  NO_ATTENTION,
  retryRefusal,
  type ChargeAttention,
  type RetryRequester,
} from '../src/domain/charge-attention';
import { publishNeedsAttention } from './charge-search-attributes';
import { chargeAttentionQuery, retryStepUpdate } from './messages';

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

export interface AttentionDesk {
  /**
   * Runs a database step; when it gives up, marks the charge NeedsAttention with the reason and
   * waits (durably: no timer, no history) for `retryStep`, then runs the step again (another bounded
   * round), until it succeeds; NeedsAttention stays true until then. A refusal by the charge's rules
   * is thrown as before.
   */
  persist<T>(step: string, attempt: () => Promise<T>): Promise<T>;
}

/** Registers the `chargeAttention` query and the `retryStep` update of one charge workflow. */
export function attentionDesk(chargeId: string): AttentionDesk {
  let state: ChargeAttention = { ...NO_ATTENTION };
  let retry: { by: RetryRequester; reason: string } | undefined;

  setHandler(chargeAttentionQuery, () => state);
  setHandler(
    retryStepUpdate,
    (request) => {
      const by = request.by ?? 'operator';
      retry = { by, reason: request.reason.trim() };
      const at = new Date().toISOString();
      state = {
        ...state,
        operatorRetries: state.operatorRetries + (by === 'operator' ? 1 : 0),
        automaticRetries: state.automaticRetries + (by === 'reconciler' ? 1 : 0),
        lastRetry: { at, by, reason: retry.reason },
      };
      log.info('charge database step retried', { chargeId, step: state.step, by, reason: retry.reason });
      return { chargeId, step: state.step!, by };
    },
    {
      validator: (request) => {
        if (retry && state.needsAttention) throw new Error(`charge ${chargeId}: a retry of "${state.step}" is already under way`);
        const refusal = retryRefusal(chargeId, state, request);
        if (refusal) throw new Error(refusal);
      },
    },
  );

  return {
    async persist(step, attempt) {
      for (;;) {
        try {
          const result = await attempt();
          if (state.needsAttention) {
            state = { ...state, needsAttention: false };
            publishNeedsAttention(false);
            log.info('charge database step succeeded after a retry', { chargeId, step });
          }
          return result;
        } catch (error) {
          // Runs recorded before bounded retries never reach this point; the patch keeps any run
          // that does (new, or in flight during the deploy) on one path when replayed.
          if (!gaveUp(error) || !patched(BOUNDED_DB_RETRIES_PATCH)) throw error;
          const { how, what } = lastError(error);
          const reason = `${step}: gave up (${how}): ${what}`.slice(0, MAX_REASON_LENGTH);
          state = { ...state, needsAttention: true, step, reason, since: new Date().toISOString(), giveUps: state.giveUps + 1 };
          retry = undefined;
          publishNeedsAttention(true);
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

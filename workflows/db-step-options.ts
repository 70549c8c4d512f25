import type { LocalActivityOptions } from '@temporalio/workflow';
import { DB_STEP_RETRY } from '../src/domain/charge-attention';

/**
 * Local activity options of a database step (charges, payouts, refunds, disputes, settlements,
 * settlement runs): the bounded retries of src/domain/charge-attention.ts (40 attempts over about 16
 * minutes, 30 minutes at most), after which the workflow asks an operator (NeedsAttention,
 * `retryStep`). `nonRetryableErrorTypes`: the errors the same input would raise again, never retried.
 */
export function dbStepOptions(nonRetryableErrorTypes: string[]): LocalActivityOptions {
  return {
    startToCloseTimeout: DB_STEP_RETRY.startToCloseMs,
    scheduleToCloseTimeout: DB_STEP_RETRY.scheduleToCloseMs,
    localRetryThreshold: DB_STEP_RETRY.localRetryThresholdMs,
    retry: {
      initialInterval: DB_STEP_RETRY.initialIntervalMs,
      backoffCoefficient: DB_STEP_RETRY.backoffCoefficient,
      maximumInterval: DB_STEP_RETRY.maximumIntervalMs,
      maximumAttempts: DB_STEP_RETRY.maximumAttempts,
      nonRetryableErrorTypes,
    },
  };
}

import { defineUpdate } from '@temporalio/workflow';
import type { RetrySettlementRequest, RetrySettlementResult } from '../src/domain/settlement-retry';

/**
 * An operator's retry of a failed settlement batch (`settlements retry stl_… --reason TEXT`, or the
 * Temporal UI with `{"reason":"…"}`). Validated by the workflow: a non-blank reason, a batch that
 * failed and was not retried yet. Starts a new batch for the same merchant, environment and currency
 * (a child workflow, `retried_as`), clears NeedsAttention, and answers once the new batch has started;
 * the failed batch's workflow then ends with `retried_as`.
 */
export const retrySettlementUpdate = defineUpdate<RetrySettlementResult, [RetrySettlementRequest]>('retrySettlement');

/**
 * The refusal of a retry sent to a failed batch while a newer build is current: in the same workflow
 * task the run continues as new on the current build (workflows/settlement-retry.ts), and the retry
 * sent again reaches the new run there (`settlements retry` does so itself).
 */
export const RETRY_WAITS_FOR_BUILD_MOVE = 'is moving to the current build first';

import { ApplicationFailure, continueAsNew, defineQuery, log, proxyActivities, setCurrentDetails, setHandler, workflowInfo } from '@temporalio/workflow';
import type { WebhookRecoveryActivities } from '../activities/types';
import { RECOVERY_PAGE_SIZE, RECOVERY_PAGES_PER_RUN, type WebhookRecoveryInput, type WebhookRecoveryResult } from '../src/domain/webhook-recovery';

/** Error type of a run refused at its start (malformed input): nothing is read or sent. */
export const WEBHOOK_RECOVERY_INPUT_REFUSED = 'WebhookRecoveryInputRefused';

/** Where the recovery (this chain of runs) is: `temporal workflow query --type webhookRecovery`. */
export const webhookRecoveryQuery = defineQuery<WebhookRecoveryResult>('webhookRecovery');

const { recoverWebhookPage } = proxyActivities<WebhookRecoveryActivities>({
  // One transaction of at most a page of inserts, then at most a page of workflow starts (each bounded
  // by TEMPORAL_REQUEST_DEADLINE_MS in the activity).
  startToCloseTimeout: '2 minutes',
  // A page is safe to repeat (activities/webhook-recovery.ts). A database or Temporal that stays away
  // is retried for as long as it takes, with no history growth: the merchant is owed these events.
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute', nonRetryableErrorTypes: ['DeterministicDatabaseError', 'RecoveryNotFound'] },
});

/**
 * One webhook recovery (issue 49; src/domain/webhook-recovery.ts), workflow id = recovery id, on the
 * environment's webhook delivery queue, started by the API (or the CLI, the portal, the relay's sweep):
 *
 * 1. `recoverWebhookPage` from the recovery's start: the next events by sequence whose last delivery
 *    to the endpoint is failed or skipped, at most a page, a resend (replay delivery) for each and the
 *    recovery's progress in one transaction, then each resend's delivery workflow started. The page
 *    step decides what is sent, not this code, so the history holds only cursors and counts.
 * 2. Pages follow one another until the range is walked (the step says `done`).
 * 3. After RECOVERY_PAGES_PER_RUN pages, or earlier when the server suggests it, the run continues as
 *    new with its cursor and counts, so a long outage's tens of thousands of events never go into one
 *    history.
 *
 * The resends run as any delivery does (retries, signing, rotation, auto-disable); the recovery's
 * live progress is counted from them (GET /v1/webhook-endpoints/{id}/recoveries/{rid}).
 */
export async function webhookRecoveryWorkflow(input: WebhookRecoveryInput): Promise<WebhookRecoveryResult> {
  const problem = inputProblem(input);
  if (problem) throw ApplicationFailure.create({ type: WEBHOOK_RECOVERY_INPUT_REFUSED, message: `webhook recovery refused: ${problem}`, nonRetryable: true });
  const pageSize = input.limits?.pageSize ?? RECOVERY_PAGE_SIZE;
  const pagesPerRun = input.limits?.pagesPerRun ?? RECOVERY_PAGES_PER_RUN;
  let state: WebhookRecoveryResult = { recoveryId: input.recoveryId, pages: input.pages ?? 0, queued: input.queued ?? 0, continuations: input.continuations ?? 0, done: false };
  let after = input.after ?? null;
  setHandler(webhookRecoveryQuery, () => state);
  for (let page = 1; ; page++) {
    setCurrentDetails(`page ${state.pages + 1}: events after ${after ?? 'the start'}; ${state.queued} resends queued so far`);
    const result = await recoverWebhookPage({ recoveryId: input.recoveryId, environment: input.environment, after, limit: pageSize, baseQueue: input.baseQueue, retryScheduleMs: input.retryScheduleMs });
    state = { ...state, pages: state.pages + 1, queued: result.queued, done: result.done };
    after = result.after;
    if (result.done) break;
    if (page >= pagesPerRun || workflowInfo().continueAsNewSuggested) {
      setCurrentDetails(`continuing as new after event ${after}: ${state.queued} resends queued so far`);
      return continueAsNew<typeof webhookRecoveryWorkflow>({ ...input, after, pages: state.pages, queued: state.queued, continuations: state.continuations + 1 });
    }
  }
  log.info('webhook recovery queued', { recoveryId: input.recoveryId, pages: state.pages, queued: state.queued, continuations: state.continuations });
  setCurrentDetails(`finished: ${state.queued} resends queued in ${state.pages} pages`);
  return state;
}

function inputProblem(input: WebhookRecoveryInput): string | null {
  if (typeof input !== 'object' || input === null) return 'the input must be an object';
  if (typeof input.recoveryId !== 'string' || !input.recoveryId.startsWith('whr_')) return 'recoveryId must be a recovery id (whr_…)';
  if (input.environment !== 'sandbox' && input.environment !== 'live') return 'environment must be sandbox or live';
  if (typeof input.baseQueue !== 'string' || input.baseQueue === '') return 'baseQueue must name the task queue';
  if (!Array.isArray(input.retryScheduleMs) || !input.retryScheduleMs.every((ms) => Number.isInteger(ms) && ms >= 0)) return 'retryScheduleMs must be a list of delays in ms';
  if (input.after != null && !(Number.isSafeInteger(input.after) && input.after >= 0)) return 'after must be an event sequence';
  const { pageSize, pagesPerRun } = input.limits ?? {};
  if (pageSize !== undefined && !(Number.isInteger(pageSize) && pageSize >= 1 && pageSize <= 1000)) return 'limits.pageSize must be from 1 to 1000';
  if (pagesPerRun !== undefined && !(Number.isInteger(pagesPerRun) && pagesPerRun >= 1)) return 'limits.pagesPerRun must be a positive integer';
  return null;
}

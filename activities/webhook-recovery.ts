import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { Environment } from '../src/domain/environment';
import { localFirstAttemptFor } from '../src/domain/webhook-first-attempt';
import { RECOVERY_SCAN_EVENTS, type RecoveryPageRequest, type RecoveryPageResult } from '../src/domain/webhook-recovery';
import { DETERMINISTIC_DB_ERROR, deterministicDbMessage, isDeterministicDbError } from '../src/persistence/db-errors';
import type { Orm } from '../src/persistence/orm';
import { markWorkflowsStarted } from '../src/persistence/webhooks/webhook-delivery-store';
import { RecoveryNotFound, recoveryPage, unstartedResends } from '../src/persistence/webhooks/webhook-recovery-store';
import { deliveryInputOf, startDeliveryWorkflow } from '../src/temporal/delivery-start';
import { DbQueueTimeout } from '../src/webhooks/db-queue';
import type { WebhookRecoveryActivities } from './types';
import { processDbQueues, READ_WAIT_MAX_MS } from './webhooks';

/** Resends started at once by one page. */
const STARTS_AT_ONCE = 10;

/**
 * The webhook recovery's page step (workflows/webhook-recovery.ts, issue 49). It runs on the webhook
 * delivery queue, whose activity slots hold no pool connection (docs/architecture.md, "Capacity of
 * one worker"): its database steps take the environment's webhook database lane like an attempt's
 * read (src/webhooks/db-queue.ts), waiting at most READ_WAIT_MAX_MS (then retried by Temporal).
 *
 * 1. The page (src/persistence/webhooks/webhook-recovery-store.ts `recoveryPage`): one transaction.
 * 2. The resends of the page's range not yet confirmed started, started (workflow id = delivery id,
 *    so a repeat starts nothing twice) through the worker's own client, then marked started. A start
 *    that fails fails the step, which Temporal retries: the repeat finds the page committed and starts
 *    what is left. Rows left unstarted whatever happens are started by the relay's sweep.
 */
export function createWebhookRecoveryActivities(deps: { orm: Orm; dbLanes?: Partial<Record<Environment, number>> }): WebhookRecoveryActivities {
  const queues = processDbQueues(deps.dbLanes);
  return {
    async recoverWebhookPage(request: RecoveryPageRequest): Promise<RecoveryPageResult> {
      const { client, cancellationSignal: signal } = Context.current();
      const step = <T>(fn: () => Promise<T>): Promise<T> =>
        queues.run(request.environment, 'read', fn, { waitMs: READ_WAIT_MAX_MS, signal }).catch((error: unknown) => {
          if (error instanceof DbQueueTimeout) throw ApplicationFailure.create({ type: 'WebhookRecoveryDeferred', message: error.message });
          if (error instanceof RecoveryNotFound) throw ApplicationFailure.create({ type: 'RecoveryNotFound', message: error.message, nonRetryable: true });
          if (isDeterministicDbError(error)) throw ApplicationFailure.create({ type: DETERMINISTIC_DB_ERROR, message: deterministicDbMessage(error), nonRetryable: true });
          throw error;
        });
      const page = await step(() => recoveryPage(deps.orm, request.recoveryId, request.after, request.limit, RECOVERY_SCAN_EVENTS));
      const resends = await step(() => unstartedResends(deps.orm, request.recoveryId, page));
      const localFirstAttempt = localFirstAttemptFor(page.timeoutSeconds);
      const started: string[] = [];
      for (let i = 0; i < resends.length; i += STARTS_AT_ONCE) {
        await Promise.all(
          resends.slice(i, i + STARTS_AT_ONCE).map(async (d) => {
            await startDeliveryWorkflow(client, request.baseQueue, deliveryInputOf(d, request.retryScheduleMs, localFirstAttempt));
            started.push(d.id);
          }),
        );
        Context.current().heartbeat();
      }
      if (started.length > 0) await step(() => markWorkflowsStarted(deps.orm, started));
      if (page.inserted > 0) Context.current().log.info('webhook recovery page queued', { recoveryId: request.recoveryId, from: page.from, to: page.to, queued: page.inserted, started: started.length });
      return { after: page.to, queued: page.queued, started: started.length, done: page.done };
    },
  };
}

import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { Environment } from '../src/domain/environment';
import type { FifoNext } from '../src/domain/webhook-fifo';
import { DETERMINISTIC_DB_ERROR, deterministicDbMessage, isDeterministicDbError } from '../src/persistence/db-errors';
import type { Orm } from '../src/persistence/orm';
import { nextFifoWaiting } from '../src/persistence/webhooks/webhook-fifo-store';
import { DbQueueTimeout } from '../src/webhooks/db-queue';
import type { WebhookFifoActivities } from './types';
import { processDbQueues, READ_WAIT_MAX_MS } from './webhooks';

/**
 * The FIFO workflow's read (workflows/webhook-fifo.ts, issue 49), on the webhook delivery queue like
 * the attempts it orders: its statements take the environment's webhook database lane as an attempt's
 * read does (src/webhooks/db-queue.ts), waiting at most READ_WAIT_MAX_MS (then retried by Temporal).
 * Read-only, so safe to repeat.
 */
export function createWebhookFifoActivities(deps: { orm: Orm; dbLanes?: Partial<Record<Environment, number>> }): WebhookFifoActivities {
  const queues = processDbQueues(deps.dbLanes);
  return {
    async nextFifoDeliveries(request): Promise<FifoNext> {
      const { cancellationSignal: signal } = Context.current();
      return queues.run(request.environment, 'read', () => nextFifoWaiting(deps.orm, request.endpointId, request.limit), { waitMs: READ_WAIT_MAX_MS, signal }).catch((error: unknown) => {
        if (error instanceof DbQueueTimeout) throw ApplicationFailure.create({ type: 'WebhookFifoDeferred', message: error.message });
        if (isDeterministicDbError(error)) throw ApplicationFailure.create({ type: DETERMINISTIC_DB_ERROR, message: deterministicDbMessage(error), nonRetryable: true });
        throw error;
      });
    },
  };
}

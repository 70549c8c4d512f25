import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { DETERMINISTIC_DB_ERROR, deterministicDbMessage, isDeterministicDbError } from '../src/persistence/db-errors';

/** How often a running attempt heartbeats; the delivery workflows' heartbeatTimeout is 10 s. */
const HEARTBEAT_INTERVAL_MS = 2_000;

/**
 * One attempt of a delivery (a webhook POST, a notification send), heartbeating through all of it,
 * database steps included, so an execution whose worker died is retried within the heartbeat
 * timeout and one that is alive is not run a second time (the worker's database waits stay below
 * it). A local activity (a webhook's first attempt, issue 19) has no heartbeat: its workflow task
 * stands for it. A database error the same input raises every time (SQLSTATE class 22 or 23) is not
 * retried, since a retry would send again each time; the failure lands in the workflow history, so
 * it carries the message's first line only (the driver's detail lines quote row values).
 */
export async function heartbeatingAttempt<T>(attempt: () => Promise<T>): Promise<T> {
  const activity = Context.current();
  const beat = activity.info.isLocal ? undefined : setInterval(() => activity.heartbeat(), HEARTBEAT_INTERVAL_MS);
  if (beat) activity.heartbeat();
  try {
    return await attempt();
  } catch (error) {
    if (!isDeterministicDbError(error)) throw error;
    throw ApplicationFailure.create({ type: DETERMINISTIC_DB_ERROR, message: deterministicDbMessage(error), nonRetryable: true });
  } finally {
    clearInterval(beat);
  }
}

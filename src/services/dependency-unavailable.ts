import { isGrpcServiceError, WorkflowUpdateRPCTimeoutOrCancelledError } from '@temporalio/client';
import { withinDeadline } from '../temporal/deadline';
import { ApiError } from '../domain/errors';
import { sqlStateOf } from '../persistence/db-errors';
import type { TemporalHandle } from '../temporal/connection';

/**
 * A dependency that is down or too slow: the request could not be served now, but the same request
 * later can (503 `service_unavailable` with `Retry-After`; an Idempotency-Key stays usable).
 */

const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'EPIPE']);
/**
 * pg and pg-pool say so in words only: a connect that timed out, a pool wait that timed out, a dropped
 * link, and a query on a client whose link dropped under it (`Client has encountered a connection
 * error and is not queryable`, `Client was closed and is not queryable`: seen as a 500 by a chaos run
 * when PostgreSQL was killed in the middle of a create's transaction), and pg's own `query_timeout`
 * (`Query read timeout`: the server stopped answering on a connection the request already held;
 * src/persistence/orm.ts).
 */
const DB_DOWN_MESSAGE = /timeout exceeded when trying to connect|connection terminated|and is not queryable|query read timeout/i;
/**
 * gRPC UNAVAILABLE (14), DEADLINE_EXCEEDED (4) and CANCELLED (1): a query to a run whose worker was
 * just killed came back `1 CANCELLED: Call cancelled` (test/system/worker-crash.test.ts: twenty
 * `POST /v1/sandbox/advance` right after a SIGKILL answered 500): the call did not complete and
 * changed nothing, so the same request later can succeed.
 */
const GRPC_DOWN_CODES = new Set([14, 4, 1]);
/**
 * gRPC FAILED_PRECONDITION (9) on an update whose run's workflow task is failing for now (`Unable to
 * perform workflow execution update due to Workflow Task in failed state`): a chaos run on a saturated
 * 2-core machine (2026-11-30) had dispute runs whose activations passed the SDK's 5 s script limit,
 * and `POST /v1/disputes/{id}/evidence` answered 500. The update was not admitted, so nothing changed;
 * the task is retried, and the same request later can succeed. Other FAILED_PRECONDITIONs are not this.
 */
const GRPC_FAILED_PRECONDITION = 9;
const TASK_FAILING_MESSAGE = /workflow task in failed state/i;

function* causes(error: unknown): Generator<Record<string, unknown>> {
  let current = error;
  for (let depth = 0; depth < 8 && typeof current === 'object' && current !== null; depth++) {
    yield current as Record<string, unknown>;
    current = (current as { cause?: unknown }).cause;
  }
}

/**
 * PostgreSQL unreachable: connection refused or reset, a connect or pool-acquire timeout, or the
 * server refusing connections (SQLSTATE class 08 but 08P01, 57P01–57P03 shutting down or starting,
 * 53300 too many).
 */
export function isDatabaseUnreachable(error: unknown): boolean {
  for (const e of causes(error)) {
    const code = typeof e.code === 'string' ? e.code : undefined;
    const sqlState = typeof e.sqlState === 'string' ? e.sqlState : code;
    if (code && NETWORK_CODES.has(code)) return true;
    // 08P01 (protocol violation) is the server refusing what was sent (e.g. a NUL in text), not an outage.
    if (sqlState && ((/^08/.test(sqlState) && sqlState !== '08P01') || ['57P01', '57P02', '57P03', '53300'].includes(sqlState))) return true;
    if (typeof e.message === 'string' && DB_DOWN_MESSAGE.test(e.message)) return true;
  }
  return false;
}

/**
 * PostgreSQL up but unable to serve this statement now: a lock held past `lock_timeout` (55P03: a
 * worker paused or slow while it holds the merchant's event counter, as a chaos run's pause of a
 * worker showed), the statement past `statement_timeout` (57014), a deadlock (40P01) or a
 * serialisation failure (40001). The transaction was rolled back: the same request later can succeed.
 */
const DB_BUSY_STATES = new Set(['55P03', '57014', '40P01', '40001']);

export function isDatabaseBusy(error: unknown): boolean {
  for (const e of causes(error)) {
    const sqlState = sqlStateOf(e);
    if (sqlState && DB_BUSY_STATES.has(sqlState)) return true;
  }
  return false;
}

/** Temporal unreachable or past the request's deadline (the worker may be down: nothing answered in time). */
export function isTemporalUnavailable(error: unknown): boolean {
  for (const e of causes(error)) {
    if (e instanceof WorkflowUpdateRPCTimeoutOrCancelledError) return true;
    if (isGrpcServiceError(e) && GRPC_DOWN_CODES.has((e as { code: number }).code)) return true;
    if (isGrpcServiceError(e) && (e as { code: number }).code === GRPC_FAILED_PRECONDITION && TASK_FAILING_MESSAGE.test(String((e as { details?: unknown }).details ?? e.message))) return true;
  }
  return false;
}

export function serviceUnavailable(what: string): ApiError {
  return new ApiError('service_unavailable', `${what} Nothing was lost: retry shortly (with the same Idempotency-Key where one was sent).`);
}

/** Maps a dependency outage to 503; anything else is returned unchanged. */
export function asServiceUnavailable(error: unknown): unknown {
  if (error instanceof ApiError) return error;
  if (isDatabaseUnreachable(error)) return serviceUnavailable('The database is unreachable right now.');
  if (isDatabaseBusy(error)) return serviceUnavailable('The database is busy right now (a lock or a statement waited past its limit).');
  if (isTemporalUnavailable(error)) return serviceUnavailable('The workflow service did not answer in time.');
  return error;
}

/** An API call's Temporal work, bounded by the request deadline (src/temporal/deadline.ts). */
export function withTemporalDeadline<T>(temporal: TemporalHandle, deadlineMs: number | undefined, fn: () => Promise<T>): Promise<T> {
  return withinDeadline(temporal.client, deadlineMs, fn);
}

import type { Client } from '@temporalio/client';
import { DEFAULT_TEMPORAL_REQUEST_DEADLINE_MS } from '../config';

/**
 * Runs Temporal calls with an absolute deadline `ms` from now on every RPC they make (the SDK's
 * `withDeadline`): a call that waits for a worker that is not there fails with DEADLINE_EXCEEDED
 * instead of waiting forever. The one place every caller (API, CLI, relays, reconciler) bounds a
 * Temporal call; see docs/architecture.md, "Retries and deadlines".
 */
export function withinDeadline<T>(client: Client, ms: number | undefined, fn: () => Promise<T>): Promise<T> {
  return client.withDeadline(Date.now() + (ms ?? DEFAULT_TEMPORAL_REQUEST_DEADLINE_MS), fn);
}

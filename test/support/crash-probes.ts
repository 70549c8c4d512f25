import { setTimeout as delay } from 'node:timers/promises';
import type { Harness } from './harness';

/**
 * What the worker-crash tests (test/integration/*worker-crash.test.ts) look at around a SIGKILL: a
 * bounded wait on a condition, the backends blocked on a lock, and which worker finished a workflow.
 */

/** Waits (bounded: `attempts` × `everyMs`) until `check` holds; for conditions in the database or of a running workflow, not for workflow results. */
export async function until(what: string, check: () => Promise<boolean>, attempts = 300, everyMs = 100): Promise<void> {
  for (let i = 0; i < attempts; i++) {
    if (await check()) return;
    await delay(everyMs);
  }
  throw new Error(`timed out waiting until ${what}`);
}

/** Backends of other sessions waiting on a row or tuple lock while running a statement that mentions `table`. */
export async function lockWaiters(h: Harness, table: string): Promise<number> {
  const rows = await h.orm.em.getConnection().execute<{ n: string }[]>(
    `select count(*)::text as n from pg_stat_activity
     where pid <> pg_backend_pid() and wait_event_type = 'Lock' and query ilike ?`,
    [`%${table}%`],
  );
  return Number(rows[0].n);
}

/** Which worker identity completed the last workflow task of the workflow's current run (from its history). */
export async function lastTaskCompletedBy(h: Harness, id: string): Promise<string | undefined> {
  const history = await h.temporal.client.workflow.getHandle(id).fetchHistory();
  const completed = (history.events ?? []).filter((e) => e.workflowTaskCompletedEventAttributes);
  return completed.at(-1)?.workflowTaskCompletedEventAttributes?.identity ?? undefined;
}

import type { Client } from '@temporalio/client';
import type { Orm } from '../persistence/orm';

/**
 * When the simulated engine is quiet (docs/simulation.md "After every step"): no event left to fan
 * out, no payment or delivery whose workflow is not confirmed started, and no open workflow (of an
 * object the database knows about, or any the test server lists as open) with a workflow task or an
 * activity under way. An activity waiting
 * for a retry further than WAITING_ON_TIME_MS of workflow time ahead is waiting on time (only a time
 * jump moves it), not busy. Workflows waiting on a timer, a signal or the partner are quiet.
 */

/** A retry due further ahead than this (workflow time) is waiting for a time jump. */
export const WAITING_ON_TIME_MS = 5_000;

/** What still has work to do; per relay a count, per workflow its id and why. */
const RELAY_BACKLOG = {
  'undispatched events': `select count(*)::int as n from events where dispatched_at is null`,
  'charges not started': `select count(*)::int as n from charges where workflow_started_at is null and status in ('pending', 'awaiting_action')`,
  'payouts not started': `select count(*)::int as n from payouts where workflow_started_at is null and status in ('pending', 'held_for_review')`,
  'refunds not started': `select count(*)::int as n from refunds where workflow_started_at is null and status = 'pending'`,
  'disputes not started': `select count(*)::int as n from disputes where workflow_started_at is null and status in ('needs_response', 'under_review')`,
  'deliveries not started': `select count(*)::int as n from webhook_deliveries where status = 'pending' and attempt_count = 0 and workflow_started_at is null`,
} as const;

/** The objects whose workflow may be running: their ids are the workflow ids. */
const OPEN_OBJECTS = `
  select id from charges where status in ('pending', 'awaiting_action')
  union all select id from payouts where status in ('pending', 'held_for_review')
  union all select id from refunds where status = 'pending'
  union all select id from disputes where status in ('needs_response', 'under_review')
  union all select id from webhook_deliveries where status = 'pending'`;

/** The ids of the workflows of every object the database knows may be running. */
export async function openObjectIds(orm: Orm): Promise<string[]> {
  return (await orm.em.getConnection().execute<Array<{ id: string }>>(OPEN_OBJECTS)).map((r) => r.id);
}

/** Every open workflow of the namespace (the test server answers ListOpenWorkflowExecutions): settlement runs, reviews, imports too. */
async function openWorkflowIds(client: Client): Promise<string[]> {
  const ids: string[] = [];
  let nextPageToken: Uint8Array | undefined;
  do {
    const page = await client.workflowService.listOpenWorkflowExecutions({ namespace: client.options.namespace, maximumPageSize: 1000, nextPageToken });
    for (const e of page.executions ?? []) if (e.execution?.workflowId) ids.push(e.execution.workflowId);
    nextPageToken = page.nextPageToken && page.nextPageToken.length > 0 ? page.nextPageToken : undefined;
  } while (nextPageToken);
  return ids;
}

export interface QuietDeps {
  orm: Orm;
  client: Client;
  /** The test server's now (workflow time, ms). */
  now(): Promise<number>;
  /** What the process itself knows is under way (activities running in this process: activity-hooks.ts). */
  alsoBusy?: () => string[];
}

/** Everything still busy, one short line each; empty when quiet. */
export async function busyNow(deps: QuietDeps): Promise<string[]> {
  const conn = deps.orm.em.getConnection();
  const busy: string[] = [...(deps.alsoBusy?.() ?? [])];
  for (const [what, sql] of Object.entries(RELAY_BACKLOG)) {
    const [{ n }] = await conn.execute<Array<{ n: number }>>(sql);
    if (n > 0) busy.push(`${n} ${what}`);
  }
  const ids = [...new Set([...(await openObjectIds(deps.orm)), ...(await openWorkflowIds(deps.client))])];
  if (ids.length === 0) return busy;
  const now = await deps.now();
  await Promise.all(
    ids.map(async (id) => {
      const why = await workflowBusy(deps.client, id, now);
      if (why) busy.push(`workflow ${id}: ${why}`);
    }),
  );
  return busy;
}

async function workflowBusy(client: Client, id: string, now: number): Promise<string | null> {
  let description;
  try {
    description = await client.workflow.getHandle(id).describe();
  } catch (error) {
    if ((error as Error).name === 'WorkflowNotFoundError') return null; // a start relay's backlog (counted above), or a replay never started
    throw error;
  }
  if (description.status.name !== 'RUNNING') return null;
  const raw = description.raw;
  if (raw.pendingWorkflowTask) return 'a workflow task pending';
  for (const activity of raw.pendingActivities ?? []) {
    const next = activity.nextAttemptScheduleTime?.seconds;
    const dueAt = next === undefined || next === null ? undefined : Number(next) * 1000 + Math.floor((activity.nextAttemptScheduleTime?.nanos ?? 0) / 1e6);
    if (dueAt !== undefined && dueAt - now > WAITING_ON_TIME_MS) continue;
    return `activity ${activity.activityType?.name ?? '?'} (attempt ${activity.attempt ?? 1}) pending`;
  }
  // The test server does not fill pendingWorkflowTask, and a local activity (retrying inside a
  // workflow task) is no pending activity: a history that ends with a workflow task scheduled or
  // started has a workflow task under way.
  // A history that has not grown since the last look ends as it did then: read it only when it grew.
  const length = Number(raw.workflowExecutionInfo?.historyLength ?? 0);
  const key = `${id}/${raw.workflowExecutionInfo?.execution?.runId ?? ''}`;
  const seen = lastEvents.get(key);
  let taskUnderWay: boolean;
  if (seen && seen.length === length) taskUnderWay = seen.taskUnderWay;
  else {
    const { events } = await client.workflow.getHandle(id).fetchHistory();
    const last = events?.[events.length - 1];
    taskUnderWay = !!(last?.workflowTaskScheduledEventAttributes || last?.workflowTaskStartedEventAttributes);
    if (lastEvents.size > 10_000) lastEvents.clear(); // a long `--hours` run: only a cache
    lastEvents.set(key, { length, taskUnderWay });
  }
  return taskUnderWay ? 'a workflow task under way' : null;
}

/** Per workflow run: the history length last read and whether it ended with a workflow task under way. */
const lastEvents = new Map<string, { length: number; taskUnderWay: boolean }>();

/** Polls `busyNow` every `pollMs` until quiet; after `boundMs` of real time fails naming what is still busy. */
export async function waitUntilQuiet(deps: QuietDeps, options: { boundMs?: number; pollMs?: number } = {}): Promise<void> {
  const boundMs = options.boundMs ?? 60_000;
  const pollMs = options.pollMs ?? 100;
  const started = performance.now();
  // Twice quiet in a row: a relay pass or a callback may be between two writes at the first look.
  let quietLooks = 0;
  for (;;) {
    const busy = await busyNow(deps);
    quietLooks = busy.length === 0 ? quietLooks + 1 : 0;
    if (quietLooks >= 2) return;
    if (performance.now() - started > boundMs) {
      throw new Error(`the engine did not settle within ${Math.round(boundMs / 1000)} s; still busy: ${busy.slice(0, 10).join('; ')}${busy.length > 10 ? `; and ${busy.length - 10} more` : ''}`);
    }
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}

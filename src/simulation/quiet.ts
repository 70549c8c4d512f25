import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import type { Orm } from '../persistence/orm';

/**
 * When the simulated engine is quiet (docs/simulation.md "After every step"): no event left to fan
 * out, no payment or delivery whose workflow is not confirmed started, and no workflow the test
 * server lists as open with a workflow task or an activity under way. An activity waiting
 * for a retry further than WAITING_ON_TIME_MS of workflow time ahead is waiting on time (only a time
 * jump moves it), not busy. Workflows waiting on a timer, a signal or the partner are quiet.
 */

/** A retry due further ahead than this (workflow time) is waiting for a time jump. */
export const WAITING_ON_TIME_MS = 5_000;

/** What still has work to do; per relay a count, per workflow its id and why. */
const RELAY_BACKLOG = {
  'undispatched events': `select count(*)::int from events where dispatched_at is null`,
  'charges not started': `select count(*)::int from charges where workflow_started_at is null and status in ('pending', 'awaiting_action')`,
  'payouts not started': `select count(*)::int from payouts where workflow_started_at is null and status in ('pending', 'held_for_review')`,
  'refunds not started': `select count(*)::int from refunds where workflow_started_at is null and status = 'pending'`,
  'disputes not started': `select count(*)::int from disputes where workflow_started_at is null and status in ('needs_response', 'under_review')`,
  'deliveries not started': `select count(*)::int from webhook_deliveries where status = 'pending' and attempt_count = 0 and workflow_started_at is null`,
} as const;

/** Every backlog count in one statement (a look runs often: one round trip, not six). */
const BACKLOG_SQL = `select ${Object.values(RELAY_BACKLOG).map((sql, i) => `(${sql}) as n${i}`).join(', ')}`;

/** Every open workflow of the namespace (the test server answers ListOpenWorkflowExecutions: settlement runs, reviews, imports too), with its run and history length. */
async function openWorkflows(client: Client): Promise<Array<{ id: string; key: string; length: number }>> {
  const out: Array<{ id: string; key: string; length: number }> = [];
  let nextPageToken: Uint8Array | undefined;
  do {
    const page = await client.workflowService.listOpenWorkflowExecutions({ namespace: client.options.namespace, maximumPageSize: 1000, nextPageToken });
    for (const e of page.executions ?? []) {
      const id = e.execution?.workflowId;
      if (id) out.push({ id, key: `${id}/${e.execution?.runId ?? ''}`, length: Number(e.historyLength ?? 0) });
    }
    nextPageToken = page.nextPageToken && page.nextPageToken.length > 0 ? page.nextPageToken : undefined;
  } while (nextPageToken);
  return out;
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
  const [counts] = await conn.execute<Array<Record<string, number>>>(BACKLOG_SQL);
  Object.keys(RELAY_BACKLOG).forEach((what, i) => {
    const n = counts![`n${i}`]!;
    if (n > 0) busy.push(`${n} ${what}`);
  });
  // Only an open workflow can be busy (an object whose workflow is not started yet is a relay's
  // backlog, counted above). One found wholly idle (no task, no activity) stays so until its history
  // grows: a signal, a fired timer, a scheduled activity each add an event. Those are not asked again
  // (issue 44's throughput: a look described every open workflow).
  const open = (await openWorkflows(deps.client)).filter((w) => w.length === 0 || idleAt.get(w.key) !== w.length);
  if (open.length === 0) return busy;
  const now = await deps.now();
  await Promise.all(
    open.map(async (w) => {
      const why = await workflowBusy(deps.client, w.id, now);
      if (why === null) {
        if (idleAt.size > 10_000) idleAt.clear(); // a long `--hours` run: only a cache
        if (w.length > 0) idleAt.set(w.key, w.length);
      } else if (why !== WAITING_ON_TIME) busy.push(`workflow ${w.id}: ${why}`);
    }),
  );
  return busy;
}

/** workflowBusy's answer for a workflow whose only pending work is a retry further ahead than WAITING_ON_TIME_MS: quiet, but asked again at the next look. */
const WAITING_ON_TIME = 'waiting on time';

/** Per workflow run: the history length at which it was last found wholly idle. */
const idleAt = new Map<string, number>();

async function workflowBusy(client: Client, id: string, now: number): Promise<string | null> {
  let description;
  try {
    description = await client.workflow.getHandle(id).describe();
  } catch (error) {
    if ((error as Error).name === 'WorkflowNotFoundError') return WAITING_ON_TIME; // closed between the list and now: looked at again
    throw error;
  }
  if (description.status.name !== 'RUNNING') return WAITING_ON_TIME;
  const raw = description.raw;
  if (raw.pendingWorkflowTask) return 'a workflow task pending';
  let waiting = false;
  for (const activity of raw.pendingActivities ?? []) {
    const next = activity.nextAttemptScheduleTime?.seconds;
    const dueAt = next === undefined || next === null ? undefined : Number(next) * 1000 + Math.floor((activity.nextAttemptScheduleTime?.nanos ?? 0) / 1e6);
    if (dueAt !== undefined && dueAt - now > WAITING_ON_TIME_MS) {
      waiting = true;
      continue;
    }
    const state = activity.state === temporal.api.enums.v1.PendingActivityState.PENDING_ACTIVITY_STATE_STARTED ? `started by ${activity.lastWorkerIdentity || '?'}` : 'scheduled';
    return `activity ${activity.activityType?.name ?? '?'} (attempt ${activity.attempt ?? 1}, ${state}) pending`;
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
  if (taskUnderWay) return 'a workflow task under way';
  return waiting ? WAITING_ON_TIME : null;
}

/** Per workflow run: the history length last read and whether it ended with a workflow task under way. */
const lastEvents = new Map<string, { length: number; taskUnderWay: boolean }>();

/**
 * The real time between two looks: short at first (most steps settle within a few milliseconds of
 * their answer), doubling while something stays busy, up to `pollMs`. A look costs a few milliseconds
 * (a handful of counts and a describe per open workflow), so a fixed 100 ms was most of a step's cost
 * (issue 44's throughput).
 */
const FIRST_GAP_MS = 4;
/** The gap stops doubling here: what is busy for long is mostly a chain of short tasks. */
const MAX_DOUBLED_GAP_MS = 25;

/** Polls `busyNow` (the gaps above, at most `pollMs`) until quiet; after `boundMs` of real time fails naming what is still busy. */
export async function waitUntilQuiet(deps: QuietDeps, options: { boundMs?: number; pollMs?: number } = {}): Promise<void> {
  const boundMs = options.boundMs ?? 60_000;
  const pollMs = options.pollMs ?? 100;
  const started = performance.now();
  // Twice quiet in a row: a relay pass or a callback may be between two writes at the first look.
  let quietLooks = 0;
  let gap = FIRST_GAP_MS;
  for (;;) {
    const busy = await busyNow(deps);
    quietLooks = busy.length === 0 ? quietLooks + 1 : 0;
    if (quietLooks >= 2) return;
    if (performance.now() - started > boundMs) {
      throw new Error(`the engine did not settle within ${Math.round(boundMs / 1000)} s; still busy: ${busy.slice(0, 10).join('; ')}${busy.length > 10 ? `; and ${busy.length - 10} more` : ''}`);
    }
    await new Promise((resolve) => setTimeout(resolve, quietLooks > 0 ? FIRST_GAP_MS * 2 : gap));
    if (quietLooks === 0) gap = Math.min(pollMs, MAX_DOUBLED_GAP_MS, gap * 2);
  }
}

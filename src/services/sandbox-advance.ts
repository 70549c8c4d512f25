import { QueryNotRegisteredError, WorkflowNotFoundError, type WorkflowHandle } from '@temporalio/client';
import { ApiError } from '../domain/errors';
import { ID_PREFIX, isIdOf, type IdKind } from '../domain/ids';
import type { Scope } from '../domain/scopes';
import { sqlStateOf } from '../persistence/db-errors';
import type { Orm } from '../persistence/orm';
import { withinDeadline } from '../temporal/deadline';
import { advanceSignal, nextTimerQuery, type NextTimer } from '../../workflows/messages';
import type { Caller, ServiceDeps } from './context';

/**
 * A payment resource whose workflow (workflow id = resource id) may wait on timers the sandbox can
 * fire early. Its table has `id`, `merchant_id`, `environment` and `status`. A later workflow
 * (settlements `stl_`, disputes `dp_`) joins by adding a line here and racing its timers with
 * `advanceSignal` / answering `nextTimerQuery` (workflows/messages.ts).
 */
export interface AdvanceableResource {
  kind: IdKind;
  /** A constant from code, never from the request. */
  table: string;
  /** The scope a key needs to advance it. */
  scope: Scope;
}

export const ADVANCEABLE: readonly AdvanceableResource[] = [
  { kind: 'charge', table: 'charges', scope: 'charges:write' },
  { kind: 'payout', table: 'payouts', scope: 'payouts:write' },
  { kind: 'refund', table: 'refunds', scope: 'refunds:write' },
  { kind: 'dispute', table: 'disputes', scope: 'disputes:write' },
  // Settlements have no write scope: whoever may read a batch may fire its sandbox payment step.
  { kind: 'settlement', table: 'settlements', scope: 'settlements:read' },
];

export interface AdvanceAnswer {
  id: string;
  /** The summary of the timer that was fired. */
  fired: string;
  /** The resource's status once the workflow acted on it (or, if it takes longer than the wait, as it stands). */
  status: string;
}

/** How long the answer waits for the workflow to act on the fired timer, and how often it looks. */
const SETTLE_WAIT_MS = 5_000;
const SETTLE_POLL_MS = 100;

const notFound = (id: string) => new ApiError('not_found', `No payment resource ${id}: ids start with ${ADVANCEABLE.map((r) => `"${ID_PREFIX[r.kind]}"`).join(', ')}.`, { param: 'id' });

/** The resource kind of an id, by its shape; ids of no advanceable kind were never a payment resource. */
export function advanceableOf(id: string): AdvanceableResource | undefined {
  return ADVANCEABLE.find((r) => isIdOf(r.kind, id));
}

/** The caller's resource's status, or null (none, another merchant's or environment's, or a table not there yet). */
async function statusOf(orm: Orm, resource: AdvanceableResource, caller: Caller, id: string): Promise<string | null> {
  try {
    const rows = await orm.em
      .fork()
      .getConnection()
      .execute<{ status: string }[]>(`select status from ${resource.table} where id = ? and merchant_id = ? and environment = ?`, [id, caller.merchantId, caller.environment]);
    return rows[0]?.status ?? null;
  } catch (error) {
    if (sqlStateOf(error) === '42P01') return null; // undefined_table: that resource's migration has not landed
    throw error;
  }
}

/** The timer the workflow waits on now; null when it waits on none, has finished, or never started. */
async function nextTimer(handle: WorkflowHandle): Promise<NextTimer | null> {
  try {
    const description = await handle.describe();
    if (description.status.name !== 'RUNNING') return null;
    return (await handle.query(nextTimerQuery)) ?? null;
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return null;
    // A run that has not registered the query yet (still beginning) waits on no timer.
    if (error instanceof QueryNotRegisteredError || (error instanceof Error && /did not register a handler for nextTimer/.test(error.message))) return null;
    throw error;
  }
}

/**
 * `POST /v1/sandbox/advance/{id}` (sandbox listener only): fires the next timer of the caller's
 * charge, payout or refund workflow now, through the `advance` signal that races the timer (the
 * history shows which won), and answers once the workflow acted on it. 404 for an id that is not
 * the caller's (another merchant's, the other environment's, or no such resource); 409
 * `nothing_to_advance` when the workflow waits on no timer.
 */
export async function advanceSandboxTimer(deps: ServiceDeps, caller: Caller, id: string, scopes: readonly Scope[]): Promise<AdvanceAnswer> {
  const resource = advanceableOf(id);
  if (!resource) throw notFound(id);
  if (!scopes.includes(resource.scope)) throw new ApiError('insufficient_scope', `This key lacks the "${resource.scope}" scope.`);
  const before = await statusOf(deps.orm, resource, caller, id);
  if (before === null) throw notFound(id);

  const client = deps.temporal.client;
  const handle = client.workflow.getHandle(id);
  const timer = await withinDeadline(client, deps.temporalDeadlineMs, () => nextTimer(handle));
  if (!timer) throw new ApiError('nothing_to_advance', `${id} is not waiting on a timer (status ${before}).`, { param: 'id' });
  await withinDeadline(client, deps.temporalDeadlineMs, () => handle.signal(advanceSignal));

  // The signal only wakes the workflow; its next step (a transition) follows. Answer the status it
  // writes, or the current one if the step takes longer than the wait.
  const deadline = Date.now() + SETTLE_WAIT_MS;
  let status = before;
  while (status === before && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, SETTLE_POLL_MS));
    status = (await statusOf(deps.orm, resource, caller, id)) ?? before;
  }
  return { id, fired: timer.summary, status };
}

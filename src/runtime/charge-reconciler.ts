import pLimit from 'p-limit';
import { WorkflowNotFoundError, WorkflowUpdateFailedError, type Client } from '@temporalio/client';
import { withinDeadline } from '../temporal/deadline';
import { isDeploymentTaskQueue } from '../temporal/task-queues';
import { runPeriodically } from '../support/periodic-loop';
import { RECONCILER_REASON_PREFIX, type ChargeAttention } from '../domain/charge-attention';
import { RECONCILER_OPERATOR } from '../domain/operator-action';
import type { Environment } from '../domain/environment';
import { SA } from '../domain/search-attributes';
import { parseDuration } from '../domain/webhook-retry';
import type { Orm } from '../persistence/orm';
import type { Logger } from '../support/logger';
import { chargeAttentionQuery, retryStepUpdate } from '../../workflows/messages';

/**
 * The safety net behind bounded database retries: every RECONCILE_INTERVAL the worker process looks
 * for charges still `pending` or `awaiting_action` past `expires_at` plus a grace (their workflow
 * should have expired them), finds out what their workflow is doing, logs a warning for each, and
 * asks a workflow that is waiting for an operator to retry its step (a bounded number of times,
 * enforced by the workflow). A charge whose workflow is closed or missing is only reported: an
 * operator decides (`payments stuck` lists them).
 */

export const DEFAULT_RECONCILE_INTERVAL_MS = 60_000;
export const DEFAULT_RECONCILE_GRACE_MS = 2 * 60_000;
const PAGE = 100;

/** RECONCILE_INTERVAL (e.g. `60s`, `5m`) and RECONCILE_GRACE (default `2m`). */
export function reconcilerSettings(env: NodeJS.ProcessEnv = process.env): { intervalMs: number; graceMs: number } {
  return {
    intervalMs: env.RECONCILE_INTERVAL ? parseDuration(env.RECONCILE_INTERVAL) : DEFAULT_RECONCILE_INTERVAL_MS,
    graceMs: env.RECONCILE_GRACE ? parseDuration(env.RECONCILE_GRACE) : DEFAULT_RECONCILE_GRACE_MS,
  };
}

export interface ReconcilerDeps {
  orm: Orm;
  client: Client;
  /**
   * TEMPORAL_TASK_QUEUE: only workflows on this deployment's queues (`<base>-sandbox`, `<base>-live`,
   * legacy `<base>`; temporal/task-queues.ts) are asked to retry, never another deployment's.
   */
  taskQueue: string;
  log: Logger;
  graceMs?: number;
  /** Longest wait for one describe, query or update. */
  requestDeadlineMs?: number;
  /** Overdue charges found by the last pass, by workflow state (the worker's gauge). */
  report?: (countsByState: Record<WorkflowState, number>) => void;
}

/**
 * What the charge's workflow (its latest run) is doing: waiting for an operator, running otherwise
 * (a step still retrying, or a worker behind), closed, or not there at all.
 */
export type WorkflowState = 'needs_attention' | 'retrying' | 'closed' | 'not_found';
export const WORKFLOW_STATES: readonly WorkflowState[] = ['needs_attention', 'retrying', 'closed', 'not_found'];

export interface ChargeWorkflowView {
  state: WorkflowState;
  /** Temporal's execution status (RUNNING, COMPLETED, FAILED, TERMINATED, …); null when not found. */
  executionStatus: string | null;
  taskQueue: string | null;
  /** Why it waits for an operator (chargeAttention query); null otherwise or when the query failed. */
  reason: string | null;
}

export interface OverdueCharge {
  id: string;
  merchantId: string;
  environment: Environment;
  status: string;
  createdAt: string;
  expiresAt: string;
  ageSeconds: number;
  overdueSeconds: number;
  workflow: ChargeWorkflowView;
}

interface OverdueRow {
  id: string;
  merchant_id: string;
  environment: Environment;
  status: string;
  created_at: Date | string;
  /** Kept as the driver returns it, for the next page's key. */
  expires_at: Date | string;
  age_seconds: string;
  overdue_seconds: string;
}

/** One page of non-terminal charges past expires_at + grace (database clock), oldest expiry first. */
async function overduePage(orm: Orm, graceMs: number, environment: Environment | undefined, after: { expiresAt: Date | string; id: string } | null): Promise<OverdueRow[]> {
  const params: unknown[] = [graceMs / 1000];
  let where = `status in ('pending', 'awaiting_action') and expires_at < now() - make_interval(secs => ?)`;
  if (environment) {
    where += ` and environment = ?`;
    params.push(environment);
  }
  if (after) {
    where += ` and (expires_at, id) > (?, ?)`;
    params.push(after.expiresAt, after.id);
  }
  return orm.em.getConnection().execute<OverdueRow[]>(
    `select id, merchant_id, environment, status, created_at, expires_at,
            extract(epoch from now() - created_at)::bigint::text as age_seconds,
            extract(epoch from now() - expires_at)::bigint::text as overdue_seconds
     from charges where ${where} order by expires_at, id limit ${PAGE}`,
    params,
  );
}

/** Every overdue charge, page by page. */
export async function* overdueCharges(orm: Orm, graceMs: number, environment?: Environment): AsyncGenerator<OverdueRow> {
  let after: { expiresAt: Date | string; id: string } | null = null;
  for (;;) {
    const rows = await overduePage(orm, graceMs, environment, after);
    yield* rows;
    if (rows.length < PAGE) return;
    const last = rows[rows.length - 1];
    after = { expiresAt: last.expires_at, id: last.id };
  }
}


/** How many overdue charges' workflows are described (and queried) at once in a pass. */
const INSPECT_CONCURRENCY = 8;

/** Why the charge waits for an operator, from the workflow; null when the query fails (no worker). */
export async function attentionReason(client: Client, chargeId: string, deadlineMs: number): Promise<string | null> {
  try {
    const state: ChargeAttention = await withinDeadline(client, deadlineMs, () => client.workflow.getHandle(chargeId).query(chargeAttentionQuery));
    return state.reason;
  } catch {
    return null;
  }
}

export async function describeChargeWorkflow(client: Client, chargeId: string, deadlineMs: number): Promise<ChargeWorkflowView> {
  try {
    const d = await withinDeadline(client, deadlineMs, () => client.workflow.getHandle(chargeId).describe());
    const executionStatus = d.status.name;
    if (executionStatus !== 'RUNNING') return { state: 'closed', executionStatus, taskQueue: d.taskQueue, reason: null };
    if (d.typedSearchAttributes.get(SA.NeedsAttention) !== true) return { state: 'retrying', executionStatus, taskQueue: d.taskQueue, reason: null };
    return { state: 'needs_attention', executionStatus, taskQueue: d.taskQueue, reason: await attentionReason(client, chargeId, deadlineMs) };
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return { state: 'not_found', executionStatus: null, taskQueue: null, reason: null };
    throw error;
  }
}

/** The overdue charges with their workflows' states, acting on nothing (for `payments stuck`). */
export async function inspectOverdueCharges(
  deps: Pick<ReconcilerDeps, 'orm' | 'client' | 'graceMs' | 'requestDeadlineMs'>,
  environment?: Environment,
): Promise<OverdueCharge[]> {
  // Described a few at a time: a workflow whose worker is away answers its query only at the
  // deadline, and one after another those deadlines would add up over a pass.
  const limit = pLimit(INSPECT_CONCURRENCY);
  const out: Array<Promise<OverdueCharge>> = [];
  for await (const row of overdueCharges(deps.orm, deps.graceMs ?? DEFAULT_RECONCILE_GRACE_MS, environment)) {
    out.push(limit(async () => ({
      id: row.id,
      merchantId: row.merchant_id,
      environment: row.environment,
      status: row.status,
      createdAt: new Date(row.created_at).toISOString(),
      expiresAt: new Date(row.expires_at).toISOString(),
      ageSeconds: Number(row.age_seconds),
      overdueSeconds: Number(row.overdue_seconds),
      workflow: await describeChargeWorkflow(deps.client, row.id, deps.requestDeadlineMs ?? 10_000),
    })));
  }
  return Promise.all(out);
}

export type ReconcileAction = 'retry_requested' | 'retry_refused' | 'reported' | 'none';

/**
 * One pass: each overdue charge is logged with its workflow's state; a workflow waiting for an
 * operator on this deployment's task queues is asked to retry (`retryStep` by `system:reconciler`; the workflow refuses
 * once its automatic retries are used up); closed or missing workflows are reported.
 */
export async function reconcileOnce(deps: ReconcilerDeps): Promise<Array<OverdueCharge & { action: ReconcileAction }>> {
  const deadlineMs = deps.requestDeadlineMs ?? 10_000;
  const results: Array<OverdueCharge & { action: ReconcileAction }> = [];
  const counts = Object.fromEntries(WORKFLOW_STATES.map((s) => [s, 0])) as Record<WorkflowState, number>;
  for (const charge of await inspectOverdueCharges(deps)) {
    counts[charge.workflow.state]++;
    let action: ReconcileAction = charge.workflow.state === 'closed' || charge.workflow.state === 'not_found' ? 'reported' : 'none';
    let refusal: string | undefined;
    if (charge.workflow.state === 'needs_attention' && isDeploymentTaskQueue(deps.taskQueue, charge.workflow.taskQueue)) {
      try {
        await withinDeadline(deps.client, deadlineMs, () =>
          deps.client.workflow.getHandle(charge.id).executeUpdate(retryStepUpdate, {
            // The engine's own name and reason: the only retry counted as automatic (issue 31). `by`
            // stays for runs on builds from before, which count a retry as automatic by it alone.
            args: [{ reason: `${RECONCILER_REASON_PREFIX}overdue by ${charge.overdueSeconds} s`, operator: RECONCILER_OPERATOR, by: 'reconciler' }],
          }),
        );
        action = 'retry_requested';
      } catch (error) {
        if (!(error instanceof WorkflowUpdateFailedError)) throw error;
        action = 'retry_refused';
        refusal = error.cause?.message;
      }
    }
    deps.log.warn(
      {
        chargeId: charge.id,
        status: charge.status,
        environment: charge.environment,
        ageSeconds: charge.ageSeconds,
        overdueSeconds: charge.overdueSeconds,
        workflow: charge.workflow.state,
        executionStatus: charge.workflow.executionStatus,
        reason: charge.workflow.reason,
        action,
        ...(refusal ? { refusal } : {}),
      },
      'overdue charge: unresolved past expires_at',
    );
    results.push({ ...charge, action });
  }
  deps.report?.(counts);
  return results;
}

export interface ChargeReconciler {
  /** Run a pass now instead of at the next interval. */
  wake(): void;
  stop(): Promise<void>;
}

/** Runs `reconcileOnce` now and then every `intervalMs` until stopped; a failed pass is logged and retried at the next. */
export function startChargeReconciler(deps: ReconcilerDeps, intervalMs: number = DEFAULT_RECONCILE_INTERVAL_MS): ChargeReconciler {
  return runPeriodically(
    intervalMs,
    async () => {
      await reconcileOnce(deps);
    },
    (error) => deps.log.error({ err: error }, 'charge reconciler pass failed; retrying at the next interval'),
  );
}

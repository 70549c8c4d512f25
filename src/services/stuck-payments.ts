import { WorkflowNotFoundError, type Client, type WorkflowExecutionInfo } from '@temporalio/client';
import { unfinishedRecords } from '../persistence/unfinished-records';
import { isReviewId, REVIEW_ENDED_OPEN } from './restart-review';
import { returnsPaid } from '../persistence/partner/late-return-by-hand';
import { partnersOfPayments } from '../persistence/partner/payment-partners';
import { PAYMENT_REVIEW_ID_PREFIX as REVIEW_PREFIX } from '../domain/payment-review';
import { settlementHoldReason, settlementHoldsInForce, type SettlementHold } from '../persistence/merchants/settlement-holds';
import type { ChargeAttention } from '../domain/charge-attention';
import type { Environment } from '../domain/environment';
import { paymentTypeOf, type PaymentType } from '../domain/payment-types';
import { SA } from '../domain/search-attributes';
import type { Orm } from '../persistence/orm';
import { DEFAULT_RECONCILE_GRACE_MS, inspectOverdueCharges, type WorkflowState } from '../runtime/charge-reconciler';
import type { TemporalHandle } from '../temporal/connection';
import { withinDeadline } from '../temporal/deadline';
import { pinnedRunsQuery, readBuildCoverage, unpolledBuilds, type UnpolledBuild } from '../temporal/worker-builds';
import { chargeAttentionQuery } from '../../workflows/messages';


/** One line of `payments stuck`. */
export interface StuckPayment {
  id: string;
  /** From the id's prefix: charge, payout, refund, settlement, dispute (null for any other workflow). */
  type: PaymentType | null;
  environment: string | null;
  /**
   * The partner the payment went to (issue 46): `momo`, `aggregator`, or `sandbox` in the sandbox (its
   * `rail`; a refund's or a dispute's charge's; a payment review's payment's); null for a workflow of
   * no payment record, and for a held merchant.
   */
  partner: string | null;
  /** A charge's status as the database holds it; otherwise the workflow's PaymentStatus search attribute. */
  status: string | null;
  /** Why an operator should look at it. */
  reason: string;
  needs_attention: boolean;
  /**
   * `build_unpolled`: pinned to a Worker Deployment build no worker of which polls its queue (issue 31,
   * finding 8). `settlement_hold`: not a payment but a merchant (`id`) whose live settlements are held
   * after its settlement account was replaced (issue 43; src/persistence/merchants/settlement-holds.ts).
   */
  workflow: WorkflowState | 'build_unpolled' | 'settlement_hold';
  /** The Worker Deployment build the run is pinned to, when no worker of that build polls its queue; else null. */
  build_id: string | null;
  /** That build's Worker Deployment name; else null. */
  deployment: string | null;
  age_seconds: number | null;
  /** Seconds past expires_at, for charges the reconciler considers overdue; else null. */
  overdue_seconds: number | null;
  ui_url: string;
}

export interface StuckOptions {
  orm: Orm;
  client: Client;
  namespace: string;
  /** e.g. http://127.0.0.1:8233 */
  uiBaseUrl: string;
  environment?: Environment;
  /** An operator's Temporal list query, ANDed with NeedsAttention (`payments stuck --query '…'`). */
  query?: string;
  graceMs?: number;
  requestDeadlineMs?: number;
  /**
   * With these, runs pinned to a build no worker polls are listed too (src/temporal/worker-builds.ts):
   * the connection (for DescribeTaskQueue and the Worker Deployment APIs), TEMPORAL_TASK_QUEUE, and
   * WORKER_DEPLOYMENT_NAME when set.
   */
  builds?: { temporal: TemporalHandle; taskQueue: string; deploymentName?: string };
}

/** Reason queries in flight at once (each bounded by the request deadline). */
const REASON_QUERIES_AT_ONCE = 16;

export const workflowUiUrl = (base: string, namespace: string, workflowId: string) =>
  `${base.replace(/\/$/, '')}/namespaces/${encodeURIComponent(namespace)}/workflows/${encodeURIComponent(workflowId)}`;

function overdueReason(id: string, state: WorkflowState, status: string, executionStatus: string | null, attention: string | null): string {
  switch (state) {
    case 'needs_attention':
      return attention ?? 'a database step gave up (the workflow did not answer the chargeAttention query)';
    case 'retrying':
      return `still ${status} past expires_at; its workflow is running (a database step retrying, or no worker)`;
    case 'closed':
      return `still ${status} past expires_at, but its workflow is closed (${executionStatus}): nothing will finish it; restart it: payments restart ${id} --reason TEXT`;
    case 'not_found':
      return `still ${status} past expires_at, and it has no workflow: nothing will finish it; restart it: payments restart ${id} --reason TEXT`;
  }
}

/**
 * Why a workflow marked NeedsAttention waits for an operator, in this order: the database step it
 * gave up on (the `chargeAttention` query, which charge, payout and refund workflows answer); else
 * what it says it waits for (its current details, e.g. a payout held for review names the decision
 * and its deadline; any workflow type that calls setCurrentDetails answers this); else what its
 * PaymentStatus implies. Both queries run at once, each within the deadline (they need a worker).
 */
export async function needsAttentionReason(client: Client, workflowId: string, status: string | null, deadlineMs: number): Promise<string> {
  const handle = client.workflow.getHandle(workflowId);
  const [attention, metadata] = await Promise.allSettled([
    withinDeadline(client, deadlineMs, () => handle.query(chargeAttentionQuery)),
    withinDeadline(client, deadlineMs, () => handle.query<{ currentDetails?: string }>('__temporal_workflow_metadata')),
  ]);
  const step: ChargeAttention | undefined = attention.status === 'fulfilled' ? attention.value : undefined;
  if (step?.needsAttention && step.reason) return step.reason;
  const details = metadata.status === 'fulfilled' ? metadata.value?.currentDetails?.trim() : undefined;
  if (details) return details;
  if (status === 'held_for_review') return 'held for review: waiting for a decision (payouts approve|reject ID --reason TEXT, or the decidePayout update)';
  const answered = attention.status === 'fulfilled' || metadata.status === 'fulfilled';
  return answered
    ? `marked NeedsAttention while ${status ?? 'in an unknown status'}; the workflow gives no reason`
    : `marked NeedsAttention while ${status ?? 'in an unknown status'}; the workflow did not answer (is a worker running?)`;
}

/**
 * Every payment an operator should look at: workflows of any payment type (charge, payout, refund,
 * settlement, dispute) marked NeedsAttention (a search attribute query on Temporal visibility) and
 * charges unresolved past expires_at + grace (database), one entry per id, oldest first.
 */
export async function stuckPayments(options: StuckOptions): Promise<{ object: 'list'; data: StuckPayment[] }> {
  const deadlineMs = options.requestDeadlineMs ?? 10_000;
  const byId = new Map<string, StuckPayment>();
  const url = (id: string) => workflowUiUrl(options.uiBaseUrl, options.namespace, id);

  // Every payment type at once: the search attribute, not a workflow type or id prefix, selects them.
  const query = `NeedsAttention = true${options.environment ? ` AND Environment = '${options.environment}'` : ''}${options.query ? ` AND (${options.query})` : ''}`;
  for await (const wf of options.client.workflow.list({ query })) {
    if (byId.has(wf.workflowId)) continue; // list queries return runs
    byId.set(wf.workflowId, listedEntry(wf, url(wf.workflowId)));
  }
  // A payment review that ended while its return transfer had failed keeps NeedsAttention on its
  // closed run; once the return is paid (settled by hand: payments settle-return) it needs no one.
  const closedReviews = [...byId.values()].filter((e) => e.workflow === 'closed' && e.id.startsWith(REVIEW_PREFIX)).map((e) => e.id.slice(REVIEW_PREFIX.length));
  for (const paid of await returnsPaid(options.orm, closedReviews)) byId.delete(`${REVIEW_PREFIX}${paid}`);
  // A workflow whose task keeps failing cannot run its own code (to raise NeedsAttention): the server
  // flags it (TemporalReportedProblems: the dev server of `npm start` and the tests turn this on; a
  // production server needs system.numConsecutiveWorkflowTaskProblemsToTriggerSearchAttribute).
  const failing = `TemporalReportedProblems IS NOT NULL${options.environment ? ` AND Environment = '${options.environment}'` : ''}${options.query ? ` AND (${options.query})` : ''}`;
  const taskProblems = new Map<string, string>();
  try {
    for await (const wf of options.client.workflow.list({ query: failing })) {
      if (wf.status.name !== 'RUNNING' || !paymentTypeOf(wf.workflowId)) continue;
      const problems = reportedProblems(wf.searchAttributes);
      taskProblems.set(wf.workflowId, `workflow task keeps failing (${problems || 'reported by the server'}): the worker cannot run this workflow's code; see its WorkflowTaskFailed event and the worker log (a determinism error needs the old code back, a fix with patched(), or a reset)`);
      if (!byId.has(wf.workflowId)) byId.set(wf.workflowId, listedEntry(wf, url(wf.workflowId)));
    }
  } catch (error) {
    // A server without the attribute answers the query with an error: nothing of this kind to list.
    if (!/TemporalReportedProblems/.test(error instanceof Error ? error.message : String(error))) throw error;
  }
  // Runs pinned to a build that no worker polls (a build retired before its runs drained): no query
  // could be answered, so the reason says so, with the build (issue 31, finding 8).
  const pinned = options.builds ? await runsOfUnpolledBuilds(options, deadlineMs) : new Map<string, { wf: WorkflowExecutionInfo; build: UnpolledBuild }>();
  for (const [id, { wf, build }] of pinned) {
    const entry = byId.get(id) ?? { ...listedEntry(wf, url(id)), needs_attention: wf.typedSearchAttributes.get(SA.NeedsAttention) ?? false };
    entry.environment ??= build.environment;
    entry.workflow = 'build_unpolled';
    entry.build_id = build.buildId;
    entry.deployment = build.deploymentName;
    entry.reason = unpolledReason(id, build);
    byId.set(id, entry);
  }
  // The reasons need queries (a worker answers them, or the deadline passes): a few at a time, so a
  // list of workflows nobody answers for costs a few deadlines, not one each.
  const marked = [...byId.values()].filter((entry) => !pinned.has(entry.id));
  let next = 0;
  const lane = async () => {
    while (next < marked.length) {
      const entry = marked[next++];
      entry.reason = taskProblems.get(entry.id) ?? (await needsAttentionReason(options.client, entry.id, entry.status, deadlineMs));
    }
  };
  await Promise.all(Array.from({ length: Math.min(REASON_QUERIES_AT_ONCE, marked.length) }, lane));
  // A payment review whose run ended while open (terminated by hand or by the server's history
  // limit, failed, timed out) keeps NeedsAttention on its closed run, and nothing will finish it
  // (issue 43): its reason says to restart it. One that completed keeps the reason it ended with.
  for (const entry of marked.filter((e) => e.workflow === 'closed' && isReviewId(e.id))) {
    const execution = await withinDeadline(options.client, deadlineMs, () => options.client.workflow.getHandle(entry.id).describe()).then(
      (d) => d.status.name as string,
      () => null,
    );
    if (execution && REVIEW_ENDED_OPEN.includes(execution)) entry.reason = `payment review ended while open (its workflow ${execution}): nothing will finish it; restart it: payments restart ${entry.id} --reason TEXT`;
  }

  // A --query narrows the Temporal side only; overdue charges come from the database, so it lists none.
  const overdue = options.query ? [] : await inspectOverdueCharges(options, options.environment);
  for (const charge of overdue) {
    const known = byId.get(charge.id);
    byId.set(charge.id, {
      id: charge.id,
      type: 'charge',
      environment: charge.environment,
      partner: null,
      status: charge.status,
      reason: known?.reason ?? overdueReason(charge.id, charge.workflow.state, charge.status, charge.workflow.executionStatus, charge.workflow.reason),
      needs_attention: known?.needs_attention ?? false,
      workflow: known?.workflow === 'build_unpolled' ? known.workflow : charge.workflow.state,
      build_id: known?.build_id ?? null,
      deployment: known?.deployment ?? null,
      age_seconds: charge.ageSeconds,
      overdue_seconds: charge.overdueSeconds,
      ui_url: url(charge.id),
    });
  }
  // Live charges, payouts, refunds and disputes the database holds open while their workflow is closed or missing:
  // nothing will finish them (their money stays reserved or held) until an operator restarts them.
  // With a --query, only records whose workflow (closed or not) the query matches.
  let matching: Set<string> | undefined;
  if (options.query) {
    matching = new Set();
    for await (const wf of options.client.workflow.list({ query: options.query })) matching.add(wf.workflowId);
  }
  for (const record of await unfinishedRecords(options.orm, options.graceMs ?? DEFAULT_RECONCILE_GRACE_MS, options.environment)) {
    // A closed run still marked NeedsAttention (a live batch or payout flagged while it waited for the
    // partner, then terminated) is listed above with what it last said: this says to restart it.
    const known = byId.get(record.id);
    if ((known && known.workflow !== 'closed') || (matching && !matching.has(record.id))) continue;
    const execution = await withinDeadline(options.client, deadlineMs, () => options.client.workflow.getHandle(record.id).describe()).then(
      (d) => d.status.name,
      (error: unknown) => (error instanceof WorkflowNotFoundError ? null : 'UNKNOWN'),
    );
    if (execution === 'RUNNING' || execution === 'UNKNOWN') continue;
    byId.set(record.id, {
      id: record.id,
      type: record.type,
      environment: record.environment,
      partner: null,
      status: record.status,
      reason: `${record.type} still ${record.status}, but ${execution ? `its workflow is closed (${execution})` : 'it has no workflow'}: nothing will finish it; restart it: payments restart ${record.id} --reason TEXT`,
      needs_attention: known?.needs_attention ?? false,
      workflow: execution ? 'closed' : 'not_found',
      build_id: null,
      deployment: null,
      age_seconds: record.age_seconds,
      overdue_seconds: null,
      ui_url: url(record.id),
    });
  }
  // Merchants whose live settlements are held after a settlement account change (issue 43): from the
  // database, so a --query (a Temporal filter) or --env test lists none.
  if (!options.query && options.environment !== 'sandbox') {
    for (const hold of await settlementHoldsInForce(options.orm)) byId.set(hold.merchantId, settlementHoldEntry(hold));
  }
  // Each payment's partner, in one read (issue 46: a partner in trouble shows as many stuck payments of it).
  const partners = await partnersOfPayments(options.orm, [...byId.values()].filter((e) => e.workflow !== 'settlement_hold').map((e) => e.id));
  for (const entry of byId.values()) entry.partner = partners.get(entry.id) ?? null;
  const data = [...byId.values()].sort((a, b) => (b.age_seconds ?? 0) - (a.age_seconds ?? 0) || a.id.localeCompare(b.id));
  return { object: 'list', data };
}

/** A line of `payments stuck` for a held merchant: its age is the change's. */
function settlementHoldEntry(hold: SettlementHold): StuckPayment {
  return {
    id: hold.merchantId,
    type: null,
    environment: 'live',
    partner: null,
    status: 'settlement_held',
    reason: settlementHoldReason(hold),
    needs_attention: false,
    workflow: 'settlement_hold',
    build_id: null,
    deployment: null,
    age_seconds: hold.changedAt ? Math.round((Date.now() - Date.parse(hold.changedAt)) / 1000) : null,
    overdue_seconds: null,
    ui_url: '',
  };
}

/** The server's TemporalReportedProblems values (`category=…`, `cause=…`), joined. */
function reportedProblems(attributes: unknown): string {
  const value = (attributes as Record<string, unknown> | undefined)?.TemporalReportedProblems;
  return Array.isArray(value) ? value.map(String).join(', ') : '';
}

/** A line of `payments stuck` for a workflow found by a list query (its reason comes later). */
function listedEntry(wf: WorkflowExecutionInfo, uiUrl: string): StuckPayment {
  return {
    id: wf.workflowId,
    type: paymentTypeOf(wf.workflowId),
    environment: wf.typedSearchAttributes.get(SA.Environment) ?? null,
    partner: null,
    status: wf.typedSearchAttributes.get(SA.PaymentStatus) ?? null,
    reason: '',
    needs_attention: true,
    workflow: wf.status.name === 'RUNNING' ? 'needs_attention' : 'closed',
    build_id: null,
    deployment: null,
    age_seconds: Math.round((Date.now() - wf.startTime.getTime()) / 1000),
    overdue_seconds: null,
    ui_url: uiUrl,
  };
}

/**
 * Every running workflow pinned to a build that has open runs on one of this deployment's queues and
 * no poller there (of workflow or activity tasks), by id; narrowed by --env and --query like the rest.
 */
async function runsOfUnpolledBuilds(options: StuckOptions, deadlineMs: number): Promise<Map<string, { wf: WorkflowExecutionInfo; build: UnpolledBuild }>> {
  const { temporal, taskQueue, deploymentName } = options.builds!;
  const coverage = await readBuildCoverage(temporal, taskQueue, deadlineMs, deploymentName ? [deploymentName] : []);
  const found = new Map<string, { wf: WorkflowExecutionInfo; build: UnpolledBuild }>();
  for (const build of unpolledBuilds(coverage)) {
    if (options.environment && build.environment !== options.environment) continue;
    const query = `${pinnedRunsQuery(build.deploymentName, build.buildId, build.taskQueue)}${options.query ? ` AND (${options.query})` : ''}`;
    for await (const wf of options.client.workflow.list({ query })) if (!found.has(wf.workflowId)) found.set(wf.workflowId, { wf, build });
  }
  return found;
}

/** Why a run pinned to a build nobody polls waits, and the two ways out. */
function unpolledReason(id: string, build: UnpolledBuild): string {
  const to = build.current && build.current !== build.buildId ? build.current : 'CURRENT_BUILD_ID';
  return (
    `pinned to build ${build.buildId} of worker deployment ${build.deploymentName}, which no worker polls on ${build.taskQueue} (${build.missing.join(' and ')} tasks): ` +
    `it cannot move until that build's workers run again, or it is moved to the current build after a replay: ` +
    `payments move-build --query "WorkflowId = '${id}'" --to-build ${to} --reason TEXT (docs/operations.md, "Retiring a build")`
  );
}

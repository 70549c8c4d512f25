import { WorkflowNotFoundError } from '@temporalio/client';
import type { DataConverter } from '@temporalio/common';
import { temporal as proto } from '@temporalio/proto';
import { isIdOf } from '../domain/ids';
import type { OperatorAction, OperatorAuditEntry } from '../domain/operator-action';
import { SA } from '../domain/search-attributes';
import { claimSelection, findSelection, saveSelection, type SelectedRow } from '../persistence/operators/bulk-selection-store';
import { recordOperatorAction } from '../persistence/operators/operator-audit-store';
import type { Orm } from '../persistence/orm';
import { newId } from '../support/new-id';
import type { TemporalHandle } from '../temporal/connection';
import { queryLiteral, queuesWithoutBuild, readBuildCoverage, versionKey, watchedQueues, type BuildCoverage } from '../temporal/worker-builds';
import { applyInBulk, bulkRate, DRY_RUN_ROWS, NO_LONGER_MATCHES, type BulkOutcome } from './bulk-operator';
import { bulkQuery } from './bulk-query';
import { BULK_TOKEN_TTL_MS, breakdown, MAX_BULK_SELECTION, tokenRefusal, type Breakdown } from './bulk-selection';
import { replayRuns, type RunToReplay } from './replay-runs';

/**
 * `payments move-build` (issue 31, finding 8): moves runs pinned to one build of this deployment's
 * Worker Deployment to the current (or ramping) build, the safe way docs/operations.md "Retiring a
 * build" gives: each run's history is first replayed against this checkout's workflow code (run the
 * CLI of the build you move to), and a run whose replay fails is refused, never moved; then a
 * versioning override pins it to the new build (UpdateWorkflowExecutionOptions); then one audit row
 * (`payment.move_build`, who and why, the build before and after). The history is read again after
 * the override: events added meanwhile are replayed too, and on a failure the run's previous
 * override is put back.
 *
 * By id, or in bulk as every operator action (src/services/bulk-run.ts): a dry run of `--query`
 * selects the running workflows of any type pinned to another build of the deployment, on this
 * deployment's queues, replays them, and prints the count, the breakdowns, the refused and a token
 * naming the runs that replayed; `--yes --token` moves those only, each re-checked and replayed again
 * just before its move.
 */

export const MOVE_BUILD_COMMAND = 'payments move-build';
/** The audit action of a move. */
export const MOVE_BUILD_ACTION: OperatorAction = 'payment.move_build';

const { PinnedOverrideBehavior } = proto.api.workflow.v1.VersioningOverride;

export interface MoveBuildRequest {
  orm: Orm;
  temporal: TemporalHandle;
  /** TEMPORAL_TASK_QUEUE: only runs on this deployment's queues are moved. */
  taskQueue: string;
  /** WORKER_DEPLOYMENT_NAME, when set; else the deployment whose current or ramping build is `toBuild`. */
  deploymentName?: string | undefined;
  /** The payload codec's converter (as the workers'), to replay histories. */
  dataConverter: DataConverter;
  toBuild: string;
  /**
   * This CLI's own build (WORKER_BUILD_ID, with WORKFLOW_BUNDLE_PATH when set: the code a run's
   * history is replayed against); undefined when the CLI has none. It must be `toBuild` (issue 43).
   */
  cliBuild: string | undefined;
  operator: string;
  reason: string;
  id?: string | undefined;
  query?: string | undefined;
  merchantId?: string | undefined;
  yes: boolean;
  token?: string | undefined;
  deadlineMs: number;
  /** The settings of the run (the CLI's environment): BULK_ACTIONS_PER_SECOND, and the replay's WORKFLOW_BUNDLE_PATH and TEMPORAL_LOG_LEVEL. */
  env: NodeJS.ProcessEnv;
}

/** A run the selection found: its latest run, pinned to `fromBuild`. */
export interface PinnedRun extends SelectedRow {
  run_id: string;
  workflow_type: string;
  from_build: string;
}

export interface MoveDryRun extends Breakdown {
  dry_run: true;
  action: string;
  query: string;
  deployment: string;
  to_build: string;
  /** Runs that replayed against this code: the token's set. */
  count: number;
  by_build: Record<string, number>;
  first: PinnedRun[];
  /** Runs whose replay failed: never moved (they are not in the token's set). */
  refused: Array<{ id: string; error: string }>;
  token: string;
  token_expires_at: string;
  apply_with: string;
}

export interface MovedRun {
  id: string;
  run_id: string;
  from_build: string;
  to_build: string;
  audit_id: string;
}

const WORKFLOW_ID = /^[A-Za-z0-9_-]{1,200}$/;
const BUILD_ID = /^[^'"\\\u0000-\u001f\u007f]{1,255}$/;

/** The deployment and its build the runs move to: `toBuild` must be its current or ramping build. */
function targetOf(coverage: BuildCoverage, toBuild: string, deploymentName: string | undefined): string {
  const candidates = coverage.deployments.filter((d) => (deploymentName === undefined || d.deploymentName === deploymentName) && (d.current === toBuild || d.ramping === toBuild));
  if (candidates.length === 1) return candidates[0]!.deploymentName;
  const known = coverage.deployments.filter((d) => deploymentName === undefined || d.deploymentName === deploymentName);
  if (candidates.length > 1) throw new Error(`build ${toBuild} is current or ramping in several deployments (${candidates.map((d) => d.deploymentName).join(', ')}): set WORKER_DEPLOYMENT_NAME to the one to move runs in`);
  const routing = known.map((d) => `${d.deploymentName}: current ${d.current ?? 'none'}${d.ramping ? `, ramping ${d.ramping}` : ''}`).join('; ');
  throw new Error(
    `build ${toBuild} is neither the current nor the ramping build of ${deploymentName ? `deployment ${deploymentName}` : 'a deployment polling these queues'} (${routing || 'none found'}): ` +
      'runs move only to the build new runs go to; make it current first (temporal worker deployment set-current-version), nothing was moved',
  );
}

/**
 * Why the CLI may not replay for a move to `toBuild` (issue 43, Medium): a move is safe only when
 * the histories replay against the workflow code of the build they go to, and this CLI replays
 * against its own (workflows/ of its image, or WORKFLOW_BUNDLE_PATH): that is build `toBuild` only
 * when its WORKER_BUILD_ID says so. Null when it does.
 */
export function cliBuildRefusal(cliBuild: string | undefined, toBuild: string): string | null {
  if (cliBuild === undefined) {
    return `this CLI has no WORKER_BUILD_ID, so nothing says its workflow code is build ${toBuild}'s, which the runs' histories must replay against: run payments move-build from build ${toBuild}'s image (WORKER_DEPLOYMENT_NAME and WORKER_BUILD_ID=${toBuild} set, as its workers have); nothing was moved`;
  }
  if (cliBuild !== toBuild) {
    return `this CLI is build ${cliBuild} (WORKER_BUILD_ID), not --to-build ${toBuild}: it would replay the runs against another build's workflow code; run payments move-build from build ${toBuild}'s image; nothing was moved`;
  }
  return null;
}

/** Why `toBuild` may not take runs: some queue of this deployment has no poller of it (a run moved there would stall). Null when every queue has one. */
export function unpolledTargetRefusal(coverage: Pick<BuildCoverage, 'pollers'>, taskQueue: string, deploymentName: string, toBuild: string): string | null {
  const unpolled = queuesWithoutBuild(coverage, taskQueue, deploymentName, toBuild);
  if (unpolled.length === 0) return null;
  const where = unpolled.map((q) => `${q.taskQueue} (${q.missing.join(' and ')} tasks)`).join(', ');
  return `build ${toBuild} of deployment ${deploymentName} has no worker polling ${where} (none seen in the last minute): a run moved to it would stall there; start its workers first (payments stuck and /health show the pollers), nothing was moved`;
}

/** The list query of the runs to move: running, pinned to another build of the deployment, on this deployment's queues. */
function selectionQuery(request: MoveBuildRequest, deploymentName: string, operatorQuery: string): string {
  const queues = [...new Set(watchedQueues(request.taskQueue).map((q) => q.taskQueue))].map(queryLiteral).join(', ');
  const pinned = `TemporalWorkerDeployment = ${queryLiteral(deploymentName)} AND TemporalWorkflowVersioningBehavior = 'Pinned' AND TemporalWorkerDeploymentVersion != ${queryLiteral(versionKey(deploymentName, request.toBuild))} AND TaskQueue IN (${queues})`;
  return `${bulkQuery(operatorQuery, request.merchantId, 'running')} AND ${pinned}`;
}

async function listPinned(request: MoveBuildRequest, query: string): Promise<PinnedRun[]> {
  const byId = new Map<string, PinnedRun & { started: number }>();
  for await (const wf of request.temporal.client.workflow.list({ query })) {
    if (!WORKFLOW_ID.test(wf.workflowId)) throw new Error(`the query selected workflow ${JSON.stringify(wf.workflowId)}, whose id this command does not take: refused, nothing was done`);
    const known = byId.get(wf.workflowId);
    if (known && known.started >= wf.startTime.getTime()) continue;
    const version = (wf.searchAttributes as Record<string, unknown[] | undefined>).TemporalWorkerDeploymentVersion?.[0];
    byId.set(wf.workflowId, {
      id: wf.workflowId,
      run_id: wf.runId,
      workflow_type: wf.type,
      environment: wf.typedSearchAttributes.get(SA.Environment) ?? null,
      merchant_id: wf.typedSearchAttributes.get(SA.MerchantId) ?? null,
      from_build: typeof version === 'string' ? version.slice(version.indexOf(':') + 1) : '?',
      started: wf.startTime.getTime(),
    });
  }
  return [...byId.values()].sort((a, b) => a.started - b.started || a.id.localeCompare(b.id)).map(({ started: _, ...row }) => row);
}

/** The run as it stands: latest run, running, pinned to a build of `deploymentName` other than the target; else why not. */
async function currentRun(request: MoveBuildRequest, deploymentName: string, id: string): Promise<{ run: PinnedRun; override: proto.api.workflow.v1.IVersioningOverride | null } | string> {
  let described;
  try {
    described = await request.temporal.client.workflow.getHandle(id).describe();
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return `no workflow ${id}`;
    throw error;
  }
  if (described.status.name !== 'RUNNING') return `its workflow is ${described.status.name}: only a running run is moved`;
  if (!watchedQueues(request.taskQueue).some((q) => q.taskQueue === described.taskQueue)) return `it runs on task queue ${described.taskQueue}, not one of this deployment's`;
  const info = described.raw.workflowExecutionInfo?.versioningInfo;
  // A pinned override (an earlier move) decides where the run goes, whatever build it last ran on.
  const version = info?.versioningOverride?.pinned?.version ?? info?.deploymentVersion;
  if (!version?.buildId) return 'it is pinned to no build (an unversioned run goes to the current build by itself)';
  if (version.deploymentName !== deploymentName) return `it is pinned to deployment ${version.deploymentName}, not ${deploymentName}`;
  if (version.buildId === request.toBuild) return `it is already on build ${request.toBuild}`;
  return {
    run: {
      id,
      run_id: described.runId,
      workflow_type: described.type,
      environment: described.typedSearchAttributes.get(SA.Environment) ?? null,
      merchant_id: described.typedSearchAttributes.get(SA.MerchantId) ?? null,
      from_build: version.buildId,
    },
    override: info?.versioningOverride ?? null,
  };
}

async function historyOf(request: MoveBuildRequest, run: PinnedRun): Promise<RunToReplay> {
  const history = await request.temporal.client.workflow.getHandle(run.id, run.run_id).fetchHistory();
  return { workflowId: run.id, runId: run.run_id, history };
}

function setOverride(request: MoveBuildRequest, run: PinnedRun, override: proto.api.workflow.v1.IVersioningOverride | null, identity: string) {
  return request.temporal.connection.workflowService.updateWorkflowExecutionOptions({
    namespace: request.temporal.namespace,
    workflowExecution: { workflowId: run.id, runId: run.run_id },
    workflowExecutionOptions: { versioningOverride: override },
    updateMask: { paths: ['versioning_override'] },
    identity,
  });
}

/**
 * Moves one run: replay, override, the history read again (and replayed again if it grew), audit.
 * Throws with the reason when the run is not moved.
 */
async function moveOne(request: MoveBuildRequest, deploymentName: string, id: string, batchId: string | null): Promise<MovedRun> {
  const found = await currentRun(request, deploymentName, id);
  if (typeof found === 'string') throw new Error(`${id} not moved: ${found}`);
  const { run, override: previous } = found;
  const before = await historyOf(request, run);
  const [replayed] = await replayRuns(request.dataConverter, [before], request.env);
  if (replayed!.error) throw new Error(`${id} not moved: its history does not replay on this workflow code (${replayed!.error}); it stays on build ${run.from_build}`);
  const requestId = `move-build:${run.run_id}:${versionKey(deploymentName, request.toBuild)}`;
  const identity = `${request.operator} (${requestId})`.slice(0, 1000);
  await setOverride(request, run, { pinned: { behavior: PinnedOverrideBehavior.PINNED_OVERRIDE_BEHAVIOR_PINNED, version: { deploymentName, buildId: request.toBuild } } }, identity);
  const after = await historyOf(request, run);
  if ((after.history.events?.length ?? 0) > (before.history.events?.length ?? 0)) {
    const [again] = await replayRuns(request.dataConverter, [after], request.env);
    if (again!.error) {
      await setOverride(request, run, previous, `${request.operator} (undo ${requestId})`);
      throw new Error(`${id} not moved: events added during the move do not replay on this workflow code (${again!.error}); put back on build ${run.from_build}`);
    }
  }
  const auditId = newId('audit');
  const entry: OperatorAuditEntry = {
    paymentId: id,
    action: MOVE_BUILD_ACTION,
    operator: request.operator,
    reason: request.reason,
    before: { deployment: deploymentName, build_id: run.from_build, run_id: run.run_id, workflow_type: run.workflow_type },
    after: { deployment: deploymentName, build_id: request.toBuild, run_id: run.run_id, versioning_override: 'pinned' },
    requestId,
    batchId,
    merchantId: run.merchant_id,
    environment: run.environment,
    at: new Date().toISOString(),
  };
  const recorded = await recordOperatorAction(request.orm, auditId, entry);
  return { id, run_id: run.run_id, from_build: run.from_build, to_build: request.toBuild, audit_id: recorded.id };
}

export async function moveBuild(request: MoveBuildRequest): Promise<MovedRun | MoveDryRun | (BulkOutcome & { token: string; made_by: string })> {
  if (!BUILD_ID.test(request.toBuild)) throw new Error('--to-build must be a build id: 1 to 255 characters, no quote, backslash or control character');
  const bulk = request.query !== undefined || request.yes || request.merchantId !== undefined || request.token !== undefined;
  if (bulk && request.id !== undefined) throw new Error('give a workflow id or a bulk selection (--query, --yes --token …), not both');
  if (!bulk && request.id === undefined) throw new Error("a workflow id is required (or --query 'a Temporal list query' for a dry run)");
  if (request.id !== undefined && !WORKFLOW_ID.test(request.id)) throw new Error('the workflow id must be letters, digits, _ and -');
  const notThisCode = cliBuildRefusal(request.cliBuild, request.toBuild);
  if (notThisCode) throw new Error(notThisCode);
  const coverage = await readBuildCoverage(request.temporal, request.taskQueue, request.deadlineMs, request.deploymentName ? [request.deploymentName] : []);
  const deploymentName = targetOf(coverage, request.toBuild, request.deploymentName);
  const unpolled = unpolledTargetRefusal(coverage, request.taskQueue, deploymentName, request.toBuild);
  if (unpolled) throw new Error(unpolled);
  if (!bulk) return moveOne(request, deploymentName, request.id!, null);

  const params = { to_build: request.toBuild, deployment: deploymentName };
  if (!request.yes) {
    if (request.token !== undefined) throw new Error('--token goes with --yes; without --yes the command is a dry run');
    if (request.query === undefined) throw new Error("a dry run needs --query 'a Temporal list query'");
    const query = selectionQuery(request, deploymentName, request.query);
    const listed = await listPinned(request, query);
    if (listed.length > MAX_BULK_SELECTION) throw new Error(`the query selects ${listed.length} runs, more than ${MAX_BULK_SELECTION} at once: narrow it`);
    const stray = listed.find((r) => request.merchantId !== undefined && r.merchant_id !== request.merchantId);
    if (stray) throw new Error(`the query selected ${stray.id} of ${stray.merchant_id ?? 'no merchant'}, outside --merchant ${request.merchantId}: refused, nothing was done`);
    const histories = await Promise.all(listed.map((run) => historyOf(request, run)));
    const results = await replayRuns(request.dataConverter, histories, request.env);
    const failed = new Map(results.filter((r) => r.error).map((r) => [r.workflowId, r.error!]));
    const movable = listed.filter((r) => !failed.has(r.id));
    const saved = await saveSelection(
      request.orm,
      { token: newId('operatorSelection'), command: MOVE_BUILD_COMMAND, query, merchantId: request.merchantId ?? null, params, payments: movable.map(({ id, environment, merchant_id }) => ({ id, environment, merchant_id })), createdBy: request.operator },
      BULK_TOKEN_TTL_MS,
    );
    const byBuild: Record<string, number> = {};
    for (const r of movable) byBuild[r.from_build] = (byBuild[r.from_build] ?? 0) + 1;
    return {
      dry_run: true,
      action: MOVE_BUILD_COMMAND,
      query,
      deployment: deploymentName,
      to_build: request.toBuild,
      count: movable.length,
      ...breakdown(movable),
      by_build: byBuild,
      first: movable.slice(0, DRY_RUN_ROWS),
      refused: [...failed.entries()].map(([id, error]) => ({ id, error: `its history does not replay on this workflow code: ${error}` })),
      token: saved.token,
      token_expires_at: saved.expiresAt.toISOString(),
      apply_with: `${MOVE_BUILD_COMMAND} --to-build ${request.toBuild} --yes --token ${saved.token} with the same options (moves these ${movable.length} only, once, until ${saved.expiresAt.toISOString()}; each is replayed again first)`,
    };
  }

  if (request.token === undefined) throw new Error('--yes moves only the set a dry run showed: run the command without --yes, check what it prints, then repeat it with --yes --token opsel_… (the token it printed)');
  const token = request.token;
  const selection = isIdOf('operatorSelection', token) ? await findSelection(request.orm, token) : null;
  const query = request.query === undefined ? undefined : selectionQuery(request, deploymentName, request.query);
  const refusal = tokenRefusal(selection, token, { command: MOVE_BUILD_COMMAND, params, query, now: new Date() });
  if (refusal) throw new Error(refusal);
  const chosen = selection!;
  if (request.merchantId !== undefined && request.merchantId !== chosen.merchantId) throw new Error(`token ${token} was made for --merchant ${chosen.merchantId ?? '(none)'}, not ${request.merchantId}`);
  const batchId = newId('operatorBatch');
  if (!(await claimSelection(request.orm, token, request.operator, batchId))) throw new Error(`token ${token} was used or expired a moment ago: run a new dry run`);
  const outcome = await applyInBulk({
    action: MOVE_BUILD_COMMAND,
    query: chosen.query,
    ids: chosen.payments.map((p) => p.id),
    batchId,
    recheck: (id) => stillListed(request, chosen.query, id),
    act: (id, batch) => moveOne(request, deploymentName, id, batch),
    perSecond: bulkRate(request.env),
  });
  return { ...outcome, token, made_by: chosen.createdBy };
}

/** Whether `id`'s latest run still matches the dry run's query (running, pinned to another build, the operator's clauses); null when it does. */
async function stillListed(request: MoveBuildRequest, query: string, id: string): Promise<string | null> {
  let latest;
  try {
    latest = await request.temporal.client.workflow.getHandle(id).describe();
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return `${NO_LONGER_MATCHES} (no workflow ${id})`;
    throw error;
  }
  for await (const wf of request.temporal.client.workflow.list({ query: `WorkflowId = ${queryLiteral(id)} AND RunId = ${queryLiteral(latest.runId)} AND ${query}`, pageSize: 1 })) {
    if (wf.workflowId === id && wf.runId === latest.runId) return null;
  }
  return `${NO_LONGER_MATCHES} (its workflow is ${latest.status.name})`;
}

import { WorkflowClient, type WorkflowHandleWithFirstExecutionRunId } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { bundleWorkflowCode, Worker, type LogLevel, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import type { SettlementRunActivities } from '../../../activities/types';
import { NO_SETTLEMENT_ACCOUNT, type BalanceKey, type SettlementRunInput, type SettlementRunPageRequest, type SettlementRunResult } from '../../../src/domain/settlement-run';
import type { SettlementStart } from '../../../src/domain/settlement-start';
import { randomBase62 } from '../../../src/support/new-id';
import { settlementRunStartOptions } from '../../../src/temporal/settlement-run-start';
import { deploymentTaskQueues } from '../../../src/temporal/task-queues';
import { installRuntime } from '../../../workers/workflow-bundle';
import { WorkerGroup } from '../../../workers/worker-group';
import type { settlementRunWorkflow } from '../../../workflows/settlement-run';
import { declareSearchAttributes } from './charge-env';
import { auditLog } from './fake-audit';
import { createTimeSkippingEnv } from './time-skipping-env';

/** How the batch double (settlement-run-workflows.ts) was started. */
export interface StartedDouble {
  input: SettlementStart;
  workflowId: string;
  taskQueue: string;
  parentWorkflowId: string | null;
  searchAttributes: Record<string, unknown>;
}

/** The workflow id of a recorded run (scripts/record-settlement-run-histories.ts); its replay needs it (the run keeps it as its run id). */
export const recordedRunId = (scenario: string) => `settlement-run-recorded-${scenario}`;

export interface FakeBalance extends BalanceKey {
  hasAccount: boolean;
}

const order = (a: BalanceKey, b: BalanceKey) =>
  a.merchantId < b.merchantId ? -1 : a.merchantId > b.merchantId ? 1 : a.environment < b.environment ? -1 : a.environment > b.environment ? 1 : a.currency < b.currency ? -1 : a.currency > b.currency ? 1 : 0;

/**
 * settlement_balances in memory: the settleable balances (positive available), paged by key as
 * src/persistence/settlements/settlement-balances.ts does, skips kept per balance. Every page request is logged.
 */
export class FakeSettlementBalances {
  balances: FakeBalance[] = [];
  readonly pages: SettlementRunPageRequest[] = [];
  readonly skips = new Map<string, { reason: string; runId: string }>();
  readonly started: StartedDouble[] = [];
  /** While true, every page step fails as an unreachable database does (retryable). */
  failing = false;

  add(...balances: FakeBalance[]): this {
    this.balances.push(...balances);
    this.balances.sort(order);
    return this;
  }

  readonly activities: SettlementRunActivities & { recordBatchStart(started: StartedDouble): Promise<void> } = {
    settlementRunPage: async (request) => {
      this.pages.push(request);
      if (this.failing) throw new Error('connect ECONNREFUSED 127.0.0.1:5432');
      const rows = this.balances
        .filter((b) => (request.merchantId === undefined || b.merchantId === request.merchantId) && (request.environment === undefined || b.environment === request.environment))
        .filter((b) => !request.after || order(b, request.after) > 0)
        .slice(0, request.limit);
      const key = ({ merchantId, environment, currency }: BalanceKey): BalanceKey => ({ merchantId, environment, currency });
      const skipped = rows.filter((r) => !r.hasAccount).map((r) => ({ ...key(r), reason: NO_SETTLEMENT_ACCOUNT }));
      for (const s of skipped) this.skips.set(`${s.merchantId}/${s.environment}/${s.currency}`, { reason: s.reason, runId: request.runId });
      return { settle: rows.filter((r) => r.hasAccount).map(key), skipped, next: rows.length === request.limit ? key(rows[rows.length - 1]) : null };
    },
    recordBatchStart: async (started) => {
      this.started.push(started);
    },
  };
}

export interface SettlementRunTestEnv {
  env: TestWorkflowEnvironment;
  store: FakeSettlementBalances;
  /** The base queue; workers poll its sandbox and live queues. */
  taskQueue: string;
  /** Starts a run as `settlements run` does (settlement-run-start.ts); `raw`: this input as is, on the live queue. */
  start(input?: SettlementRunInput, options?: { raw?: unknown }): Promise<WorkflowHandleWithFirstExecutionRunId<typeof settlementRunWorkflow>>;
  /** The bundle the workers run (for replays). */
  bundle(): Promise<WorkflowBundleWithSourceMap>;
  /** Waits for the batch doubles the run started (their results, no polling); answers how each was started. */
  batchesOf(result: SettlementRunResult): Promise<StartedDouble[]>;
  close(): Promise<void>;
}

export async function startSettlementRunTestEnv(): Promise<SettlementRunTestEnv> {
  installRuntime((process.env.TEMPORAL_LOG_LEVEL as LogLevel) || 'ERROR');
  const env = await createTimeSkippingEnv();
  const store = new FakeSettlementBalances();
  const taskQueue = `settlement-runs-${randomBase62(8)}`;
  let worker: WorkerGroup;
  let workflowBundle: WorkflowBundleWithSourceMap;
  try {
    await declareSearchAttributes(env);
    const quiet = { trace() {}, debug() {}, info() {}, warn() {}, error: console.error, log() {} } as never;
    workflowBundle = await bundleWorkflowCode({ workflowsPath: require.resolve('./settlement-run-workflows'), logger: quiet });
    const queues = deploymentTaskQueues(taskQueue);
    const workerOn = (queue: string) => Worker.create({ connection: env.nativeConnection, taskQueue: queue, workflowBundle, activities: { ...auditLog.activities, ...store.activities } });
    worker = new WorkerGroup({ sandbox: await workerOn(queues.sandbox), live: await workerOn(queues.live) });
  } catch (error) {
    await env.teardown();
    throw error;
  }
  const running = worker.run();
  const plain = new WorkflowClient({ connection: env.connection, namespace: env.namespace ?? 'default' });
  return {
    env,
    store,
    taskQueue,
    bundle: async () => workflowBundle,
    // A plain client, never the time-skipping one: a run waits for no timer, and letting the test
    // server skip time while a slow worker holds a page step (two results awaited at once, on a loaded
    // CI machine) once ran a run into "Workflow execution timed out".
    start: (input = {}, options = {}) =>
      plain.start<typeof settlementRunWorkflow>('settlementRunWorkflow', {
        ...settlementRunStartOptions(taskQueue, 'raw' in options ? {} : input),
        ...('raw' in options ? { args: [options.raw as SettlementRunInput] } : {}),
      }),
    async batchesOf(result) {
      const ids = result.batches.map((b) => b.settlementId);
      // A plain client: the doubles wait for no timer, and the test server's time-skipping result()
      // on children of a run that continued as new trips over its own lock ("Unbalanced lock").
      await Promise.all(ids.map((id) => plain.getHandle(id).result()));
      return ids.map((id) => store.started.find((s) => s.workflowId === id)!);
    },
    async close() {
      worker.shutdown();
      await running;
      await env.teardown();
    },
  };
}


import { WithStartWorkflowOperation } from '@temporalio/client';
import { bundleWorkflowCode, NativeConnection, Worker } from '@temporalio/worker';
import { randomBase62 } from '../../../src/support/new-id';
import { codecDataConverter } from '../../../src/temporal/payload-codec';
import { installRuntime } from '../../../workers/workflow-bundle';
import type { BenchInfra } from './infra';
import { runPhase, type PhaseResult } from './load';
import { benchActivities } from './activities';
import { acceptUpdate, bareActivityWorkflow, bareSleepWorkflow, bareUpdateWorkflow, bareWorkflow } from './workflows';

export interface BareWorker {
  taskQueue: string;
  run(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * A second worker, own task queue, own bundle (scripts/bench/shared/workflows.ts), same SDK defaults, and the
 * payload codec of the API's client (which encrypts the workflows' arguments, as in production), and
 * one no-op activity (scripts/bench/shared/activities.ts) for the `start-activity` kind.
 */
export async function createBareWorker(infra: BenchInfra): Promise<BareWorker> {
  installRuntime();
  const taskQueue = `bench-bare-${randomBase62(8)}`;
  const workflowBundle = await bundleWorkflowCode({
    workflowsPath: require.resolve('./workflows'),
    logger: { trace() {}, debug() {}, info() {}, warn() {}, error: console.error, log() {} } as never,
  });
  const connection = await NativeConnection.connect({ address: infra.temporalAddress });
  const worker = await Worker.create({
    connection,
    namespace: 'default',
    taskQueue,
    workflowBundle,
    activities: benchActivities,
    dataConverter: codecDataConverter(infra.payloadCodec),
  });
  let done: Promise<void> | undefined;
  return {
    taskQueue,
    async run() {
      done ??= worker.run();
    },
    async stop() {
      if (done) {
        worker.shutdown();
        await done;
      }
      await connection.close();
    },
  };
}

export type BaselineKind = 'start' | 'start-activity' | 'start-sleep' | 'update-with-start-sleep';

const NAMES: Record<BaselineKind, string> = {
  start: 'bare: start, returns at once',
  'start-activity': 'bare: start, one activity',
  'start-sleep': 'bare: start, sleeps',
  'update-with-start-sleep': 'bare: update-with-start, sleeps',
};

/** (b) N bare workflows at the same concurrency on the same server; start latency and completion. */
export async function runBaselinePhase(infra: BenchInfra, worker: BareWorker, kind: BaselineKind, n: number, concurrency: number, sleepMs: number): Promise<PhaseResult> {
  const client = infra.temporal.client.workflow;
  const taskQueue = worker.taskQueue;
  const prefix = `bench-${kind}-${randomBase62(6)}`;
  return runPhase({
    name: kind === 'start' || kind === 'start-activity' ? NAMES[kind] : `${NAMES[kind]} ${sleepMs / 1000} s`,
    n,
    concurrency,
    async create(i) {
      const workflowId = `${prefix}-${i}`;
      if (kind === 'start') await client.start(bareWorkflow, { workflowId, taskQueue });
      else if (kind === 'start-activity') await client.start(bareActivityWorkflow, { workflowId, taskQueue });
      else if (kind === 'start-sleep') await client.start(bareSleepWorkflow, { workflowId, taskQueue, args: [sleepMs] });
      else {
        const startWorkflowOperation = new WithStartWorkflowOperation(bareUpdateWorkflow, {
          workflowId,
          taskQueue,
          args: [sleepMs],
          workflowIdConflictPolicy: 'USE_EXISTING',
        });
        const answer = await client.executeUpdateWithStart(acceptUpdate, { startWorkflowOperation });
        if (answer !== 'accepted') throw new Error(`update answered ${answer}`);
      }
      return workflowId;
    },
    historyLength: async (id) => (await client.getHandle(id).describe()).historyLength,
    async awaitResult(workflowId) {
      const result = await client.getHandle(workflowId).result();
      if (result !== 'done') throw new Error(`${workflowId} returned ${String(result)}`);
    },
  });
}

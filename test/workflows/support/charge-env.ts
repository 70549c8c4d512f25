import type { WorkflowHandle } from '@temporalio/client';
import type { TypedSearchAttributes } from '@temporalio/common';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker, type LogLevel } from '@temporalio/worker';
import type { ChargeDraft } from '../../../src/domain/charge';
import type { ChargeState } from '../../../src/domain/charge-state';
import type { Channel } from '../../../src/domain/charge-status';
import type { Environment } from '../../../src/domain/environment';
import { chargeStartOperation, chargeStartOptions, reversalStartOptions } from '../../../src/temporal/charge-start';
import { deploymentTaskQueues } from '../../../src/temporal/task-queues';
import { WorkerGroup } from '../../../workers/worker-group';
import { declareSearchAttributes } from '../../../src/temporal/test-server-attributes';
import { buildChargeDraft } from '../../../src/services/charge-draft';
import { newId, randomBase62 } from '../../../src/support/new-id';
import { installRuntime, workflowBundle } from '../../../workers/workflow-bundle';
import type { chargeWorkflow } from '../../../workflows/charge';
import type { chargeReversalWorkflow } from '../../../workflows/charge-reversal';
import { ACCEPT_UPDATE_ID, acceptChargeUpdate, type ChargeAcceptance } from '../../../workflows/messages';
import { FakeChargeStore } from './fake-activities';
import { auditLog } from './fake-audit';
import { FakeRail } from './fake-rail-activities';
import { signalsAnswered } from './wait-for';
import { createTimeSkippingEnv } from './time-skipping-env';

export const MTN_GH = '3f9c2b1e-8a4d-4c6e-9b7a-1d2e3f4a5b01';

/**
 * How far ahead of the test server's clock a draft is dated (`createdAgoMs: -REAL_TIME_HEADROOM_MS`)
 * when the test must act while a timer counted from the creation waits in real time, such as the
 * sandbox completion's 3 s: a loaded CI machine spent those 3 s before the run started its timer
 * (2026-11-30). Dated ahead, the timer waits its whole delay from its start (railDue caps it there).
 */
export const REAL_TIME_HEADROOM_MS = 20_000;

export interface DraftOptions {
  environment?: Environment;
  metadata?: Record<string, unknown>;
  /** Override of the default 15-minute lifetime (expires_at - created_at). */
  lifetimeMs?: number;
  /** The request's `expires_at`, as a merchant sends it (issue 48). */
  expiresAt?: string;
  /**
   * Written this long before "now" (a run that starts late: the workers behind a backlog). Negative:
   * dated ahead (REAL_TIME_HEADROOM_MS).
   */
  createdAgoMs?: number;
  /** Default mobile_money; card and bank (sandbox, no sandbox_outcome) get a hosted checkout. */
  channel?: Channel;
}

/**
 * A time-skipping Temporal test server with the custom search attributes registered, and one
 * worker running the real workflow bundle with in-memory activities (FakeChargeStore).
 */
export interface ChargeTestEnv {
  env: TestWorkflowEnvironment;
  store: FakeChargeStore;
  /** The partner rail's activities (default: no rail on the worker). */
  rail: FakeRail;
  taskQueue: string;
  /** A draft as the API builds it, created "now" on the test server's clock. */
  draft(options?: DraftOptions): Promise<ChargeDraft>;
  /**
   * POST /v1/charges as src/services/create-charge.ts does it: the charge is written (to the fake
   * store), then its workflow started with `{ chargeId }`. `write: false` starts it for a charge that
   * was never written.
   */
  start(draft: ChargeDraft, options?: { write?: boolean }): Promise<WorkflowHandle<typeof chargeWorkflow>>;
  /**
   * The create path before write-first: update-with-start of chargeWorkflow with the whole draft.
   * New runs refuse such an input (ChargeInputRefused); recorded ones replay (test/replay).
   */
  accept(draft: ChargeDraft): Promise<ChargeAcceptance>;
  /** Waits for the charge workflow's result (the charge's state: no customer data), skipping time once every signal sent is answered. */
  settle(chargeId: string): Promise<ChargeState>;
  /** The operator reversal as src/services/reverse-charge.ts starts it: a new run under the charge id. */
  startReversal(chargeId: string, requestedAt: string): Promise<WorkflowHandle<typeof chargeReversalWorkflow>>;
  searchAttributes(chargeId: string): Promise<TypedSearchAttributes>;
  close(): Promise<void>;
}

/** Moved to src/temporal (the simulation uses it too); re-exported for the tests that import it from here. */
export { declareSearchAttributes };

export async function startChargeTestEnv(): Promise<ChargeTestEnv> {
  // ERROR, not WARN: the expected failures (refused reversal) would log whole failure objects.
  installRuntime((process.env.TEMPORAL_LOG_LEVEL as LogLevel) || 'ERROR');
  const env = await createTimeSkippingEnv();
  const store = new FakeChargeStore();
  const rail = new FakeRail();
  const taskQueue = `charges-${randomBase62(8)}`;
  let worker: WorkerGroup;
  try {
    await declareSearchAttributes(env);
    // As in production, a Worker per task queue: each environment's, and the legacy base queue
    // (`taskQueue`; src/temporal/task-queues.ts), where a run started by hand lands.
    const workerOn = async (queue: string) =>
      Worker.create({ connection: env.nativeConnection, taskQueue: queue, workflowBundle: await workflowBundle(), activities: { ...auditLog.activities, ...store.activities, ...rail.activities } });
    const queues = deploymentTaskQueues(taskQueue);
    worker = new WorkerGroup({ sandbox: await workerOn(queues.sandbox), live: await workerOn(queues.live), legacy: await workerOn(queues.legacy) });
  } catch (error) {
    await env.teardown(); // never leave a test server process behind
    throw error;
  }
  const running = worker.run();
  const client = env.client.workflow;
  rail.clock = () => env.currentTimeMs();

  return {
    rail,
    env,
    store,
    taskQueue,
    async draft(options = {}) {
      const now = new Date((await env.currentTimeMs()) - (options.createdAgoMs ?? 0));
      const caller = { merchantId: 'mer_test', environment: options.environment ?? 'sandbox', keyId: 'key_test', merchantVerified: true };
      const request = {
        amount: 15000,
        currency: 'GHS',
        channel: options.channel ?? 'mobile_money',
        ...(options.channel && options.channel !== 'mobile_money' ? {} : { momo_network_id: MTN_GH }),
        customer: { identifier: '233241234567', name: 'Ama Mensah' },
        reference: 'order-1',
        metadata: options.metadata ?? {},
        ...(options.expiresAt ? { expires_at: options.expiresAt } : {}),
      };
      const draft = buildChargeDraft(caller, newId('charge'), request, now);
      if (options.lifetimeMs !== undefined) draft.expiresAt = new Date(now.getTime() + options.lifetimeMs).toISOString();
      return draft;
    },
    async start(draft, { write = true } = {}) {
      const { sandboxOutcome: _, ...record } = draft;
      if (write) store.write(record);
      return client.start<typeof chargeWorkflow>('chargeWorkflow', chargeStartOptions(record, taskQueue));
    },
    accept(draft) {
      return client.executeUpdateWithStart(acceptChargeUpdate, { updateId: ACCEPT_UPDATE_ID, startWorkflowOperation: chargeStartOperation(draft, taskQueue) });
    },
    async settle(chargeId) {
      const handle = client.getHandle<typeof chargeWorkflow>(chargeId);
      await signalsAnswered(handle); // before time may skip (test/workflows/support/wait-for.ts)
      return handle.result();
    },
    startReversal(chargeId, requestedAt) {
      const charge = store.charges.get(chargeId);
      if (!charge) throw new Error(`no charge ${chargeId} in the fake store`);
      return client.start<typeof chargeReversalWorkflow>('chargeReversalWorkflow', reversalStartOptions(charge, taskQueue, requestedAt, { operator: 'test:operator', reason: 'workflow test reversal' }));
    },
    async searchAttributes(chargeId) {
      return (await client.getHandle(chargeId).describe()).typedSearchAttributes;
    },
    async close() {
      worker.shutdown();
      await running;
      await env.teardown();
    },
  };
}

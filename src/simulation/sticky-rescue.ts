import * as grpc from '@grpc/grpc-js';
import type { Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';

/** The protobuf reflection root @temporalio/proto ships (its services and their methods), untyped there. */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const protoRoot = require('@temporalio/proto/protos/json-module') as { lookupService(name: string): { methods: Record<string, unknown> } };

/**
 * `restart_worker` with a workflow cache on the time-skipping test server (docs/simulation.md "A
 * restart with the cache on").
 *
 * A worker with a cache asks the server to send each of its workflows' next tasks to its own sticky
 * queue (`<identity>-<uuid>`, sdk-core `sticky_q_name_for_worker`). When that worker stops, Temporal's
 * server moves such a task back to the workflow's own queue after the sticky schedule-to-start
 * timeout; the test server has no such timeout (and answers ResetStickyTaskQueue UNIMPLEMENTED), so
 * the task would wait on the dead queue for good, and time, which the test server skips only when no
 * task is under way, would stop with it. So the engine ran without a cache whenever a plan restarted
 * the worker, which made every workflow task replay its whole history (and met sdk-rust#1482).
 *
 * The rescuer does what the real server's timeout does: it takes each task from a stopped worker's
 * sticky queue (PollWorkflowTaskQueue on that name) and fails it with RESET_STICKY_TASK_QUEUE. The
 * test server then forgets the run's stickiness and schedules the task again on the workflow's own
 * queue (TestWorkflowMutableStateImpl `failWorkflowTask`), where the new worker takes it and replays
 * the history from the start, as a worker that lost its cache does. The history shows a workflow
 * task failed, as a real server's shows one timed out.
 *
 * Each worker the engine starts has an identity of its own, so a sticky queue name tells which worker
 * it belonged to. The names are read on the way to the server (stickyQueueWatch, a relay the worker
 * connects through): the worker's own polls of its sticky queues name them.
 */

const { TaskQueueKind } = temporal.api.enums.v1;
const RESET_STICKY = temporal.api.enums.v1.WorkflowTaskFailedCause.WORKFLOW_TASK_FAILED_CAUSE_RESET_STICKY_TASK_QUEUE;
const IDENTITY = 'simulation-sticky-rescuer';
const WORKFLOW_SERVICE = 'temporal.api.workflowservice.v1.WorkflowService';

export interface StickyRescuer {
  /** A worker of this identity stopped: its sticky queues are dead from now on. */
  stopped(identity: string): void;
  /** A worker's sticky queue (its name seen on the wire); watched once its worker stopped. */
  seen(queue: string): void;
  /** Tasks taken off dead sticky queues so far. */
  rescued(): number;
  /** Stops every watch (the engine's close). */
  close(): Promise<void>;
}

/**
 * A gRPC relay between the worker and the test server that reads the sticky queue each
 * PollWorkflowTaskQueue names and tells `onQueue`. The histories do not name those queues (the test
 * server records a task scheduled on a sticky queue under the workflow's own queue), and sdk-core
 * sends its requests gzip-compressed, so the relay is a gRPC server of its own: every WorkflowService
 * method, passed through byte for byte with its metadata and deadline. Answers its address.
 */
export async function stickyQueueWatch(upstream: string, onQueue: (queue: string) => void): Promise<{ address: string; close(): Promise<void> }> {
  const service = protoRoot.lookupService(WORKFLOW_SERVICE);
  const pollRequest = temporal.api.workflowservice.v1.PollWorkflowTaskQueueRequest;
  const bytes = (b: Buffer) => b;
  const client = new grpc.Client(upstream, grpc.credentials.createInsecure());
  const server = new grpc.Server();
  for (const method of Object.keys(service.methods)) {
    const path = `/${WORKFLOW_SERVICE}/${method}`;
    const handler: grpc.handleUnaryCall<Buffer, Buffer> = (call, callback) => {
      if (method === 'PollWorkflowTaskQueue') {
        const queue = pollRequest.decode(call.request).taskQueue;
        if (queue?.kind === TaskQueueKind.TASK_QUEUE_KIND_STICKY && queue.name) onQueue(queue.name);
      }
      client.makeUnaryRequest(path, bytes, bytes, call.request, call.metadata, { deadline: call.getDeadline() }, (error, answer) => callback(error, answer));
    };
    server.register(path, handler, bytes, bytes, 'unary');
  }
  const port = await new Promise<number>((resolve, reject) => server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (error, bound) => (error ? reject(error) : resolve(bound))));
  return {
    address: `127.0.0.1:${port}`,
    close: async () => {
      server.forceShutdown();
      client.close();
    },
  };
}

export function stickyRescuer(connection: Connection, namespace: string, onRescue?: (queue: string, workflowId: string) => void): StickyRescuer {
  const dead: string[] = [];
  const known = new Set<string>();
  const watched = new Map<string, Promise<void>>();
  const aborting = new AbortController();
  let count = 0;

  async function watch(queue: string): Promise<void> {
    const service = connection.workflowService;
    while (!aborting.signal.aborted) {
      try {
        const task = await connection.withAbortSignal(aborting.signal, () =>
          service.pollWorkflowTaskQueue({ namespace, identity: IDENTITY, taskQueue: { name: queue, kind: TaskQueueKind.TASK_QUEUE_KIND_STICKY } }),
        );
        if (!task.taskToken || task.taskToken.length === 0) continue; // the long poll's empty answer
        await connection.withAbortSignal(aborting.signal, () =>
          service.respondWorkflowTaskFailed({ namespace, identity: IDENTITY, taskToken: task.taskToken, cause: RESET_STICKY }),
        );
        count += 1;
        onRescue?.(queue, task.workflowExecution?.workflowId ?? '?');
      } catch {
        if (aborting.signal.aborted) return;
        // A run that closed meanwhile answers NOT_FOUND; anything else is retried after a breath.
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    }
  }

  const rescuer: StickyRescuer = {
    stopped(identity) {
      dead.push(`${identity}-`);
      for (const queue of known) rescuer.seen(queue);
    },
    seen(queue) {
      known.add(queue);
      if (watched.has(queue) || !dead.some((prefix) => queue.startsWith(prefix))) return;
      watched.set(queue, watch(queue));
    },
    rescued: () => count,
    async close() {
      aborting.abort();
      await Promise.allSettled(watched.values());
    },
  };
  return rescuer;
}

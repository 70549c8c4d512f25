/**
 * Records the webhookFifoWorkflow histories that test/replay/webhook-fifo-replay.test.ts replays
 * against the current workflow code, as test/replay/histories/webhookFifoWorkflow/<scenario>.json, on
 * the time-skipping test server with the in-memory queue and receiver of
 * test/workflows/support/webhook-fifo-env.ts.
 *
 *   npx tsx scripts/record-webhook-fifo-histories.ts [scenario ...]
 *
 * When to run it: see test/replay/histories/README.md (to add a history, never to make a failing
 * replay pass).
 */
import path from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import type { FifoNext, FifoWorkflowInput } from '../src/domain/webhook-fifo';
import { failed, startFifoEnv, succeeded, type FifoTestEnv } from '../test/workflows/support/webhook-fifo-env';
import { recordScenarios, runRecorder, type History } from './support/record-histories';

const OUT_DIR = path.resolve(__dirname, '../test/replay/histories/webhookFifoWorkflow');

type Script = Parameters<FifoTestEnv['fifo']['add']>[1];

interface Scenario {
  order?: FifoNext['order'];
  /** The queue before the run: each event's sequence and its receiver's answers. */
  queue: Array<[number, Script]>;
  input?: Partial<FifoWorkflowInput>;
  /** What happens while the run is under way (real time, before its result lets time skip). */
  meanwhile?: (h: FifoTestEnv, handle: WorkflowHandle) => Promise<void>;
}

async function run(h: FifoTestEnv, scenario: string, { order = 'fifo', queue, input: overrides = {}, meanwhile }: Scenario): Promise<History> {
  h.fifo.reset(order);
  for (const [sequence, script] of queue) h.fifo.add(sequence, script);
  const input = h.input({ endpointId: `we_recorded${scenario.replace(/[^A-Za-z]/g, '').padEnd(16, 'x').slice(0, 16)}`, ...overrides });
  const handle = await h.start(input);
  await meanwhile?.(h, handle);
  await h.result(input).catch(() => undefined);
  // The first run: where a long queue continues as new.
  return h.env.client.workflow.getHandle(handle.workflowId, handle.firstExecutionRunId).fetchHistory();
}

const SCENARIOS: Record<string, (h: FifoTestEnv) => Promise<History>> = {
  // In order, batches of 2: the head fails twice (a 503, then a 500) and succeeds on its third attempt; idle, then done.
  'ordered-retry': (h) =>
    run(h, 'ordered-retry', { queue: [[1, [failed(503), failed(500), succeeded()]], [2, [succeeded()]], [3, [succeeded()]]], input: { retryScheduleMs: [5_000, 60_000], limits: { batch: 2, idleMs: 30_000 } } }),
  // The head fails; the merchant skips it during its hour's retry wait: the next one is sent at once.
  'skipped-during-wait': (h) =>
    run(h, 'skipped-during-wait', {
      queue: [[1, failed(500)], [2, [succeeded()]]],
      input: { retryScheduleMs: [3_600_000], limits: { idleMs: 1_000 } },
      meanwhile: async (h, handle) => {
        await h.retryWaitOf(handle, 1);
        await h.skip(handle, 1);
      },
    }),
  // The head fails; a later event of the batch is skipped during its wait: the head retried on time, the skipped one never sent.
  'skipped-behind': (h) =>
    run(h, 'skipped-behind', {
      queue: [[1, [failed(500), succeeded()]], [2, []], [3, [succeeded()]]],
      input: { retryScheduleMs: [3_600_000], limits: { idleMs: 1_000 } },
      meanwhile: async (h, handle) => {
        await h.retryWaitOf(handle, 1);
        await h.skip(handle, 2);
      },
    }),
  // One sent, idle; a wake-up brings two more; idle again until idleMs, then done.
  'idle-then-woken': (h) =>
    run(h, 'idle-then-woken', {
      queue: [[1, [succeeded()]]],
      input: { limits: { idleMs: 600_000 } },
      meanwhile: async (h, handle) => {
        await h.idleAfter(handle, 2);
        h.fifo.add(2, [succeeded()]);
        h.fifo.add(3, [succeeded()]);
        await h.wake(handle);
      },
    }),
  // A long queue's first run: batches of 2, continued as new after 3 deliveries (at the end of the second batch).
  continued: (h) => run(h, 'continued', { queue: [1, 2, 3, 4, 5].map((s): [number, Script] => [s, [succeeded()]]), input: { limits: { batch: 2, perRun: 3, idleMs: 1_000 } } }),
  // The endpoint is gone: what still waits is sent, then the run ends.
  'not-fifo': (h) => run(h, 'not-fifo', { order: 'deleted', queue: [[1, [succeeded()]]] }),
  // Sent in turn (FIFO_SENDS_IN_TURN_PATCH): one execution for the read's three, held by the head's 503; its retry alone, then one execution for the two behind it.
  'sent-in-turn': (h) => run(h, 'sent-in-turn', { queue: [[1, [failed(503), succeeded()]], [2, [succeeded()]], [3, [succeeded()]]], input: { retryScheduleMs: [5_000], limits: { batch: 3, idleMs: 1_000 } } }),
  // Malformed input: refused at once.
  refused: (h) => run(h, 'refused', { queue: [[1, [succeeded()]]], input: { limits: { perRun: 0 } } }),
};

runRecorder(() => recordScenarios({ outDir: OUT_DIR, scenarios: SCENARIOS, startEnv: startFifoEnv }));

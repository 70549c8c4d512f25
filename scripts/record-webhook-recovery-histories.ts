/**
 * Records the webhookRecoveryWorkflow histories that test/replay/webhook-recovery-replay.test.ts
 * replays against the current workflow code, as test/replay/histories/webhookRecoveryWorkflow/<scenario>.json,
 * on the time-skipping test server with the in-memory page step of test/workflows/support/webhook-recovery-env.ts.
 *
 *   npx tsx scripts/record-webhook-recovery-histories.ts [scenario ...]
 *
 * When to run it: see test/replay/histories/README.md (to add a history, never to make a failing
 * replay pass).
 */
import path from 'node:path';
import type { WebhookRecoveryInput } from '../src/domain/webhook-recovery';
import { startRecoveryEnv, type RecoveryTestEnv } from '../test/workflows/support/webhook-recovery-env';
import { recordScenarios, runRecorder, type History } from './support/record-histories';

const OUT_DIR = path.resolve(__dirname, '../test/replay/histories/webhookRecoveryWorkflow');

async function run(h: RecoveryTestEnv, scenario: string, events: number, candidates: number[], overrides: Partial<WebhookRecoveryInput> = {}, failures = 0): Promise<History> {
  h.recovery.reset(events, candidates);
  h.recovery.failures = failures;
  const input = h.input({ recoveryId: `whr_recorded${scenario.replace(/[^A-Za-z]/g, '').padEnd(16, 'x').slice(0, 16)}`, ...overrides });
  const handle = await h.start(input, input.recoveryId);
  await h.env.client.workflow.getHandle(input.recoveryId).result().catch(() => undefined);
  // The first run: where a long recovery continues as new.
  return h.env.client.workflow.getHandle(input.recoveryId, handle.firstExecutionRunId).fetchHistory();
}

const SCENARIOS: Record<string, (h: RecoveryTestEnv) => Promise<History>> = {
  // A long recovery: pages of 4, a page repeated after its commit, continued as new after 3 pages.
  paged: (h) => run(h, 'paged', 40, [2, 5, 8, 11, 14, 17, 20, 23, 26, 29, 32, 35, 38], { limits: { pageSize: 4, pagesPerRun: 3 } }, 1),
  // A continued run: cursor and counts carried in, the rest walked to the end.
  continued: (h) => run(h, 'continued', 40, [32, 35, 38], { limits: { pageSize: 4, pagesPerRun: 3 }, after: 29, pages: 3, queued: 10, continuations: 1 }),
  // Nothing to resend: one page.
  nothing: (h) => run(h, 'nothing', 10, []),
  // Malformed input: refused at once.
  refused: (h) => run(h, 'refused', 10, [1], { baseQueue: '' }),
};

runRecorder(() => recordScenarios({ outDir: OUT_DIR, scenarios: SCENARIOS, startEnv: startRecoveryEnv }));

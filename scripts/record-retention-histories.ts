/**
 * Records the retentionWorkflow histories that test/replay/retention-replay.test.ts replays against
 * the current workflow code, as test/replay/histories/retentionWorkflow/<scenario>.json, on the
 * time-skipping test server with the in-memory activities of test/workflows/support/retention-env.ts.
 *
 *   npx tsx scripts/record-retention-histories.ts [scenario ...]
 *
 * When to run it: see test/replay/histories/README.md (to add a history, never to make a failing
 * replay pass).
 */
import path from 'node:path';
import type { RetentionInput, RetentionKind } from '../src/domain/retention';
import { startRetentionEnv, TEST_PLAN, type RetentionTestEnv } from '../test/workflows/support/retention-env';
import { recordScenarios, runRecorder, type History } from './support/record-histories';

const OUT_DIR = path.resolve(__dirname, '../test/replay/histories/retentionWorkflow');

async function run(h: RetentionTestEnv, scenario: string, left: Partial<Record<RetentionKind, number>>, input: RetentionInput = {}, failures = 0): Promise<History> {
  h.rows.reset();
  h.rows.left = { ...h.rows.left, ...left };
  h.rows.failures = failures;
  const handle = await h.start(input, `retention-recorded-${scenario}`);
  await handle.result().catch(() => undefined);
  return handle.fetchHistory();
}

const SCENARIOS: Record<string, (h: RetentionTestEnv) => Promise<History>> = {
  // As the Schedule starts it: every kind, full batches with a pause timer between them, a batch retried once.
  hourly: (h) => run(h, 'hourly', { webhook_deliveries: 7, idempotency_keys: 3, rate_limits: 1, notifications: 2 }, {}, 1),
  // Nothing past any window: one batch per kind.
  nothing: (h) => run(h, 'nothing', {}),
  // A continued run: the plan and progress carried in (the run that continued as new is not recorded).
  continued: (h) => run(h, 'continued', { idempotency_keys: 4 }, { plan: TEST_PLAN, kindIndex: 1, totals: { webhook_deliveries: 9, webhook_attempts: 18, idempotency_keys: 0, rate_limits: 0, notifications: 0, notification_attempts: 0 }, batches: 500, continuations: 1 }),
  // Malformed input: refused at once.
  refused: (h) => run(h, 'refused', {}, { kindIndex: 9 }),
};

runRecorder(() => recordScenarios({ outDir: OUT_DIR, scenarios: SCENARIOS, startEnv: startRetentionEnv }));

/**
 * Records the settlementRunWorkflow histories that test/replay/settlement-run-replay.test.ts replays
 * against the current workflow code, as test/replay/histories/settlementRunWorkflow/<scenario>.json, on
 * the time-skipping test server with the in-memory page step and batch double of
 * test/workflows/support/settlement-run-env.ts. Each run has the workflow id
 * `settlement-run-recorded-<scenario>`, also given as `runId` in its input, so the replay finds the id
 * the run ran under in the history itself.
 *
 *   npx tsx scripts/record-settlement-run-histories.ts [scenario ...]
 *
 * When to run it: see test/replay/histories/README.md (to add a history, never to make a failing
 * replay pass).
 */
import path from 'node:path';
import type { SettlementRunInput } from '../src/domain/settlement-run';
import { settlementRunStartOptions } from '../src/temporal/settlement-run-start';
import { recordedRunId, startSettlementRunTestEnv, type FakeBalance, type SettlementRunTestEnv } from '../test/workflows/support/settlement-run-env';
import { recordScenarios, runRecorder, type History } from './support/record-histories';

const OUT_DIR = path.resolve(__dirname, '../test/replay/histories/settlementRunWorkflow');

const merchant = (n: number) => `mer_recorded${String(n).padStart(16, '0')}`;
const balance = (n: number, environment: FakeBalance['environment'], hasAccount = true): FakeBalance => ({ merchantId: merchant(n), environment, currency: 'GHS', hasAccount });

async function run(h: SettlementRunTestEnv, scenario: string, balances: FakeBalance[], input: SettlementRunInput, which: 'first' | 'last' = 'last'): Promise<History> {
  h.store.balances = [];
  h.store.add(...balances);
  const workflowId = recordedRunId(scenario);
  const handle = await h.env.client.workflow.start('settlementRunWorkflow', { ...settlementRunStartOptions(h.taskQueue, input), args: [{ ...input, runId: workflowId }], workflowId });
  await handle.result().catch(() => undefined);
  return h.env.client.workflow.getHandle(handle.workflowId, which === 'first' ? handle.firstExecutionRunId : undefined).fetchHistory();
}

const SCENARIOS: Record<string, (h: SettlementRunTestEnv) => Promise<History>> = {
  // Two pages (2 + 1 balances), sandbox and live batches, one merchant skipped.
  'pages-and-skips': (h) => run(h, 'pages-and-skips', [balance(1, 'sandbox'), balance(1, 'live'), balance(2, 'sandbox', false)], { limits: { pageSize: 2 } }),
  // The first run of a chain: one page, then continue-as-new with the key and the totals.
  'continue-as-new': (h) => run(h, 'continue-as-new', [balance(1, 'sandbox'), balance(2, 'sandbox'), balance(3, 'sandbox')], { environment: 'sandbox', limits: { pageSize: 2, pagesPerRun: 1 } }, 'first'),
  // settlements run --merchant --outcome failed: sandbox only, the outcome on the batch.
  'sandbox-outcome-failed': (h) => run(h, 'sandbox-outcome-failed', [balance(1, 'sandbox')], { merchantId: merchant(1), environment: 'sandbox', outcome: 'failed' }),
  // A malformed input: refused at once, nothing read.
  refused: (h) => run(h, 'refused', [], { environment: 'live', outcome: 'failed' }),
};

runRecorder(() => recordScenarios({ outDir: OUT_DIR, scenarios: SCENARIOS, startEnv: startSettlementRunTestEnv }));

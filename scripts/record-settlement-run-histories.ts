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
import fs from 'node:fs';
import path from 'node:path';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import type { temporal } from '@temporalio/proto';
import type { SettlementRunInput } from '../src/domain/settlement-run';
import { settlementRunStartOptions } from '../src/temporal/settlement-run-start';
import { recordedRunId, startSettlementRunTestEnv, type FakeBalance, type SettlementRunTestEnv } from '../test/workflows/support/settlement-run-env';

type History = temporal.api.history.v1.IHistory;
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

async function main(): Promise<void> {
  const wanted = process.argv.slice(2);
  const unknown = wanted.filter((name) => !(name in SCENARIOS));
  if (unknown.length > 0) throw new Error(`unknown scenario(s) ${unknown.join(', ')}; known: ${Object.keys(SCENARIOS).join(', ')}`);
  const names = wanted.length > 0 ? wanted : Object.keys(SCENARIOS);
  fs.mkdirSync(OUT_DIR, { recursive: true });
  const h = await startSettlementRunTestEnv();
  try {
    for (const name of names) {
      const history = await SCENARIOS[name](h);
      const file = path.join(OUT_DIR, `${name}.json`);
      fs.writeFileSync(file, JSON.stringify(JSON.parse(historyToJSON(history)), null, 2) + '\n');
      console.log(`wrote ${path.relative(process.cwd(), file)} (${history.events?.length ?? 0} events)`);
    }
  } finally {
    await h.close();
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});

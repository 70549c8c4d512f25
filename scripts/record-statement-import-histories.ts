/**
 * Records the statementImportWorkflow histories that test/replay/statement-import-replay.test.ts
 * replays against the current workflow code, as test/replay/histories/statementImportWorkflow/<scenario>.json,
 * on the time-skipping test server with the in-memory import activity of
 * test/workflows/support/statement-import-env.ts.
 *
 *   npx tsx scripts/record-statement-import-histories.ts [scenario ...]
 *
 * When to run it: see test/replay/histories/README.md (to add a history, never to make a failing
 * replay pass).
 */
import path from 'node:path';
import type { StatementImportInput } from '../src/domain/statement-import';
import { startStatementImportEnv, type StatementImportTestEnv } from '../test/workflows/support/statement-import-env';
import { recordScenarios, runRecorder, type History } from './support/record-histories';

const OUT_DIR = path.resolve(__dirname, '../test/replay/histories/statementImportWorkflow');

async function run(h: StatementImportTestEnv, scenario: string, input: StatementImportInput, setup: (h: StatementImportTestEnv) => void = () => {}): Promise<History> {
  h.imports.failures = 0;
  h.imports.noPartner = false;
  setup(h);
  const handle = await h.start(input, `statement-import-recorded-${scenario}`);
  await handle.result().catch(() => undefined);
  return handle.fetchHistory();
}

const SCENARIOS: Record<string, (h: StatementImportTestEnv) => Promise<History>> = {
  // As the Schedule starts it: yesterday, both products; the first fetch times out and is retried.
  daily: (h) => run(h, 'daily', {}, (env) => (env.imports.failures = 1)),
  // No partner configured: fails at once.
  'no-partner': (h) => run(h, 'no-partner', { date: '2026-11-20' }, (env) => (env.imports.noPartner = true)),
};

runRecorder(() => recordScenarios({ outDir: OUT_DIR, scenarios: SCENARIOS, startEnv: startStatementImportEnv }));

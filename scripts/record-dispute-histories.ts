/**
 * Records the disputeWorkflow histories that test/replay/dispute-replay.test.ts replays against the
 * current workflow code, as test/replay/histories/disputeWorkflow/<scenario>.json, on the
 * time-skipping test server with the in-memory activities of test/workflows/support/dispute-env.ts.
 * (A directory of their own: a dispute run refuses to run under a workflow id other than its dispute
 * id, so the replay gives each history the dispute id of its input, not its file name.)
 *
 *   npx tsx scripts/record-dispute-histories.ts [scenario ...]
 *
 * When to run it: see test/replay/histories/README.md (to add a history, never to make a failing
 * replay pass).
 */
import path from 'node:path';
import { submitEvidenceUpdate } from '../workflows/dispute-messages';
import { startDisputeTestEnv, type DisputeOptions, type DisputeTestEnv } from '../test/workflows/support/dispute-env';
import { waitFor } from '../test/workflows/support/wait-for';
import { recordScenarios, runRecorder, type History } from './support/record-histories';

const OUT_DIR = path.resolve(__dirname, '../test/replay/histories/disputeWorkflow');

/** Recorded evidence texts: no customer data, only the sandbox switch where a scenario needs it. */
const WINNING = 'recorded scenario: delivery receipt';
const LOSING = 'recorded scenario: losing_evidence';

async function run(h: DisputeTestEnv, options: DisputeOptions = {}): Promise<History> {
  const handle = await h.start(await h.dispute(options));
  await handle.result().catch(() => undefined);
  return handle.fetchHistory();
}

/** Waits until the run waits on its evidence deadline, then sends `text` (and, optionally, fires the decision). */
async function withEvidence(h: DisputeTestEnv, text: string, advanceDecision = false): Promise<History> {
  const handle = await h.start(await h.dispute());
  await waitFor(async () => (await handle.query('nextTimer')) !== null);
  await handle.executeUpdate(submitEvidenceUpdate, { args: [{ text }] });
  if (advanceDecision) {
    await waitFor(async () => ((await handle.query('nextTimer')) as { summary: string } | null)?.summary.startsWith('sandbox review decision') === true);
    await handle.signal('advance');
  }
  await handle.result();
  return handle.fetchHistory();
}

const SCENARIOS: Record<string, (h: DisputeTestEnv) => Promise<History>> = {
  won: (h) => withEvidence(h, WINNING),
  lost: (h) => withEvidence(h, LOSING),
  'lost-by-deadline': (h) => run(h),
  'decision-advanced': (h) => withEvidence(h, WINNING, true),
  'deadline-advanced': async (h) => {
    const handle = await h.start(await h.dispute());
    await waitFor(async () => (await handle.query('nextTimer')) !== null);
    await handle.signal('advance');
    await handle.result();
    return handle.fetchHistory();
  },
  // A second submission refused by the validator (no history event), then the first one decides.
  'evidence-twice': async (h) => {
    const handle = await h.start(await h.dispute());
    await waitFor(async () => (await handle.query('nextTimer')) !== null);
    await handle.executeUpdate(submitEvidenceUpdate, { args: [{ text: WINNING }] });
    await handle.executeUpdate(submitEvidenceUpdate, { args: [{ text: LOSING }] }).catch(() => undefined);
    await handle.result();
    return handle.fetchHistory();
  },
  'not-found': async (h) => {
    const handle = await h.start(await h.dispute(), { write: false });
    await handle.result().catch(() => undefined);
    return handle.fetchHistory();
  },
  'already-resolved': (h) => run(h, { status: 'won' }),
};

runRecorder(() => recordScenarios({ outDir: OUT_DIR, scenarios: SCENARIOS, startEnv: startDisputeTestEnv }));

/**
 * Records the refundWorkflow histories that test/replay/refund-replay.test.ts replays against the
 * current workflow code, as test/replay/histories/refundWorkflow/<scenario>.json, on the
 * time-skipping test server with the in-memory activities of test/workflows/support/refund-env.ts.
 * (A directory of their own, as for payouts: a refund run refuses to run under a workflow id other
 * than its refund id, so the replay gives each history the refund id of its input, not its file name.)
 *
 *   npx tsx scripts/record-refund-histories.ts [scenario ...]
 *
 * When to run it: see test/replay/histories/README.md (to add a history, never to make a failing
 * replay pass).
 */
import path from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import { SA } from '../src/domain/search-attributes';
import { retryStepUpdate } from '../workflows/messages';
import { startRefundTestEnv, type RefundOptions, type RefundTestEnv } from '../test/workflows/support/refund-env';
import { waitFor } from '../test/workflows/support/wait-for';
import { recordScenarios, runRecorder, type History } from './support/record-histories';

const OUT_DIR = path.resolve(__dirname, '../test/replay/histories/refundWorkflow');

async function run(h: RefundTestEnv, options: RefundOptions): Promise<History> {
  const handle = await h.start(await h.refund(options));
  await handle.result().catch(() => undefined);
  return handle.fetchHistory();
}

/** The sandbox `advance` signal wins the race with the refund's timer (POST /v1/sandbox/advance/{id}). */
async function advanced(h: RefundTestEnv, options: RefundOptions): Promise<History> {
  const handle = await h.start(await h.refund(options));
  await waitFor(async () => (await handle.query('nextTimer')) !== null);
  await handle.signal('advance');
  await handle.result();
  return handle.fetchHistory();
}

const SCENARIOS: Record<string, (h: RefundTestEnv) => Promise<History>> = {
  // Success after the three-second sandbox completion timer.
  succeed: (h) => run(h, {}),
  // A failure class from the refund's own metadata.sandbox_outcome: failed at once, no timer.
  'immediate-failure': (h) => run(h, { sandboxOutcome: 'declined' }),
  // `pending`: the ten-minute timer fires (time skipped), then failed with timeout.
  'pending-timeout': (h) => run(h, { sandboxOutcome: 'pending' }),
  // `pending`, then advance: the signal wins, the timer is cancelled, failed with timeout.
  'pending-advanced': (h) => advanced(h, { sandboxOutcome: 'pending' }),
  // Live (no live rail): failed at once with partner_unavailable.
  'live-unavailable': (h) => run(h, { environment: 'live' }),
  // Never written by the API: RefundNotFoundError, nothing written.
  'not-found': async (h) => {
    const handle = await h.start(await h.refund(), { write: false });
    await handle.result().catch(() => undefined);
    return handle.fetchHistory();
  },
  // Issue 31 (patch 'refund-settlement-handlers-finish'): the last step gives up, an operator's
  // retryStep finishes it, and the run waits for the update's audit row before it closes.
  'retry-last-step': async (h) => {
    const record = await h.refund();
    h.store.breakTransition(record.id, () => ApplicationFailure.create({ type: 'DeterministicDatabaseError', message: 'SQLSTATE 22P05: recorded scenario', nonRetryable: true }));
    const handle = await h.start(record);
    await waitFor(async () => (await h.searchAttributes(record.id)).get(SA.NeedsAttention) === true);
    h.store.heal(record.id);
    await handle.executeUpdate(retryStepUpdate, { args: [{ reason: 'recorded scenario', operator: 'cli:recorder' }] });
    await handle.result();
    return handle.fetchHistory();
  },
};

runRecorder(() => recordScenarios({ outDir: OUT_DIR, scenarios: SCENARIOS, startEnv: startRefundTestEnv }));

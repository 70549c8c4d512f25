/**
 * Records the paymentReviewWorkflow histories that test/replay/payment-review-replay.test.ts replays
 * against the current workflow code, as test/replay/histories/paymentReviewWorkflow/<scenario>.json,
 * on the time-skipping test server with the in-memory steps of test/workflows/support/payment-review-env.ts.
 *
 *   npx tsx scripts/record-payment-review-histories.ts [scenario ...]
 *
 * When to run it: see test/replay/histories/README.md (to add a history, never to make a failing
 * replay pass).
 */
import path from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import { closeReviewUpdate, paymentReviewQuery, reviewFlagSignal, settleLateAnswerUpdate } from '../workflows/payment-review-messages';
import { startPaymentReviewEnv, type PaymentReviewTestEnv } from '../test/workflows/support/payment-review-env';
import { recordScenarios, runRecorder, type History } from './support/record-histories';

const OUT_DIR = path.resolve(__dirname, '../test/replay/histories/paymentReviewWorkflow');

async function phase(handle: WorkflowHandle, wanted: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if ((await handle.query(paymentReviewQuery).catch(() => null))?.phase === wanted) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`the review never reached ${wanted}`);
}

const SCENARIOS: Record<string, (h: PaymentReviewTestEnv) => Promise<History>> = {
  // PENDING, then SUCCESSFUL a minute later for a charge we expired: late money, credited.
  'late-credit': async (h) => {
    h.rail.partner({ kind: 'accepted' }, [{ status: 'pending' }, { status: 'succeeded', financialTransactionId: 'ft-1' }]);
    const { handle } = await h.review('expired', 'late_watch', 'txn_recorded_credit');
    await h.workers.env.sleep('2 minutes');
    await phase(handle, 'late_money');
    await handle.executeUpdate(settleLateAnswerUpdate, { args: [{ action: 'credit', operator: 'cli:ama', reason: 'customer debited' }] });
    await handle.result();
    return handle.fetchHistory();
  },
  // SUCCESSFUL for a charge we failed, returned to the payer: the transfer followed to SUCCESSFUL.
  'late-return': async (h) => {
    h.rail.partner({ kind: 'accepted' }, [{ status: 'succeeded', financialTransactionId: 'ft-2' }]);
    const { handle } = await h.review('failed', 'callback', 'txn_recorded_return');
    await phase(handle, 'late_money');
    await handle.executeUpdate(settleLateAnswerUpdate, { args: [{ action: 'return', operator: 'cli:kojo', reason: 'merchant declined it' }] });
    await handle.result();
    return handle.fetchHistory();
  },
  // The partner agrees (FAILED for an expired charge): ends cleared.
  agrees: async (h) => {
    h.rail.partner({ kind: 'accepted' }, [{ status: 'failed', reason: 'APPROVAL_REJECTED', failureClass: 'declined' }]);
    const { handle } = await h.review('expired', 'late_watch', 'txn_recorded_agrees');
    await handle.result();
    return handle.fetchHistory();
  },
  // Flagged by reconciliation, the partner agrees; open until the break is resolved.
  'reconciliation-resolved': async (h) => {
    h.rail.partner({ kind: 'accepted' }, [{ status: 'failed', reason: 'APPROVAL_REJECTED', failureClass: 'declined' }]);
    const { handle } = await h.review('failed', 'reconciliation', 'txn_recorded_recon');
    await phase(handle, 'agreed');
    await handle.signal(reviewFlagSignal, { source: 'reconciliation', reason: 'break resolved', resolved: true });
    await handle.result();
    return handle.fetchHistory();
  },
  // The partner says FAILED for a charge we recorded as succeeded: closed by an operator.
  'contradiction-closed': async (h) => {
    h.rail.partner({ kind: 'accepted' }, [{ status: 'failed', reason: 'INTERNAL_PROCESSING_ERROR', failureClass: 'partner_unavailable' }]);
    const { handle } = await h.review('succeeded', 'callback', 'txn_recorded_contradiction');
    await phase(handle, 'agreed');
    await handle.executeUpdate(closeReviewUpdate, { args: [{ operator: 'cli:esi', reason: 'partner confirmed by phone' }] });
    await handle.result();
    return handle.fetchHistory();
  },
};

runRecorder(() => recordScenarios({ outDir: OUT_DIR, scenarios: SCENARIOS, startEnv: startPaymentReviewEnv }));

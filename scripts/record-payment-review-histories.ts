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
import { paymentReviewWorkflowId, PAYMENT_REVIEW_WORKFLOW_TYPE, type PaymentReviewStart } from '../src/domain/payment-review';
import { reviewSearchAttributePairs } from '../src/domain/payment-review-search-attributes';
import type { PaymentReviewCarry } from '../src/domain/review-wait';
import { taskQueueFor } from '../src/temporal/task-queues';

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
  // Issue 43 (review-wait-continues-as-new): a run continued as new while asking the partner (its
  // input's resume at poll 4), which then finds late money, credited.
  'resumed-polling': async (h) => {
    h.rail.partner({ kind: 'accepted' }, [{ status: 'succeeded', financialTransactionId: 'ft-resumed' }]);
    h.store.status.set('txn_recorded_resumed_polling', 'expired');
    const handle = await startResumed(h, 'txn_recorded_resumed_polling', {
      at: 'polling',
      round: 4,
      startedMs: Date.parse('2026-01-01T00:00:00Z'),
      reasons: [{ source: 'late_watch', reason: 'the charge expired while the partner still said PENDING' }],
      resolved: [],
      runs: 1,
    });
    await phase(handle, 'late_money');
    await handle.executeUpdate(settleLateAnswerUpdate, { args: [{ action: 'credit', operator: 'cli:ama', reason: 'customer debited' }] });
    await handle.result();
    return handle.fetchHistory();
  },
  // Issue 43: a return watch continued as new (resume at 'return'): asks the return's status, paid.
  'resumed-return': async (h) => {
    h.store.status.set('txn_recorded_resumed_return', 'failed');
    const handle = await startResumed(h, 'txn_recorded_resumed_return', {
      at: 'return',
      round: 6,
      startedMs: Date.parse('2026-01-01T00:00:00Z'),
      reasons: [{ source: 'callback', reason: 'a late SUCCESSFUL' }, { source: 'callback', reason: 'late money: the partner said SUCCESSFUL, we had ended it failed' }],
      resolved: [],
      partnerStatus: 'SUCCESSFUL',
      ourStatus: 'failed',
      returnNote: 'return transfer submitted to the partner',
      wake: false,
      runs: 2,
    });
    await handle.result();
    return handle.fetchHistory();
  },
};

/** A review started as a run continued as new starts (its input's `resume`). */
async function startResumed(h: PaymentReviewTestEnv, paymentId: string, resume: PaymentReviewCarry): Promise<WorkflowHandle> {
  const start: PaymentReviewStart = { paymentId, product: 'collection', merchantId: 'mer_review', environment: 'live', source: 'late_watch', reason: 'resumed', resume };
  return h.workers.env.client.workflow.start(PAYMENT_REVIEW_WORKFLOW_TYPE, {
    workflowId: paymentReviewWorkflowId(paymentId),
    taskQueue: taskQueueFor(h.workers.taskQueue, 'live'),
    args: [start],
    typedSearchAttributes: reviewSearchAttributePairs(start),
  });
}

runRecorder(() => recordScenarios({ outDir: OUT_DIR, scenarios: SCENARIOS, startEnv: startPaymentReviewEnv }));

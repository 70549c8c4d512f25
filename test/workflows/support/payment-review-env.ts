import type { WorkflowHandle } from '@temporalio/client';
import type { CompareLateRequest, LateVerdict, PaymentReviewActivities, SettleLateActivityRequest } from '../../../activities/payment-review';
import { paymentReviewWorkflowId, PAYMENT_REVIEW_WORKFLOW_TYPE, type PaymentReviewStart } from '../../../src/domain/payment-review';
import { reviewSearchAttributePairs } from '../../../src/domain/payment-review-search-attributes';
import { taskQueueFor } from '../../../src/temporal/task-queues';
import type { RailStatus } from '../../../src/rail/partner-rail';
import { FakeRail } from './fake-rail-activities';
import { startTimeSkippingWorkers, type TimeSkippingWorkers } from './time-skipping-workers';

/**
 * The payment review (workflows/payment-review.ts) on the time-skipping test server: the real
 * workflow bundle, the partner's status scripted (FakeRail), the database steps in memory
 * (FakeLateStore). Shared by test/workflows/payment-review.test.ts and
 * scripts/record-payment-review-histories.ts.
 */

/** Our records and the late money, in memory. */
export class FakeLateStore {
  readonly status = new Map<string, string>();
  readonly late = new Map<string, { settled: string | null }>();
  readonly settles: SettleLateActivityRequest[] = [];
  readonly returns: Array<{ paymentId: string; status: string }> = [];

  /** Open reconciliation breaks by payment (none unless a test sets some). */
  readonly openBreaks = new Map<string, number>();
  /** Return transfers submitted, by payment. */
  readonly returnSubmits: string[] = [];
  /** The partner's status of a return transfer (default: SUCCESSFUL at once). */
  returnStatus?: (paymentId: string) => Promise<RailStatus>;

  readonly activities: PaymentReviewActivities = {
    openReconciliationBreaks: async (paymentId) => this.openBreaks.get(paymentId) ?? 0,
    submitLateReturn: async (paymentId) => {
      this.returnSubmits.push(paymentId);
      return { kind: 'accepted' };
    },
    lateReturnStatus: async (paymentId) => (this.returnStatus ? this.returnStatus(paymentId) : { status: 'succeeded', financialTransactionId: 'ft-return' }),
    recordLateReturn: async ({ paymentId, status }) => {
      this.returns.push({ paymentId, status });
    },
    compareLateAnswer: async (request: CompareLateRequest): Promise<LateVerdict> => {
      const ours = this.status.get(request.paymentId) ?? 'missing';
      const ended = ours === 'expired' || ours === 'failed';
      if (request.status.status === 'succeeded' && (ended || this.late.has(request.paymentId))) {
        if (!this.late.has(request.paymentId)) this.late.set(request.paymentId, { settled: null });
        return { verdict: 'late_money', ourStatus: ours, kind: 'charge', settledAction: (this.late.get(request.paymentId)!.settled as 'credit' | null) ?? null };
      }
      if (request.status.status !== 'succeeded' && ours === 'succeeded') return { verdict: 'disagrees', ourStatus: ours, kind: 'charge', why: 'the partner says FAILED, but we recorded succeeded' };
      return { verdict: 'agrees', ourStatus: ours, kind: 'charge' };
    },
    settleLateAnswer: async (request) => {
      this.settles.push(request);
      const before = this.status.get(request.paymentId)!;
      if (request.action === 'credit') this.status.set(request.paymentId, 'succeeded');
      this.late.get(request.paymentId)!.settled = request.action;
      return { applied: true, before: { status: before, settled_action: null }, after: { status: this.status.get(request.paymentId)!, settled_action: request.action, return_status: null } };
    },
  };
}

export interface PaymentReviewTestEnv {
  workers: TimeSkippingWorkers;
  store: FakeLateStore;
  rail: FakeRail;
  /** Starts a review of a new charge (`txn_review<n>`, or `paymentId`) that we ended `ours`. */
  review(ours: string, source?: PaymentReviewStart['source'], paymentId?: string, environment?: PaymentReviewStart['environment']): Promise<{ id: string; handle: WorkflowHandle }>;
  close(): Promise<void>;
}

export async function startPaymentReviewEnv(): Promise<PaymentReviewTestEnv> {
  const store = new FakeLateStore();
  const rail = new FakeRail();
  const workers = await startTimeSkippingWorkers('review', { ...rail.activities, ...store.activities });
  let n = 0;
  return {
    workers,
    store,
    rail,
    async review(ours, source = 'late_watch', paymentId, environment = 'live') {
      const id = paymentId ?? `txn_review${++n}`;
      store.status.set(id, ours);
      const start: PaymentReviewStart = { paymentId: id, product: 'collection', merchantId: 'mer_review', environment, source, reason: 'the charge expired while the partner still said PENDING' };
      const handle = await workers.env.client.workflow.start(PAYMENT_REVIEW_WORKFLOW_TYPE, {
        workflowId: paymentReviewWorkflowId(id),
        taskQueue: taskQueueFor(workers.taskQueue, environment),
        args: [start],
        typedSearchAttributes: reviewSearchAttributePairs(start),
      });
      return { id, handle };
    },
    close: () => workers.close(),
  };
}

import { startTimeSkippingWorkers } from './time-skipping-workers';
import type { WorkflowHandle, WorkflowHandleWithFirstExecutionRunId } from '@temporalio/client';
import type { TypedSearchAttributes } from '@temporalio/common';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import type { Environment } from '../../../src/domain/environment';
import { computePayoutFee, type PayoutRecord, type PayoutStatus } from '../../../src/domain/payout';
import { payoutStartOptions } from '../../../src/temporal/payout-start';
import { newId, randomBase62 } from '../../../src/support/new-id';
import type { payoutWorkflow } from '../../../workflows/payout';
import { FakePayoutStore } from './fake-payout-activities';
import { FakeRail } from './fake-rail-activities';

export interface PayoutOptions {
  environment?: Environment;
  sandboxOutcome?: string | null;
  /** held_for_review when the API found it at or above the threshold (or the outcome asks for it). */
  status?: PayoutStatus;
  amount?: number;
  merchantId?: string;
}

/** A time-skipping test server with one worker running the real bundle, payout activities in memory (FakePayoutStore). */
export interface PayoutTestEnv {
  env: TestWorkflowEnvironment;
  store: FakePayoutStore;
  /** The partner rail's activities (default: no rail on the worker). */
  rail: FakeRail;
  taskQueue: string;
  /** A payout record as the API writes it, created "now" on the test server's clock. */
  payout(options?: PayoutOptions): Promise<PayoutRecord>;
  /** POST /v1/payouts as the API does it: the payout written (to the fake store), then its workflow started with `{ payoutId }`. */
  start(record: PayoutRecord, options?: { write?: boolean }): Promise<WorkflowHandleWithFirstExecutionRunId<typeof payoutWorkflow>>;
  handle(payoutId: string): WorkflowHandle<typeof payoutWorkflow>;
  searchAttributes(payoutId: string): Promise<TypedSearchAttributes>;
  close(): Promise<void>;
}

export async function startPayoutTestEnv(): Promise<PayoutTestEnv> {
  const store = new FakePayoutStore();
  const rail = new FakeRail();
  const { env, taskQueue, close } = await startTimeSkippingWorkers('payouts', { ...store.activities, ...rail.activities });
  const client = env.client.workflow;
  rail.clock = () => env.currentTimeMs();

  return {
    env,
    store,
    rail,
    taskQueue,
    async payout(options = {}) {
      const now = new Date(await env.currentTimeMs()).toISOString();
      const amount = options.amount ?? 20_000;
      const fee = computePayoutFee(amount, 'mobile_money');
      const outcome = options.sandboxOutcome ?? null;
      const held = options.status ?? (outcome === 'held_for_review' ? 'held_for_review' : 'pending');
      return {
        id: newId('payout'),
        merchantId: options.merchantId ?? 'mer_test',
        environment: options.environment ?? 'sandbox',
        status: held,
        amount,
        currency: 'GHS',
        channel: 'mobile_money',
        momoNetworkId: '3f9c2b1e-8a4d-4c6e-9b7a-1d2e3f4a5b01',
        bankCode: null,
        recipientMasked: '2332****567',
        recipientName: 'Kofi Boateng',
        yourReference: 'salary-1',
        reference: `ref_${randomBase62(10)}`,
        description: null,
        metadataJson: outcome ? JSON.stringify({ sandbox_outcome: outcome }) : '{}',
        feePlatform: fee.platform,
        feeTax: fee.tax,
        totalDebit: fee.totalDebit,
        failureClass: null,
        sandboxOutcome: outcome,
        requiresReview: held === 'held_for_review',
        reviewDecision: null,
        reviewReason: null,
        reviewDecidedBy: null,
        reviewDecidedAt: null,
        reversedAt: null,
        createdAt: now,
        updatedAt: now,
      };
    },
    async start(record, { write = true } = {}) {
      if (write) store.write(record);
      return client.start<typeof payoutWorkflow>('payoutWorkflow', payoutStartOptions(record, taskQueue));
    },
    handle(payoutId) {
      return client.getHandle<typeof payoutWorkflow>(payoutId);
    },
    async searchAttributes(payoutId) {
      return (await client.getHandle(payoutId).describe()).typedSearchAttributes;
    },
    close,
  };
}

import { startTimeSkippingWorkers } from './time-skipping-workers';
import type { WorkflowHandle } from '@temporalio/client';
import type { TypedSearchAttributes } from '@temporalio/common';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import type { RefundActivities } from '../../../activities/types';
import type { Environment } from '../../../src/domain/environment';
import { refundState, type RefundRecord, type RefundTransitionRequest } from '../../../src/domain/refund';
import { newId } from '../../../src/support/new-id';
import { refundStartOptions } from '../../../src/temporal/refund-start';
import type { refundWorkflow } from '../../../workflows/refund';
import { FakeRail } from './fake-rail-activities';

/** Refund activities in memory: records every call, applies transitions as refund-store.ts does (idempotent). */
export class FakeRefundStore {
  readonly refunds = new Map<string, RefundRecord>();
  readonly calls: { activity: keyof RefundActivities; refundId: string; request?: RefundTransitionRequest }[] = [];
  /** Charge id -> amount_refunded, as the success transition moves it. */
  readonly amountRefunded = new Map<string, number>();

  write(record: RefundRecord): void {
    this.refunds.set(record.id, { ...record });
  }

  /** Refunds whose transition fails on every call until `heal` (a database that refuses it). */
  private readonly broken = new Map<string, () => Error>();

  /** Makes every transition of this refund throw `error()`, until `heal`. */
  breakTransition(refundId: string, error: () => Error): this {
    this.broken.set(refundId, error);
    return this;
  }

  heal(refundId: string): this {
    this.broken.delete(refundId);
    return this;
  }

  transitionsOf(refundId: string): RefundTransitionRequest[] {
    return this.calls.filter((c) => c.refundId === refundId && c.activity === 'applyRefundTransition').map((c) => c.request!);
  }

  readonly activities: RefundActivities = {
    beginRefund: async (refundId) => {
      this.calls.push({ activity: 'beginRefund', refundId });
      const record = this.refunds.get(refundId);
      return record ? { refund: refundState(record), sandboxOutcome: record.sandboxOutcome } : null;
    },
    applyRefundTransition: async (request) => {
      this.calls.push({ activity: 'applyRefundTransition', refundId: request.refundId, request });
      const broken = this.broken.get(request.refundId);
      if (broken) throw broken();
      const before = this.refunds.get(request.refundId)!;
      if (before.status !== 'pending') return refundState(before);
      const after: RefundRecord = { ...before, status: request.to, failureClass: request.to === 'failed' ? request.failureClass : null, updatedAt: request.at };
      this.refunds.set(after.id, after);
      if (after.status === 'succeeded') this.amountRefunded.set(after.chargeId, (this.amountRefunded.get(after.chargeId) ?? 0) + after.amount);
      return refundState(after);
    },
  };
}

export interface RefundOptions {
  environment?: Environment;
  sandboxOutcome?: string | null;
  status?: RefundRecord['status'];
}

/** A time-skipping test server with one worker running the real bundle, refund activities in memory. */
export interface RefundTestEnv {
  env: TestWorkflowEnvironment;
  store: FakeRefundStore;
  /** The partner rail's activities (default: no rail on the worker); a live refund goes to it (issue 45). */
  rail: FakeRail;
  refund(options?: RefundOptions): Promise<RefundRecord>;
  /** POST /v1/refunds as the API does it: written (to the fake store), then started with `{ refundId }`. */
  start(record: RefundRecord, options?: { write?: boolean; workflowId?: string }): Promise<WorkflowHandle<typeof refundWorkflow>>;
  searchAttributes(refundId: string): Promise<TypedSearchAttributes>;
  close(): Promise<void>;
}

export async function startRefundTestEnv(): Promise<RefundTestEnv> {
  const store = new FakeRefundStore();
  const rail = new FakeRail();
  const { env, taskQueue, close } = await startTimeSkippingWorkers('refunds', { ...store.activities, ...rail.activities });
  rail.clock = () => env.currentTimeMs();
  const client = env.client.workflow;

  return {
    env,
    store,
    rail,
    async refund(options = {}) {
      const now = new Date(await env.currentTimeMs()).toISOString();
      const outcome = options.sandboxOutcome ?? null;
      return {
        id: newId('refund'),
        merchantId: 'mer_test',
        environment: options.environment ?? 'sandbox',
        chargeId: newId('charge'),
        status: options.status ?? 'pending',
        amount: 5_000,
        currency: 'GHS',
        reason: 'requested_by_customer',
        metadataJson: outcome ? JSON.stringify({ sandbox_outcome: outcome }) : '{}',
        failureClass: null,
        sandboxOutcome: outcome,
        createdAt: now,
        updatedAt: now,
      };
    },
    async start(record, { write = true, workflowId } = {}) {
      if (write) store.write(record);
      const options = refundStartOptions(record, taskQueue);
      return client.start<typeof refundWorkflow>('refundWorkflow', { ...options, workflowId: workflowId ?? options.workflowId });
    },
    async searchAttributes(refundId) {
      return (await client.getHandle(refundId).describe()).typedSearchAttributes;
    },
    close,
  };
}

import type { WorkflowHandle } from '@temporalio/client';
import { ApplicationFailure, type TypedSearchAttributes } from '@temporalio/common';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import type { DisputeActivities } from '../../../activities/types';
import { DEFAULT_DISPUTE_EVIDENCE_WINDOW_MS } from '../../../src/config';
import { disputeState, type DisputeEvidenceRequest, type DisputeOutcomeRequest, type DisputeRecord } from '../../../src/domain/dispute';
import { sandboxDisputeDecision } from '../../../src/domain/dispute-evidence';
import { newId } from '../../../src/support/new-id';
import { disputeStartOptions } from '../../../src/temporal/dispute-start';
import type { disputeWorkflow } from '../../../workflows/dispute';
import { startTimeSkippingWorkers } from './time-skipping-workers';

export type FakeDisputeCall =
  | { activity: 'beginDispute'; disputeId: string }
  | { activity: 'recordDisputeEvidence'; disputeId: string; request: DisputeEvidenceRequest }
  | { activity: 'applyDisputeOutcome'; disputeId: string; request: DisputeOutcomeRequest };

/**
 * Dispute activities in memory, with the contract of activities/disputes.ts (src/persistence/disputes/dispute-store.ts):
 * begin sets evidence_due_by once (created_at + evidenceWindowMs) and counts `dispute.evidence_required`;
 * evidence and outcome are idempotent. Every call is logged in order.
 */
export class FakeDisputeStore {
  readonly disputes = new Map<string, DisputeRecord>();
  readonly calls: FakeDisputeCall[] = [];
  /** Events as dispute-store.ts would write them, per dispute. */
  readonly events = new Map<string, string[]>();
  evidenceWindowMs = DEFAULT_DISPUTE_EVIDENCE_WINDOW_MS;

  /** Disputes whose outcome write fails for good (a permanent database error) until healed: the step gives up. */
  private readonly broken = new Set<string>();

  breakOutcome(disputeId: string): void {
    this.broken.add(disputeId);
  }

  heal(disputeId: string): void {
    this.broken.delete(disputeId);
  }

  write(record: DisputeRecord): void {
    this.disputes.set(record.id, { ...record });
  }

  callsFor(disputeId: string): FakeDisputeCall[] {
    return this.calls.filter((c) => c.disputeId === disputeId);
  }

  /** The writes after begin, as `under_review` / `won` / `lost`. */
  transitionsOf(disputeId: string): string[] {
    return this.callsFor(disputeId).flatMap((c) => (c.activity === 'recordDisputeEvidence' ? ['under_review'] : c.activity === 'applyDisputeOutcome' ? [c.request.to] : []));
  }

  private event(disputeId: string, type: string): void {
    this.events.set(disputeId, [...(this.events.get(disputeId) ?? []), type]);
  }

  readonly activities: DisputeActivities = {
    beginDispute: async (disputeId) => {
      this.calls.push({ activity: 'beginDispute', disputeId });
      const before = this.disputes.get(disputeId);
      if (!before) return null;
      let record = before;
      if (before.evidenceDueBy === null && before.status === 'needs_response') {
        record = { ...before, evidenceDueBy: new Date(Date.parse(before.createdAt) + this.evidenceWindowMs).toISOString() };
        this.disputes.set(disputeId, record);
        this.event(disputeId, 'dispute.evidence_required');
      }
      const decision = record.status === 'under_review' && record.evidenceText !== null ? sandboxDisputeDecision(record.evidenceText) : null;
      return { dispute: disputeState(record), decision };
    },
    recordDisputeEvidence: async (request) => {
      this.calls.push({ activity: 'recordDisputeEvidence', disputeId: request.disputeId, request });
      const before = this.disputes.get(request.disputeId)!;
      if (before.status !== 'needs_response') return disputeState(before);
      const after: DisputeRecord = { ...before, status: 'under_review', evidenceText: request.text, evidenceSubmittedAt: request.at, updatedAt: request.at };
      this.disputes.set(after.id, after);
      return disputeState(after);
    },
    applyDisputeOutcome: async (request) => {
      this.calls.push({ activity: 'applyDisputeOutcome', disputeId: request.disputeId, request });
      if (this.broken.has(request.disputeId)) {
        throw ApplicationFailure.create({ type: 'DeterministicDatabaseError', message: 'simulated: the database refused the write', nonRetryable: true });
      }
      const before = this.disputes.get(request.disputeId)!;
      if (before.status !== 'needs_response' && before.status !== 'under_review') return disputeState(before);
      const after: DisputeRecord = { ...before, status: request.to, updatedAt: request.at };
      this.disputes.set(after.id, after);
      this.event(after.id, `dispute.${request.to}`);
      return disputeState(after);
    },
  };
}

export interface DisputeOptions {
  status?: DisputeRecord['status'];
  evidenceText?: string;
}

/** A time-skipping test server with workers running the real bundle, dispute activities in memory. */
export interface DisputeTestEnv {
  env: TestWorkflowEnvironment;
  store: FakeDisputeStore;
  taskQueue: string;
  /** A dispute as the API writes it, opened "now" on the test server's clock. */
  dispute(options?: DisputeOptions): Promise<DisputeRecord>;
  /** POST /v1/sandbox/charges/{id}/disputes as the API does it: written (to the fake store), then started with `{ disputeId }`. */
  start(record: DisputeRecord, options?: { write?: boolean; workflowId?: string }): Promise<WorkflowHandle<typeof disputeWorkflow>>;
  handle(disputeId: string): WorkflowHandle<typeof disputeWorkflow>;
  searchAttributes(disputeId: string): Promise<TypedSearchAttributes>;
  close(): Promise<void>;
}

export async function startDisputeTestEnv(): Promise<DisputeTestEnv> {
  const store = new FakeDisputeStore();
  const { env, taskQueue, close } = await startTimeSkippingWorkers('disputes', store.activities);
  const client = env.client.workflow;

  return {
    env,
    store,
    taskQueue,
    async dispute(options = {}) {
      const now = new Date(await env.currentTimeMs()).toISOString();
      const status = options.status ?? 'needs_response';
      const evidenceText = options.evidenceText ?? (status === 'needs_response' ? null : 'recorded evidence');
      return {
        id: newId('dispute'),
        merchantId: 'mer_test',
        environment: 'sandbox',
        chargeId: newId('charge'),
        status,
        amount: 5_000,
        currency: 'GHS',
        reason: 'fraudulent',
        evidenceText,
        evidenceSubmittedAt: evidenceText === null ? null : now,
        evidenceDueBy: status === 'needs_response' ? null : now,
        createdAt: now,
        updatedAt: now,
      };
    },
    async start(record, { write = true, workflowId } = {}) {
      if (write) store.write(record);
      const options = disputeStartOptions(record, taskQueue);
      return client.start<typeof disputeWorkflow>('disputeWorkflow', { ...options, workflowId: workflowId ?? options.workflowId });
    },
    handle(disputeId) {
      return client.getHandle<typeof disputeWorkflow>(disputeId);
    },
    async searchAttributes(disputeId) {
      return (await client.getHandle(disputeId).describe()).typedSearchAttributes;
    },
    close,
  };
}

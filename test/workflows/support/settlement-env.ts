import type { WorkflowHandle } from '@temporalio/client';
import type { TypedSearchAttributes } from '@temporalio/common';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { SettlementActivities } from '../../../activities/types';
import type { Environment } from '../../../src/domain/environment';
import {
  NOTHING_TO_SETTLE,
  settlementState,
  type SettlementRecord,
  type SettlementSweepRequest,
  type SettlementTransitionRequest,
} from '../../../src/domain/settlement';
import type { SettlementRetryFacts } from '../../../src/domain/settlement-retry';
import { SETTLEMENT_WORKFLOW_TYPE, type SettlementStart } from '../../../src/domain/settlement-start';
import { maskAccountNumber } from '../../../src/domain/settlement-account';
import { settlementStartSearchAttributePairs } from '../../../src/domain/settlement-search-attributes';
import { newId } from '../../../src/support/new-id';
import { taskQueueFor } from '../../../src/temporal/task-queues';
import type { settlementWorkflow } from '../../../workflows/settlement';
import { startTimeSkippingWorkers } from './time-skipping-workers';
import { FakeRail } from './fake-rail-activities';

/** The account number every fake merchant settles to: no history may hold it. */
export const FAKE_ACCOUNT_NUMBER = '0012345678901';

const key = (merchantId: string, environment: string, currency: string) => `${merchantId}|${environment}|${currency}`;

/**
 * Settlement activities in memory, with the sweep's rules of settlement-store.ts: a batch already
 * written under the id is returned as it is; no account or no positive balance sweeps nothing; the
 * sweep moves available into in-transit, the end moves it out (paid) or back (failed), once.
 */
export class FakeSettlementStore {
  readonly batches = new Map<string, SettlementRecord>();
  readonly available = new Map<string, number>();
  readonly inTransit = new Map<string, number>();
  readonly accounts = new Map<string, { bank: string; account: string }>();
  readonly calls: { activity: keyof SettlementActivities; settlementId: string; request: SettlementSweepRequest | SettlementTransitionRequest }[] = [];

  fund(merchantId: string, amount: number, environment: Environment = 'sandbox', currency = 'GHS'): void {
    const k = key(merchantId, environment, currency);
    this.available.set(k, (this.available.get(k) ?? 0) + amount);
  }

  setAccount(merchantId: string, bank = 'GCB', account = FAKE_ACCOUNT_NUMBER): void {
    this.accounts.set(merchantId, { bank, account });
  }

  balanceOf(merchantId: string, environment: Environment = 'sandbox', currency = 'GHS') {
    const k = key(merchantId, environment, currency);
    return { available: this.available.get(k) ?? 0, inTransit: this.inTransit.get(k) ?? 0 };
  }

  /** What a retry of a batch reads first (default: no partner reference, nothing late on record). */
  readonly retryFacts = new Map<string, SettlementRetryFacts>();

  /** Batches whose transition fails on every call until `heal` (a database that refuses it). */
  private readonly broken = new Map<string, () => Error>();

  /** Makes every transition of this batch throw `error()`, until `heal`. */
  breakTransition(settlementId: string, error: () => Error): this {
    this.broken.set(settlementId, error);
    return this;
  }

  heal(settlementId: string): this {
    this.broken.delete(settlementId);
    return this;
  }

  transitionsOf(settlementId: string): SettlementTransitionRequest[] {
    return this.calls.filter((c) => c.settlementId === settlementId && c.activity === 'applySettlementTransition').map((c) => c.request as SettlementTransitionRequest);
  }

  readonly activities: SettlementActivities = {
    settlementStatus: async (settlementId) => this.batches.get(settlementId)?.status ?? null,
    settlementRetryFacts: async (settlementId) => this.retryFacts.get(settlementId) ?? { hasReference: false, lateAnswer: null, partnerSucceeded: false },
    sweepSettlement: async (request) => {
      this.calls.push({ activity: 'sweepSettlement', settlementId: request.settlementId, request });
      const existing = this.batches.get(request.settlementId);
      if (existing) return settlementState(existing);
      const destination = this.accounts.get(request.merchantId);
      if (!destination) return { kind: 'nothing', reason: NOTHING_TO_SETTLE.noAccount };
      const k = key(request.merchantId, request.environment, request.currency);
      const amount = this.available.get(k) ?? 0;
      if (amount <= 0) return { kind: 'nothing', reason: NOTHING_TO_SETTLE.noBalance };
      const batch: SettlementRecord = {
        id: request.settlementId,
        merchantId: request.merchantId,
        environment: request.environment,
        currency: request.currency,
        status: 'pending',
        amount,
        entryCount: 1,
        periodEnd: request.at,
        destinationBankCode: destination.bank,
        destinationAccountSealed: 'v2.fake.sealed.number.tag',
        destinationAccountMasked: maskAccountNumber(destination.account),
        paidAt: null,
        failureClass: null,
        runId: request.runId,
        sandboxOutcome: request.environment === 'sandbox' ? request.outcome : null,
        createdAt: request.at,
        updatedAt: request.at,
      };
      this.batches.set(batch.id, batch);
      this.available.set(k, 0);
      this.inTransit.set(k, (this.inTransit.get(k) ?? 0) + amount);
      return settlementState(batch);
    },
    applySettlementTransition: async (request) => {
      this.calls.push({ activity: 'applySettlementTransition', settlementId: request.settlementId, request });
      const broken = this.broken.get(request.settlementId);
      if (broken) throw broken();
      const before = this.batches.get(request.settlementId)!;
      if (before.status !== 'pending') return settlementState(before);
      const after: SettlementRecord = {
        ...before,
        status: request.to,
        paidAt: request.to === 'paid' ? request.at : null,
        failureClass: request.to === 'failed' ? request.failureClass : null,
        updatedAt: request.at,
      };
      this.batches.set(after.id, after);
      const k = key(after.merchantId, after.environment, after.currency);
      this.inTransit.set(k, (this.inTransit.get(k) ?? 0) - after.amount);
      if (after.status === 'failed') this.available.set(k, (this.available.get(k) ?? 0) + after.amount);
      return settlementState(after);
    },
  };
}

export interface SettlementStartOptions {
  /** The batch's id (default: a new one). */
  settlementId?: string;
  merchantId?: string;
  environment?: Environment;
  currency?: string;
  outcome?: 'failed' | null;
  /** Start under another workflow id than the settlement id. */
  workflowId?: string;
  /** Search attributes other than the input's. */
  searchAttributesFor?: { merchantId: string; environment: Environment; currency: string };
}

/** A time-skipping test server with the real bundle, settlement activities in memory. */
export interface SettlementTestEnv {
  env: TestWorkflowEnvironment;
  store: FakeSettlementStore;
  /** The partner rail's activities (default: no rail on the worker; `rail.partner(...)` scripts one). */
  rail: FakeRail;
  taskQueue: string;
  /** A merchant with a settlement account and `funds` available (sandbox GHS unless told). */
  merchant(funds?: number, environment?: Environment): string;
  /** As the settlement run starts a batch: workflow id = settlement id, MerchantId/Environment/Currency set. */
  start(options?: SettlementStartOptions): Promise<WorkflowHandle<typeof settlementWorkflow>>;
  searchAttributes(workflowId: string): Promise<TypedSearchAttributes>;
  close(): Promise<void>;
}

export async function startSettlementTestEnv(): Promise<SettlementTestEnv> {
  const store = new FakeSettlementStore();
  // The partner rail: none on this worker unless a test scripts one (a live batch then fails at once with partner_unavailable).
  const rail = new FakeRail();
  const { env, taskQueue, close } = await startTimeSkippingWorkers('settlements', { ...store.activities, ...rail.activities });
  const client = env.client.workflow;
  rail.clock = () => env.currentTimeMs();

  return {
    env,
    store,
    rail,
    taskQueue,
    merchant(funds = 0, environment = 'sandbox') {
      const merchantId = newId('merchant');
      store.setAccount(merchantId);
      if (funds > 0) store.fund(merchantId, funds, environment);
      return merchantId;
    },
    async start(options = {}) {
      const input: SettlementStart = {
        settlementId: options.settlementId ?? newId('settlement'),
        merchantId: options.merchantId ?? newId('merchant'),
        environment: options.environment ?? 'sandbox',
        currency: options.currency ?? 'GHS',
        outcome: options.outcome ?? null,
        runId: 'run_test',
      };
      return client.start<typeof settlementWorkflow>(SETTLEMENT_WORKFLOW_TYPE, {
        workflowId: options.workflowId ?? input.settlementId,
        taskQueue: taskQueueFor(taskQueue, input.environment),
        args: [input],
        typedSearchAttributes: settlementStartSearchAttributePairs(options.searchAttributesFor ?? input),
      });
    },
    async searchAttributes(workflowId) {
      return (await client.getHandle(workflowId).describe()).typedSearchAttributes;
    },
    close,
  };
}

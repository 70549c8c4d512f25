import type { Client, WorkflowStartOptions } from '@temporalio/client';
import type { Environment } from '../domain/environment';
import { runEnvironmentQueue, SETTLEMENT_RUN_WORKFLOW_TYPE, type SettlementRunInput, type SettlementRunResult } from '../domain/settlement-run';
import { randomBase62 } from '../support/new-id';
import { taskQueueFor } from './task-queues';

type RunWorkflowFn = (input?: SettlementRunInput) => Promise<SettlementRunResult>;

/**
 * The queue a settlement run runs on: its environment's when it is limited to one, else live's (a
 * run over both must not wait behind a sandbox flood). Its batches go to their own environment's
 * queue either way (src/domain/settlement-run.ts batchQueueFor).
 */
export function settlementRunQueue(baseQueue: string, environment: Environment | undefined): string {
  return taskQueueFor(baseQueue, runEnvironmentQueue(environment));
}

/** A run's own id (`settlement-run-<random>`), also the subject of its audit row (`settlement_run.start`). */
export function newSettlementRunId(): string {
  return `settlement-run-${randomBase62(16)}`;
}

/** `settlements run`: a run started now, under its own id (`settlement-run-<random>`, or `workflowId`). */
export function settlementRunStartOptions(baseQueue: string, input: SettlementRunInput, workflowId = newSettlementRunId()): WorkflowStartOptions<RunWorkflowFn> & { args: [SettlementRunInput] } {
  return {
    workflowId,
    taskQueue: settlementRunQueue(baseQueue, input.environment),
    args: [input],
    workflowIdReusePolicy: 'REJECT_DUPLICATE',
    staticSummary: `settlement run by hand${input.merchantId ? ` for ${input.merchantId}` : ''}${input.environment ? ` (${input.environment})` : ''}${input.outcome ? `, outcome ${input.outcome}` : ''}`,
  };
}

/** Starts a run and waits for its result (through its continue-as-new runs). */
export async function runSettlementNow(client: Client, baseQueue: string, input: SettlementRunInput, workflowId?: string): Promise<SettlementRunResult> {
  const handle = await client.workflow.start<RunWorkflowFn>(SETTLEMENT_RUN_WORKFLOW_TYPE, settlementRunStartOptions(baseQueue, input, workflowId));
  return handle.result();
}

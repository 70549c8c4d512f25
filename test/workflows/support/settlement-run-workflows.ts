/**
 * The workflow bundle of test/workflows/settlement-run.test.ts: the real settlementRunWorkflow, and a
 * test double registered as `settlementWorkflow` (the batch) that reports how it was started to the
 * fake store (an activity) and ends without a batch. The real batch is tested on its own.
 */
import { proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { SettlementStart } from '../../../src/domain/settlement-start';
import { SA } from '../../../src/domain/search-attributes';
import type { StartedDouble } from './settlement-run-env';

export { settlementRunWorkflow } from '../../../workflows/settlement-run';

const { recordBatchStart } = proxyActivities<{ recordBatchStart(started: StartedDouble): Promise<void> }>({ startToCloseTimeout: '10 seconds' });

export async function settlementWorkflow(input: SettlementStart): Promise<{ kind: 'nothing'; reason: string }> {
  const info = workflowInfo();
  const sa = info.typedSearchAttributes;
  await recordBatchStart({
    input,
    workflowId: info.workflowId,
    taskQueue: info.taskQueue,
    parentWorkflowId: info.parent?.workflowId ?? null,
    searchAttributes: { MerchantId: sa.get(SA.MerchantId), Environment: sa.get(SA.Environment), Currency: sa.get(SA.Currency), NeedsAttention: sa.get(SA.NeedsAttention) },
  });
  return { kind: 'nothing', reason: 'test double' };
}

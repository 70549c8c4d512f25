import type { Client, WorkflowHandle } from '@temporalio/client';

/**
 * The runs of one workflow id from `firstRunId`, following each run's continue-as-new to the next,
 * with each run's history length: what the continue-as-new tests of long waits check (issue 43).
 */
export async function runsOf(client: Client, workflowId: string, firstRunId: string): Promise<Array<{ runId: string; events: number }>> {
  const runs: Array<{ runId: string; events: number }> = [];
  let runId: string | undefined = firstRunId;
  while (runId) {
    const history: Awaited<ReturnType<WorkflowHandle['fetchHistory']>> = await client.workflow.getHandle(workflowId, runId).fetchHistory();
    const events = history.events ?? [];
    runs.push({ runId, events: events.length });
    const next: string | null | undefined = events.at(-1)?.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId;
    runId = next ?? undefined;
  }
  return runs;
}

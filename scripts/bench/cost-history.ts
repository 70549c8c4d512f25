import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';

/** One workflow's history as the server keeps it: how many events, and how many of each type. */
export interface HistoryCount {
  kind: string;
  workflowId: string;
  events: number;
  byType: Record<string, number>;
}

const typeName = (t: number | null | undefined) => (temporal.api.enums.v1.EventType[t ?? 0] ?? String(t)).replace(/^EVENT_TYPE_/, '');

/** fetchHistory() of `workflowId` (latest run); undefined with the reason in `error` when it cannot be read. */
export async function countHistory(client: Client, kind: string, workflowId: string): Promise<HistoryCount | { kind: string; workflowId: string; error: string }> {
  try {
    const history = await client.workflow.getHandle(workflowId).fetchHistory();
    const byType: Record<string, number> = {};
    for (const e of history.events ?? []) byType[typeName(e.eventType)] = (byType[typeName(e.eventType)] ?? 0) + 1;
    return { kind, workflowId, events: history.events?.length ?? 0, byType };
  } catch (error) {
    return { kind, workflowId, error: error instanceof Error ? error.message : String(error) };
  }
}

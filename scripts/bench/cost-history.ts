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

/** The workflows a phase started, by type, and one id of each (visibility: StartTime within the phase). */
export interface WorkflowMix {
  byType: Record<string, number>;
  sample: Record<string, string>;
}

export async function workflowsStarted(client: Client, from: Date, to: Date): Promise<WorkflowMix | { error: string }> {
  const mix: WorkflowMix = { byType: {}, sample: {} };
  try {
    for await (const w of client.workflow.list({ query: `StartTime >= "${from.toISOString()}" AND StartTime <= "${to.toISOString()}"` })) {
      mix.byType[w.type] = (mix.byType[w.type] ?? 0) + 1;
      mix.sample[w.type] ??= w.workflowId;
    }
    return mix;
  } catch (error) {
    return { error: error instanceof Error ? error.message.split('\n')[0] : String(error) };
  }
}

/** One history of each type the phase started (falling back to `fallback`, kind → id, when visibility could not list them). */
export async function historiesOf(client: Client, mix: WorkflowMix | { error: string }, fallback: Record<string, string>): Promise<Array<HistoryCount | { kind: string; workflowId: string; error: string }>> {
  const ids = 'error' in mix ? fallback : mix.sample;
  return Promise.all(Object.entries(ids).map(([kind, id]) => countHistory(client, kind, id)));
}

import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';

/** One workflow's history as the server keeps it: how many events, and how many of each type. */
export interface HistoryCount {
  kind: string;
  workflowId: string;
  events: number;
  byType: Record<string, number>;
  /** Of how many sampled workflows of this kind this is the median, and their fewest and most events. */
  of?: number;
  range?: [number, number];
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

/** How many workflows of each type are sampled; the one with the median event count stands for its type. */
const SAMPLES = 5;

/** The workflows a phase started, by type (visibility: StartTime within the phase), and a few ids of each. */
export interface WorkflowMix {
  byType: Record<string, number>;
  samples: Record<string, string[]>;
}

export async function workflowsStarted(client: Client, from: Date, to: Date): Promise<WorkflowMix | { error: string }> {
  const mix: WorkflowMix = { byType: {}, samples: {} };
  try {
    for await (const w of client.workflow.list({ query: `StartTime >= "${from.toISOString()}" AND StartTime <= "${to.toISOString()}"` })) {
      mix.byType[w.type] = (mix.byType[w.type] ?? 0) + 1;
      const ids = (mix.samples[w.type] ??= []);
      if (ids.length < SAMPLES) ids.push(w.workflowId);
    }
    return mix;
  } catch (error) {
    return { error: error instanceof Error ? error.message.split('\n')[0] : String(error) };
  }
}

/**
 * The history of one workflow of each type the phase started: of up to SAMPLES of them, the one with
 * the median number of events (a single one may have met a retry or a task timeout). `fallback`
 * (kind → id) when visibility could not list them.
 */
export async function historiesOf(client: Client, mix: WorkflowMix | { error: string }, fallback: Record<string, string>): Promise<Array<HistoryCount | { kind: string; workflowId: string; error: string }>> {
  const byKind: Record<string, string[]> = 'error' in mix ? Object.fromEntries(Object.entries(fallback).map(([k, id]) => [k, [id]])) : mix.samples;
  return Promise.all(
    Object.entries(byKind).map(async ([kind, ids]) => {
      const all = await Promise.all(ids.map((id) => countHistory(client, kind, id)));
      const read = all.filter((h): h is HistoryCount => 'events' in h).sort((a, b) => a.events - b.events);
      if (read.length === 0) return all[0];
      const median = read[Math.floor((read.length - 1) / 2)];
      return { ...median, of: read.length, range: [read[0].events, read[read.length - 1].events] as [number, number] };
    }),
  );
}

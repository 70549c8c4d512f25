import { parsePrometheus, scrapePages, sumSamples, type PromSample } from '../shared/prometheus-text';

/**
 * Temporal's own counts of work, read from Prometheus before and after a phase: the server's
 * (`/metrics` of the dev server's `--metrics-port`, or the topology server's) and the SDK's (the
 * payments worker process's WORKER_METRICS_PORT listener and the bench process's runtime, which runs
 * the bare worker). Differences only; every figure is a counter.
 */
export interface CounterReading {
  /** undefined: no Temporal listener, or it did not answer. */
  server?: PromSample[];
  /** Samples of every SDK listener that answered (none: undefined). */
  sdk?: PromSample[];
}

type Where = (l: Record<string, string>) => boolean;
const frontend = (operation: string): Where => (l) => l.service_name === 'frontend' && l.operation === operation;

/** The labels the budget table reads by name (cost-report.ts). */
export const COUNTER = {
  workflowTasks: 'workflow tasks completed (frontend RespondWorkflowTaskCompleted)',
  activityTasks: 'activity tasks completed (RespondActivityTaskCompleted)',
  persistence: 'persistence requests (persistence_requests, summed)',
  persistenceDefault: "of which namespace default (the workflows')",
  localActivities: 'SDK local activity executions',
} as const;

/** The server's counters the report shows, by the name it shows them under. */
export const SERVER_COUNTERS: Array<{ label: string; metric: string; where?: Where }> = [
  { label: COUNTER.workflowTasks, metric: 'service_requests', where: frontend('RespondWorkflowTaskCompleted') },
  { label: 'workflow tasks failed (RespondWorkflowTaskFailed)', metric: 'service_requests', where: frontend('RespondWorkflowTaskFailed') },
  { label: COUNTER.activityTasks, metric: 'service_requests', where: frontend('RespondActivityTaskCompleted') },
  { label: 'workflow starts (frontend StartWorkflowExecution)', metric: 'service_requests', where: frontend('StartWorkflowExecution') },
  { label: 'frontend requests, every operation', metric: 'service_requests', where: (l) => l.service_name === 'frontend' },
  { label: COUNTER.persistence, metric: 'persistence_requests' },
  { label: COUNTER.persistenceDefault, metric: 'persistence_requests', where: (l) => l.namespace === 'default' },
  { label: 'of which namespace system (cluster metadata, namespaces, shards)', metric: 'persistence_requests', where: (l) => l.namespace === 'system' },
  { label: 'history service tasks (task_requests: transfer, timer, visibility, outbound)', metric: 'task_requests' },
  { label: 'of which visibility tasks', metric: 'task_requests', where: (l) => (l.operation ?? '').startsWith('Visibility') },
  { label: 'visibility persistence requests', metric: 'visibility_persistence_requests' },
  { label: 'state transitions (state_transition_count_sum, namespace default)', metric: 'state_transition_count_sum', where: (l) => l.namespace === 'default' },
];

/** The SDK's counters (Core's names; a counter may carry `_total`). */
export const SDK_COUNTERS: Array<{ label: string; metrics: string[] }> = [
  { label: 'SDK workflow task executions', metrics: ['temporal_workflow_task_execution_latency_count'] },
  { label: 'SDK workflow task replay latency observations', metrics: ['temporal_workflow_task_replay_latency_count'] },
  { label: 'SDK activity executions', metrics: ['temporal_activity_execution_latency_count'] },
  { label: COUNTER.localActivities, metrics: ['temporal_local_activity_execution_latency_count'] },
  { label: 'SDK local activities (total)', metrics: ['temporal_local_activity_total', 'temporal_local_activity_total_total'] },
];

export async function readCounters(serverPort: number | undefined, sdkPorts: readonly number[]): Promise<CounterReading> {
  const [serverPages, sdkPages] = await Promise.all([scrapePages(serverPort ? [serverPort] : []), scrapePages(sdkPorts)]);
  const answered = sdkPages.filter((p) => p !== '');
  return {
    ...(serverPages[0] ? { server: parsePrometheus(serverPages[0]) } : {}),
    ...(answered.length ? { sdk: answered.flatMap(parsePrometheus) } : {}),
  };
}

export interface CounterDeltas {
  /** By SERVER_COUNTERS label; absent when the server was not read. */
  server?: Record<string, number>;
  /** persistence_requests by operation (every service and namespace), largest first. */
  persistenceByOperation?: Array<[string, number]>;
  sdk?: Record<string, number>;
}

export function counterDeltas(before: CounterReading, after: CounterReading): CounterDeltas {
  const out: CounterDeltas = {};
  if (before.server && after.server) {
    const a = before.server;
    const b = after.server;
    out.server = Object.fromEntries(SERVER_COUNTERS.map((c) => [c.label, sumSamples(b, c.metric, c.where) - sumSamples(a, c.metric, c.where)]));
    const ops = new Set(b.filter((s) => s.name === 'persistence_requests').map((s) => s.labels.operation ?? ''));
    out.persistenceByOperation = [...ops]
      .map((op): [string, number] => [op, sumSamples(b, 'persistence_requests', (l) => l.operation === op) - sumSamples(a, 'persistence_requests', (l) => l.operation === op)])
      .filter(([, n]) => n > 0)
      .sort((x, y) => y[1] - x[1]);
  }
  if (before.sdk && after.sdk) {
    const a = before.sdk;
    const b = after.sdk;
    out.sdk = Object.fromEntries(SDK_COUNTERS.map((c) => [c.label, c.metrics.reduce((sum, m) => sum + sumSamples(b, m) - sumSamples(a, m), 0)]));
  }
  return out;
}

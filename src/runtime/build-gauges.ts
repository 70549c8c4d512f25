import type { MonitorMetrics } from '../support/monitor-metrics';
import type { BuildCoverage } from '../temporal/worker-builds';

/**
 * The sampler's Worker Versioning figures (issue 31, finding 8), from one readBuildCoverage:
 *
 * - `payments_task_queue_pollers{environment,task_queue,task_type,build_id}`: each build's fresh
 *   pollers. Unversioned workers' series has no `build_id` (as before versioning) and is always
 *   there, 0 included, so a queue nobody polls shows 0. A build the server still remembers, or one
 *   that holds open pinned runs on the queue, shows 0 when none of its workers poll: what
 *   PaymentsPinnedBuildWithoutPollers (monitoring/prometheus/rules.yml) looks for.
 * - `payments_open_runs_by_build{environment,task_queue,build_id}`: running workflows pinned to each
 *   build that may hold some (current, ramping, draining), and those pinned to none (no `build_id`).
 *
 * Both are rewritten whole each pass (a build deleted since drops out).
 */
export function setBuildGauges(metrics: MonitorMetrics, coverage: BuildCoverage): void {
  metrics.pollers.reset();
  metrics.openRunsByBuild.reset();
  const buildLabel = (buildId: string) => (buildId === '' ? {} : { build_id: buildId });
  for (const cell of coverage.pollers) {
    const base = { environment: cell.environment, task_queue: cell.taskQueue, task_type: cell.taskType };
    metrics.pollers.set(base, 0);
    const counts = new Map<string, number>();
    for (const b of cell.builds) counts.set(b.buildId, (counts.get(b.buildId) ?? 0) + b.pollers);
    for (const r of coverage.runs) if (r.taskQueue === cell.taskQueue && r.buildId !== '' && r.runs > 0 && !counts.has(r.buildId)) counts.set(r.buildId, 0);
    for (const [buildId, n] of counts) metrics.pollers.set({ ...base, ...buildLabel(buildId) }, n);
  }
  for (const r of coverage.runs) {
    const labels = { environment: r.environment, task_queue: r.taskQueue, ...buildLabel(r.buildId) };
    // Two deployments with the same build id on one queue (not a set-up this engine makes): summed.
    metrics.openRunsByBuild.inc(labels, r.runs);
  }
}

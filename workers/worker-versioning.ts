import type { WorkerDeploymentVersion } from '@temporalio/common';
import type { WorkerOptions } from '@temporalio/worker';

/**
 * Worker Versioning (Worker Deployments; docs/testing.md "Releasing a new build"). With a version
 * (WORKER_DEPLOYMENT_NAME and WORKER_BUILD_ID, src/config.ts) every Worker of the process registers
 * it on its task queue, and every workflow is PINNED: it runs to its end on the build it started on,
 * so a new build's code never replays an old run's history. Without a version the Workers are
 * unversioned, exactly as before.
 *
 * The behavior is the Worker's default, never a workflow's own `setWorkflowOptions({ versioningBehavior })`:
 * the server refuses a task completion that names a behavior from an unversioned Worker ("versioning
 * behavior cannot be specified without deployment options being set with versioned mode"), so an
 * annotated workflow would stop on every unversioned Worker (the default, and a rollback with
 * `set-current-version --unversioned`). test/unit/worker-versioning-config.test.ts keeps it out of workflows/.
 */
export function workerVersioningOptions(version: WorkerDeploymentVersion | undefined): Pick<WorkerOptions, 'workerDeploymentOptions'> {
  if (!version) return {};
  return { workerDeploymentOptions: { useWorkerVersioning: true, version, defaultVersioningBehavior: 'PINNED' } };
}

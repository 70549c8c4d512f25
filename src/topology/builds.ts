import fs from 'node:fs';
import path from 'node:path';

/**
 * Which build each worker of the topology runs (Worker Versioning: deployment TOPOLOGY_DEPLOYMENT).
 * The supervisor writes each worker's build into a file of the topology's folder at `up` (the
 * topology's build, TOPOLOGY_BUILD_ID) and reads it again at every start of the worker, so a new build
 * is rolled out by writing the file and stopping the worker: the supervisor starts it on the build
 * the file names (the chaos run's `build_rollover` fault, src/chaos/rollover.ts).
 */

export const TOPOLOGY_DEPLOYMENT = 'payments';

const buildFile = (dir: string, worker: string): string => path.join(dir, `build-${worker}`);

/** The build `worker` runs on (its file), or `fallback` when no file names one. */
export function workerBuild(dir: string, worker: string, fallback: string): string {
  try {
    return fs.readFileSync(buildFile(dir, worker), 'utf8').trim() || fallback;
  } catch {
    return fallback;
  }
}

/** The build `worker` runs on from its next start. */
export function setWorkerBuild(dir: string, worker: string, buildId: string): void {
  fs.writeFileSync(buildFile(dir, worker), `${buildId}\n`);
}

/** Whether the topology in `dir` reads its workers' builds from their files (one started since they exist): a rollout needs it. */
export const rollable = (dir: string): boolean => fs.existsSync(buildFile(dir, 'worker-1')) && fs.existsSync(buildFile(dir, 'worker-2'));

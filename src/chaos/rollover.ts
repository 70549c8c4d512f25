import type { BulkOutcome } from '../services/bulk-operator';
import type { MoveDryRun } from '../services/move-build';
import { runCli } from './cli-runner';
import type { InjectedFault, InjectorDeps } from './fault-types';
import { finish, sleep, waitRecovered } from './recovery';
import type { PlannedFault } from './schedule';
import { signal } from './topology-view';
import { setWorkerBuild, TOPOLOGY_DEPLOYMENT, workerBuild } from '../topology/builds';
import { readTopologyState } from '../topology/state';
import { makeBuildCurrent } from '../topology/temporal-setup';

/**
 * `build_rollover` (issue 44): a new build deployed while runs pinned to the old one are in flight,
 * as docs/operations.md "Retiring a build" does it, under the run's load:
 * 1. worker-1 stops (SIGTERM: it drains) and comes back on the new build (src/topology/builds.ts);
 * 2. the new build is made current: new runs start on it, on worker-1; the runs pinned to the old
 *    build go on, on worker-2, for the fault's hold;
 * 3. what is still pinned to the old build moves to the new one with `payments move-build` (the
 *    operator's audited tool: a dry run, then `--yes --token`, each run replayed on the new code);
 * 4. worker-2 stops and comes back on the new build.
 * Every step waits for the worker it restarted; the fault recovers when every piece is healthy again.
 * What moved (and what was refused) is the fault's note; a refused run stays pinned to the old build,
 * which no worker serves any more, and the liveness check then names it.
 */

/** The old build's runs (docs/operations.md "Retiring a build", the drain count's query). */
const pinnedTo = (buildId: string) => `TemporalWorkerDeploymentVersion = '${TOPOLOGY_DEPLOYMENT}:${buildId}' AND ExecutionStatus = 'Running'`;

/** Stops `worker` and waits until the supervisor has it back, healthy, with another pid (on the build its file names). */
async function restartOn(deps: InjectorDeps, worker: string, buildId: string): Promise<void> {
  const dir = deps.topology.dir;
  setWorkerBuild(dir, worker, buildId);
  const before = deps.topology.piece(worker).pid;
  if (!before) throw new Error(`${worker} has no pid to restart (health ${deps.topology.piece(worker).health})`);
  signal(before, 'SIGTERM');
  const limit = Date.now() + deps.recoveryLimitS * 1000;
  for (;;) {
    const now = deps.topology.piece(worker);
    if (now.pid !== null && now.pid !== before && now.health === 'ok') return;
    if (Date.now() > limit) throw new Error(`${worker} did not come back on build ${buildId} within ${deps.recoveryLimitS} s`);
    await sleep(500);
  }
}

export async function buildRollover(deps: InjectorDeps, plan: PlannedFault): Promise<InjectedFault> {
  const startedAt = Date.now();
  try {
    return await rollOver(deps, plan, startedAt);
  } catch (error) {
    // Not recovered: the run stops there and reports it (a rollout that could not finish is a finding).
    deps.log.faultEnded(plan.n);
    return finish({ n: plan.n, kind: plan.kind, target: plan.target, pids: [], startedAt, liftedAt: Date.now(), recoveredAt: null, restarted: null, note: `the rollout did not finish: ${(error as Error).message.slice(0, 500)}` });
  }
}

async function rollOver(deps: InjectorDeps, plan: PlannedFault, startedAt: number): Promise<InjectedFault> {
  const dir = deps.topology.dir;
  const state = readTopologyState(dir);
  if (!state) throw new Error(`no topology in ${dir}`);
  const oldBuild = workerBuild(dir, 'worker-1', 'topology');
  const newBuild = `${oldBuild.replace(/-r[0-9]+-[0-9a-z]+$/, '')}-r${plan.n}-${Date.now().toString(36)}`;
  deps.log.faultStarted(plan.n, plan.kind);
  await restartOn(deps, 'worker-1', newBuild);
  await makeBuildCurrent(state.temporal_address, state.temporal_namespace, { deploymentName: TOPOLOGY_DEPLOYMENT, buildId: newBuild });
  deps.say(`fault ${plan.n}: build ${newBuild} current on worker-1; worker-2 serves ${oldBuild}'s runs for ${plan.holdS} s`);
  await sleep(plan.holdS * 1000);
  // The CLI as the runbook runs it: from the new build (its WORKER_BUILD_ID must be --to-build).
  const cliEnv = { WORKER_DEPLOYMENT_NAME: TOPOLOGY_DEPLOYMENT, WORKER_BUILD_ID: newBuild };
  const reason = `chaos fault ${plan.n}: retire ${oldBuild}`;
  const move = ['payments', 'move-build', '--to-build', newBuild, '--query', pinnedTo(oldBuild), '--reason', reason, '--operator', 'chaos'];
  const dry = (await runCli(dir, move, 180_000, cliEnv)) as MoveDryRun;
  let applied: Pick<BulkOutcome, 'succeeded' | 'failed' | 'no_longer_matching'> = { succeeded: 0, failed: 0, no_longer_matching: 0 };
  if (dry.count > 0) applied = (await runCli(dir, [...move, '--yes', '--token', dry.token], 300_000, cliEnv)) as BulkOutcome;
  await restartOn(deps, 'worker-2', newBuild);
  const liftedAt = Date.now();
  // The rollout's own steps (two restarts, the move's dry run and apply: CLI processes, each with its
  // own limit) are the operator's work, not the fault's aftermath: on a saturated 2-core machine they
  // took over 150 s by themselves (2026-12-01), so the recovery limit counts from the last step.
  const recoveredAt = await waitRecovered(deps, liftedAt, () => true);
  deps.log.faultEnded(plan.n);
  return finish({
    n: plan.n, kind: plan.kind, target: plan.target, pids: [], startedAt, liftedAt, recoveredAt, restarted: true,
    note: `${oldBuild} -> ${newBuild}: ${plan.holdS} s with both builds serving, then ${dry.count} run(s) still pinned to ${oldBuild} to move with payments move-build (${applied.succeeded} moved, ${applied.no_longer_matching} ended meanwhile, ${applied.failed - applied.no_longer_matching} failed; ${dry.refused.length} refused by their replay), worker-2 on ${newBuild}`,
  });
}

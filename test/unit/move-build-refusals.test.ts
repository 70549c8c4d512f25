import { cliBuildRefusal, unpolledTargetRefusal } from '../../src/services/move-build';
import { queuesWithoutBuild, watchedQueues } from '../../src/temporal/worker-builds';
import type { QueuePollers } from '../../src/temporal/task-queue-pollers';

/**
 * `payments move-build` (issue 43, Medium): it replays the runs against the CLI's own workflow code,
 * so it runs only from the image of the build the runs go to; and it moves runs only to a build whose
 * workers poll every queue of the deployment (a run pinned to a build nobody polls stalls).
 */
describe('payments move-build refusals', () => {
  test("the CLI's own build must be --to-build", () => {
    expect(cliBuildRefusal(undefined, 'build-c')).toMatch(/^this CLI has no WORKER_BUILD_ID.*build build-c's.*nothing was moved$/);
    expect(cliBuildRefusal('build-b', 'build-c')).toMatch(/^this CLI is build build-b \(WORKER_BUILD_ID\), not --to-build build-c: .*nothing was moved$/);
    expect(cliBuildRefusal('build-c', 'build-c')).toBeNull();
  });

  /** Pollers of `build` (deployment d) on every watched queue of base `q`, except `skip` (`queue taskType`). */
  function pollers(build: string, skip: string[] = []): QueuePollers[] {
    return watchedQueues('q').flatMap(({ environment, taskQueue }) =>
      (['workflow', 'activity'] as const).map((taskType) => ({
        environment,
        taskQueue,
        taskType,
        pollers: 1,
        builds: [
          { deploymentName: 'd', buildId: 'build-b', pollers: 1 },
          { deploymentName: 'd', buildId: build, pollers: skip.includes(`${taskQueue} ${taskType}`) ? 0 : 1 },
        ],
      })),
    );
  }

  test('the target build must poll every queue of the deployment, workflow and activity tasks', () => {
    expect(unpolledTargetRefusal({ pollers: pollers('build-c') }, 'q', 'd', 'build-c')).toBeNull();
    // Gone from one queue's activity tasks (counted 0: not seen in the last minute).
    expect(queuesWithoutBuild({ pollers: pollers('build-c', ['q-live activity']) }, 'q', 'd', 'build-c')).toEqual([{ taskQueue: 'q-live', missing: ['activity'] }]);
    expect(unpolledTargetRefusal({ pollers: pollers('build-c', ['q-live activity']) }, 'q', 'd', 'build-c')).toMatch(
      /^build build-c of deployment d has no worker polling q-live \(activity tasks\) .*a run moved to it would stall there.*nothing was moved$/,
    );
    // Current, but no worker of it ever polled (set current with --ignore-missing-task-queues): every queue named.
    const none = queuesWithoutBuild({ pollers: pollers('build-b') }, 'q', 'd', 'build-c');
    expect(none.map((q) => q.taskQueue).sort()).toEqual([...new Set(watchedQueues('q').map((w) => w.taskQueue))].sort());
    expect(none.every((q) => q.missing.join() === 'workflow,activity')).toBe(true);
    // Another deployment's build of the same id does not count.
    const other = pollers('build-c').map((cell) => ({ ...cell, builds: cell.builds.map((b) => ({ ...b, deploymentName: 'other' })) }));
    expect(unpolledTargetRefusal({ pollers: other }, 'q', 'd', 'build-c')).not.toBeNull();
  });
});

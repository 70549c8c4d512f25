import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { temporal } from '@temporalio/proto';

/**
 * The time-skipping test server leaks a time lock for every child workflow that closes after its
 * parent run closed (docs/simulation.md "The test server's leaked time locks").
 *
 * Its child, when it completes, fails, is cancelled or times out, takes a time lock "notify parent",
 * which only the parent's handling of that news gives back; a parent run already closed answers
 * NOT_FOUND and the lock stays taken for good (sdk-java temporal-test-server,
 * TestWorkflowMutableStateImpl: `ctx.lockTimer("... notify parent"); // unlocked by the parent`). From
 * then on the server skips no time: every later time jump passes at the pace of real time. This engine
 * abandons children by design (a charge's payment review, a settlement run's batches, a retried
 * batch), so it meets this whenever a child outlives its parent.
 *
 * `releaseLeakedTimeLocks` finds each such child exactly once (closed with one of those statuses,
 * its parent's run closed, and no word of the child's close in the parent's history) and gives its
 * lock back with TestService.UnlockTimeSkipping. The server refuses an unlock it holds no lock for
 * ("Unbalanced lock and unlock calls"), so a wrong count fails loudly, never silently.
 */

const { WorkflowExecutionStatus } = temporal.api.enums.v1;

/** The child's closes that take the lock (terminated does not). */
const LOCKING_CLOSES = new Set<number>([
  WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_COMPLETED,
  WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_FAILED,
  WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_CANCELED,
  WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_TIMED_OUT,
]);

export interface TimeLockReleaser {
  /** Releases the locks leaked since the last call; answers the children whose lock it gave back. */
  release(): Promise<string[]>;
  /** How many leaked locks were given back in all. */
  released(): number;
}

export function timeLockReleaser(env: TestWorkflowEnvironment, namespace = 'default'): TimeLockReleaser {
  const service = env.connection.workflowService;
  const maybeTestService = env.connection.testService;
  if (!maybeTestService) throw new Error('the simulation needs the time-skipping test server (its TestService)');
  const testService = maybeTestService;
  /** Child runs already judged (leaked and released, or told to their parent): never looked at again. */
  const settled = new Set<string>();
  let count = 0;
  let running: Promise<string[]> | undefined;

  async function parentKnows(parent: { workflowId: string; runId: string }, childId: string): Promise<boolean | 'open'> {
    const described = await service.describeWorkflowExecution({ namespace, execution: parent });
    if (described.workflowExecutionInfo?.status === WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING) return 'open';
    let nextPageToken: Uint8Array | undefined;
    do {
      const page = await service.getWorkflowExecutionHistory({ namespace, execution: parent, nextPageToken });
      for (const e of page.history?.events ?? []) {
        const told =
          e.childWorkflowExecutionCompletedEventAttributes ??
          e.childWorkflowExecutionFailedEventAttributes ??
          e.childWorkflowExecutionCanceledEventAttributes ??
          e.childWorkflowExecutionTimedOutEventAttributes ??
          e.childWorkflowExecutionTerminatedEventAttributes;
        if (told?.workflowExecution?.workflowId === childId) return true;
      }
      nextPageToken = page.nextPageToken && page.nextPageToken.length > 0 ? page.nextPageToken : undefined;
    } while (nextPageToken);
    return false;
  }

  async function releaseOnce(): Promise<string[]> {
    const { executions } = await service.listClosedWorkflowExecutions({ namespace, maximumPageSize: 10_000 });
    const freed: string[] = [];
    for (const e of executions ?? []) {
      const child = e.execution;
      if (!child?.workflowId) continue;
      const key = `${child.workflowId}/${child.runId ?? ''}`;
      if (settled.has(key)) continue;
      if (!LOCKING_CLOSES.has(e.status ?? 0)) {
        settled.add(key);
        continue;
      }
      // The list leaves the parent out; the run's description names it.
      const parent = (await service.describeWorkflowExecution({ namespace, execution: child })).workflowExecutionInfo?.parentExecution;
      if (!parent?.workflowId || !parent.runId) {
        settled.add(key);
        continue;
      }
      const knows = await parentKnows({ workflowId: parent.workflowId, runId: parent.runId }, child.workflowId);
      if (knows === 'open') continue; // the parent will be told (or closes first: looked at again next time)
      settled.add(key);
      if (knows) continue;
      await testService.unlockTimeSkipping({});
      count += 1;
      freed.push(child.workflowId);
    }
    return freed;
  }

  return {
    // One pass at a time: two at once would both see the same child before either marks it.
    release() {
      running ??= releaseOnce().finally(() => {
        running = undefined;
      });
      return running;
    },
    released: () => count,
  };
}

import { ApplicationFailure, continueAsNew, defineQuery, log, proxyActivities, setCurrentDetails, setHandler, sleep, workflowInfo } from '@temporalio/workflow';
import type { RetentionActivities } from '../activities/types';
import { addCounts, NO_ROWS, RETENTION_BATCHES_PER_RUN, RETENTION_KINDS, type RetentionInput, type RetentionResult } from '../src/domain/retention';

/** Error type of a run refused at its start (malformed input): nothing is deleted. */
export const RETENTION_INPUT_REFUSED = 'RetentionInputRefused';

/** What the run (this chain of runs) deleted so far: `temporal workflow query --type retention`. */
export const retentionQuery = defineQuery<Omit<RetentionResult, 'plan'>>('retention');

const { retentionPlan, deleteRetentionBatch } = proxyActivities<RetentionActivities>({
  // One statement per batch, under the worker pool's statement_timeout (8 s).
  startToCloseTimeout: '1 minute',
  // A batch is safe to repeat. A database that stays down for about half an hour fails the run
  // (visible in the Temporal UI); the next tick of the Schedule starts afresh.
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '5 minutes', maximumAttempts: 10, nonRetryableErrorTypes: ['DeterministicDatabaseError'] },
});

/**
 * One retention run (issue 34; src/domain/retention.ts says what goes and what stays), started by the
 * retention Schedule (src/temporal/retention-schedule.ts, input `{}`) or by `retention run`:
 *
 * 1. `retentionPlan`: the worker's windows, batch size and pause, recorded once in the history, so a
 *    run and its continuations work with one set of settings.
 * 2. For each kind in turn, `deleteRetentionBatch` (one statement, at most `batch` rows, oldest first)
 *    until a batch comes back short, with a timer of `pauseMs` between two batches so the job never
 *    takes the database for long.
 * 3. After RETENTION_BATCHES_PER_RUN batches, or earlier when the server suggests it, it continues as
 *    new with its progress, so a large backlog never goes into one history.
 *
 * The result (and the `retention` query): the rows deleted by kind, the batches, the plan.
 */
export async function retentionWorkflow(input: RetentionInput = {}): Promise<RetentionResult> {
  const problem = inputProblem(input);
  if (problem) throw ApplicationFailure.create({ type: RETENTION_INPUT_REFUSED, message: `retention run refused: ${problem}`, nonRetryable: true });
  let deleted = input.totals ?? NO_ROWS;
  let batches = input.batches ?? 0;
  const continuations = input.continuations ?? 0;
  setHandler(retentionQuery, () => ({ deleted, batches, continuations }));
  const plan = input.plan ?? (await retentionPlan());
  let batchesThisRun = 0;
  for (let kindIndex = input.kindIndex ?? 0; kindIndex < RETENTION_KINDS.length; kindIndex++) {
    const kind = RETENTION_KINDS[kindIndex];
    for (;;) {
      setCurrentDetails(`${kind}: batch ${batches + 1} of at most ${plan.batch} rows; ${batches} batches so far`);
      const result = await deleteRetentionBatch({ kind, windowMs: plan.windowsMs[kind], batch: plan.batch });
      deleted = addCounts(deleted, result.deleted);
      batches++;
      batchesThisRun++;
      if (result.rows < plan.batch) break;
      if (batchesThisRun >= RETENTION_BATCHES_PER_RUN || workflowInfo().continueAsNewSuggested) {
        return continueAsNew<typeof retentionWorkflow>({ plan, kindIndex, totals: deleted, batches, continuations: continuations + 1 });
      }
      if (plan.pauseMs > 0) await sleep(plan.pauseMs);
    }
  }
  log.info('retention run finished', { ...deleted, batches, continuations });
  setCurrentDetails(`finished: ${batches} batches`);
  return { plan, deleted, batches, continuations };
}

function inputProblem(input: RetentionInput): string | null {
  if (typeof input !== 'object' || input === null) return 'the input must be an object';
  const { kindIndex, batches, continuations } = input;
  if (kindIndex !== undefined && !(Number.isInteger(kindIndex) && kindIndex >= 0 && kindIndex < RETENTION_KINDS.length)) return 'kindIndex must name a kind';
  for (const [name, value] of [['batches', batches], ['continuations', continuations]] as const) {
    if (value !== undefined && !(Number.isInteger(value) && value >= 0)) return `${name} must be a non-negative integer`;
  }
  if (input.plan !== undefined) {
    const { batch, pauseMs, windowsMs } = input.plan;
    if (!(Number.isInteger(batch) && batch >= 1)) return 'plan.batch must be a positive integer';
    if (!(Number.isInteger(pauseMs) && pauseMs >= 0)) return 'plan.pauseMs must be a non-negative integer';
    if (RETENTION_KINDS.some((kind) => !(typeof windowsMs?.[kind] === 'number' && windowsMs[kind] > 0))) return 'plan.windowsMs must give every kind a positive window';
  }
  return null;
}

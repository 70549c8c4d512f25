import type { HistoryAndWorkflowId } from '@temporalio/client';
import { Worker, type ReplayWorkerOptions } from '@temporalio/worker';

/** One recorded history to replay, under the name its test goes by (its file). */
export interface NamedHistory extends HistoryAndWorkflowId {
  name: string;
}

/**
 * A file's recorded histories replayed on one replay Worker (`Worker.runReplayHistories`), for a
 * `test.each` to read each one's verdict: the error replay raised, or undefined. `runReplayHistory`,
 * one history at a time, starts a Worker (a thread evaluating the workflow bundle) for each:
 * 21 payout histories took 2.6 CPU-s that way and 0.5 CPU-s on one Worker (issue 42).
 *
 * The batch runs once, at the first verdict asked for; the SDK replays the histories one after
 * another and answers in their order, and a verdict for a name not in the batch throws.
 */
export function replayBatch(prepare: () => Promise<{ options: ReplayWorkerOptions; histories: NamedHistory[] }>): (name: string) => Promise<Error | undefined> {
  let verdicts: Promise<Map<string, Error | undefined>> | undefined;
  async function run(): Promise<Map<string, Error | undefined>> {
    const { options, histories } = await prepare();
    const results = new Map<string, Error | undefined>();
    let next = 0;
    for await (const result of Worker.runReplayHistories(options, histories)) {
      const expected = histories[next++];
      if (result.workflowId !== expected.workflowId) throw new Error(`replay answered for ${result.workflowId}, expected ${expected.workflowId} (${expected.name})`);
      results.set(expected.name, result.error);
    }
    if (results.size !== histories.length) throw new Error(`replay answered ${results.size} of ${histories.length} histories`);
    return results;
  }
  return async (name) => {
    verdicts ??= run();
    const results = await verdicts;
    if (!results.has(name)) throw new Error(`${name} is not in this replay batch`);
    return results.get(name);
  };
}

import { defaultPayloadConverter } from '@temporalio/common';
import type { FifoWorkflowInput } from '../../src/domain/webhook-fifo';
import { fifoStateQuery, WEBHOOK_FIFO_INPUT_REFUSED } from '../../workflows/webhook-fifo';
import { runsOf } from './support/runs-of';
import { timelineOf } from './support/timeline';
import { failed, startFifoEnv, succeeded, type FifoSend, type FifoTestEnv } from './support/webhook-fifo-env';
import { failureOf } from './support/workflow-failure';

// webhookFifoWorkflow (issue 49) on the time-skipping test server (the worker's bundle) with its queue
// and receiver in memory (support/webhook-fifo-env.ts): one send at a time in sequence order, a failing
// head retried on the schedule (its last delay past its end, ±20 %) while the ones behind it wait, a
// skip that cuts the wait short or spares a later event its send, the idle wait and its wake-up, the
// end of a queue no longer FIFO, continue-as-new with the counts, refused input. The real queue and
// receiver are test/system/webhook-fifo.test.ts's.

let h: FifoTestEnv;
beforeAll(async () => {
  h = await startFifoEnv();
}, 120_000);
afterAll(async () => {
  await h?.close();
});

const sequences = (sends: FifoSend[]) => sends.map((s) => s.sequence);
const answered = () => h.fifo.reads.map((r) => r.answered);
const ended = (input: FifoWorkflowInput, delivered: number, why: 'idle' | 'not_fifo', continuations = 0) => ({ endpointId: input.endpointId, delivered, continuations, ended: why });
/** The delay the workflow passed with an attempt is its schedule entry (the last one past the end), ±20 %. */
function expectJittered(send: FifoSend, schedule: number[]): void {
  const entry = schedule[Math.min(send.input.attempt, schedule.length) - 1];
  expect(send.input.retryDelayMs).toBeGreaterThanOrEqual(Math.floor(entry * 0.8));
  expect(send.input.retryDelayMs).toBeLessThanOrEqual(Math.ceil(entry * 1.2));
}

test('sends in sequence order, one at a time, in batches; a failing head is retried on the schedule (attempts counted on from the recorded ones) while the ones behind it wait; then idle', async () => {
  h.fifo.reset();
  // Event 3 was attempted once before (a previous run): attempts 2 to 5 here, the first answered 503
  // with a Retry-After of 90 s, which the wait follows; events 5, 6 and 9 behind it.
  h.fifo.add(3, [failed(503, () => 90_000), failed(500), failed(null), succeeded()], 1);
  for (const s of [5, 6, 9]) h.fifo.add(s, [succeeded()]);
  const input = h.input({ limits: { batch: 2, idleMs: 30_000 } });
  const handle = await h.start(input);
  expect(await h.result(input)).toEqual(ended(input, 4, 'idle'));

  expect(sequences(h.fifo.sends)).toEqual([3, 3, 3, 3, 5, 6, 9]);
  expect(h.fifo.sends.map((s) => s.input.attempt)).toEqual([2, 3, 4, 5, 1, 1, 1]);
  expect(h.fifo.mostInFlight).toBe(1);
  expect(h.fifo.deliveries.every((d) => d.status === 'succeeded')).toBe(true);
  expect(h.fifo.sends.every((s) => s.input.merchantId === 'mer_test' && s.input.environment === 'sandbox')).toBe(true);
  // Each attempt's delay: the schedule's entry for it (60 s after attempt 2, then 600 s, and 600 s
  // again past the end), jittered; the first attempts of the others, 5 s.
  for (const send of h.fifo.sends) expectJittered(send, input.retryScheduleMs);
  const head = h.fifo.sendsOf(3);
  expect(head.slice(1).some((s) => s.input.retryDelayMs !== 600_000)).toBe(true); // jittered: not the entry itself
  // The waits: what each failed attempt answered (the Retry-After, then the jittered delays), each timer
  // run out; then the idle wait. Attempt after attempt, at least that far apart in workflow time.
  const waits = [90_000, head[1].input.retryDelayMs!, head[2].input.retryDelayMs!];
  const { timers } = timelineOf(await handle.fetchHistory());
  expect(timers.map((t) => t.durationMs)).toEqual([...waits, 30_000]);
  expect(timers.every((t) => t.firedAt !== null)).toBe(true);
  for (let i = 0; i < 3; i++) {
    const gap = head[i + 1].input.attemptedAtMs - head[i].input.attemptedAtMs;
    expect(gap).toBeGreaterThanOrEqual(waits[i]);
    expect(gap).toBeLessThan(waits[i] + 10_000);
  }
  // Nothing behind it went before it succeeded.
  expect(h.fifo.sendsOf(5)[0].input.attemptedAtMs).toBeGreaterThanOrEqual(head[3].input.attemptedAtMs);
  // Batches of 2, then an empty read before the idle wait.
  expect(answered()).toEqual([[3, 5], [6, 9], []]);
  // Issue 49: each read's deliveries go out in turn in one execution, held by the failing head (its
  // further attempts one at a time), then one execution for what was behind it.
  expect(h.fifo.inTurnCalls).toEqual([[3, 5], [5], [6, 9]]);
  expect(h.fifo.reads.every((r) => r.request.limit === 2 && r.request.endpointId === input.endpointId && r.request.environment === 'sandbox')).toBe(true);
});

test('a skip during the retry wait moves on at once: no further attempt of the skipped event, the ones behind it sent', async () => {
  h.fifo.reset();
  h.fifo.add(1, failed(500)); // every attempt fails
  h.fifo.add(2, [succeeded()]);
  h.fifo.add(3, [succeeded()]);
  const input = h.input({ retryScheduleMs: [3_600_000], limits: { idleMs: 1_000 } });
  const handle = await h.start(input);
  const state = await h.retryWaitOf(handle, 1);
  expect(state).toEqual({ endpointId: input.endpointId, delivered: 0, continuations: 0, head: { deliveryId: 'whd_seq1', sequence: 1, attempt: 1, nextAttemptAt: expect.any(String), lastReason: 'HTTP 500' } });
  await h.skip(handle, 1);
  expect(await h.result(input)).toEqual(ended(input, 3, 'idle'));

  expect(sequences(h.fifo.sends)).toEqual([1, 2, 3]);
  expect(h.fifo.closedCalls).toEqual([]);
  // The hour's wait was cut short: its timer canceled, event 2 sent well within it.
  const [wait] = timelineOf(await handle.fetchHistory()).timers;
  expect(wait.durationMs).toBe(h.fifo.sends[0].input.retryDelayMs);
  expect(wait.firedAt).toBeNull();
  expect(h.fifo.sendsOf(2)[0].input.attemptedAtMs - h.fifo.sends[0].input.attemptedAtMs).toBeLessThan(60_000);
});

test('a skip for a later event of the batch spares it its attempt; the head waiting out its retry is not hurried by it', async () => {
  h.fifo.reset();
  h.fifo.add(1, [failed(500), succeeded()]);
  h.fifo.add(2, []); // never to be sent: any call fails the run (no scripted answer)
  h.fifo.add(3, [succeeded()]);
  const input = h.input({ retryScheduleMs: [3_600_000], limits: { idleMs: 1_000 } });
  const handle = await h.start(input);
  const before = await h.retryWaitOf(handle, 1);
  await h.skip(handle, 2);
  expect(await handle.query(fifoStateQuery)).toEqual(before); // still waiting on event 1
  expect(await h.result(input)).toEqual(ended(input, 3, 'idle'));

  expect(answered()[0]).toEqual([1, 2, 3]); // event 2 was in the batch read before the skip
  expect(sequences(h.fifo.sends)).toEqual([1, 1, 3]);
  expect(h.fifo.closedCalls).toEqual([]); // not even asked
  expect(h.fifo.inTurnCalls).toEqual([[1, 2, 3], [3]]); // the execution after the skip leaves event 2 out
  const [first, second] = h.fifo.sendsOf(1);
  expect(second.input.attemptedAtMs - first.input.attemptedAtMs).toBeGreaterThanOrEqual(first.input.retryDelayMs!);
  expect(timelineOf(await handle.fetchHistory()).timers[0]).toMatchObject({ durationMs: first.input.retryDelayMs, firedAt: expect.any(Number) });
});

test('an execution that ends before the read is sent (its minute spent, or an attempt deferred): the next one goes on from there, in order, none sent twice', async () => {
  h.fifo.reset();
  h.fifo.inTurnBudgetMs = 0; // each execution sends one, then its budget is spent
  for (const s of [1, 2, 4]) h.fifo.add(s, [succeeded()]);
  const input = h.input({ limits: { idleMs: 1_000 } });
  expect(await (await h.start(input), h.result(input))).toEqual(ended(input, 3, 'idle'));
  expect(h.fifo.inTurnCalls).toEqual([[1, 2, 4], [2, 4], [4]]);
  expect(sequences(h.fifo.sends)).toEqual([1, 2, 4]);
  expect(h.fifo.mostInFlight).toBe(1);
});

test('idle: with no wake-up the run completes after idleMs; a wake-up during the idle wait reads again and sends what came', async () => {
  h.fifo.reset();
  const quiet = h.input({ limits: { idleMs: 45_000 } });
  const quietRun = await h.start(quiet);
  expect(await h.result(quiet)).toEqual(ended(quiet, 0, 'idle'));
  expect(answered()).toEqual([[]]);
  expect(timelineOf(await quietRun.fetchHistory()).timers).toEqual([expect.objectContaining({ durationMs: 45_000, firedAt: expect.any(Number) })]);

  h.fifo.reset();
  h.fifo.add(1, [succeeded()]);
  const input = h.input({ limits: { idleMs: 600_000 } });
  const handle = await h.start(input);
  await h.idleAfter(handle, 2);
  expect(sequences(h.fifo.sends)).toEqual([1]);
  h.fifo.add(2, [succeeded()]);
  h.fifo.add(4, [succeeded()]);
  await h.wake(handle);
  expect(await h.result(input)).toEqual(ended(input, 3, 'idle'));
  expect(sequences(h.fifo.sends)).toEqual([1, 2, 4]);
  expect(answered()).toEqual([[1], [], [2, 4], []]);
  const { timers } = timelineOf(await handle.fetchHistory());
  expect(timers.map((t) => [t.durationMs, t.firedAt === null ? 'canceled' : 'fired'])).toEqual([
    [600_000, 'canceled'],
    [600_000, 'fired'],
  ]);
});

test('an endpoint no longer FIFO: an empty queue ends the run at once; a queue still holding deliveries is drained first', async () => {
  h.fifo.reset('unordered');
  const empty = h.input();
  const emptyRun = await h.start(empty);
  expect(await h.result(empty)).toEqual(ended(empty, 0, 'not_fifo'));
  expect(answered()).toEqual([[]]);
  expect(timelineOf(await emptyRun.fetchHistory()).timers).toEqual([]);

  h.fifo.reset('deleted');
  h.fifo.add(1, [succeeded()]);
  h.fifo.add(2, [succeeded()]);
  const input = h.input();
  await h.start(input);
  expect(await h.result(input)).toEqual(ended(input, 2, 'not_fifo'));
  expect(sequences(h.fifo.sends)).toEqual([1, 2]);
  expect(answered()).toEqual([[1, 2], []]);
});

test('continues as new after perRun deliveries (at the end of a batch), carrying the counts and the limits', async () => {
  h.fifo.reset();
  for (let s = 1; s <= 7; s++) h.fifo.add(s, [succeeded()]);
  const input = h.input({ limits: { batch: 2, perRun: 3, idleMs: 1_000 } });
  const handle = await h.start(input);
  expect(await h.result(input)).toEqual(ended(input, 7, 'idle', 2));
  expect(sequences(h.fifo.sends)).toEqual([1, 2, 3, 4, 5, 6, 7]);
  expect(answered()).toEqual([[1, 2], [3, 4], [5, 6], [7], []]);

  const runs = await runsOf(h.env.client, handle.workflowId, handle.firstExecutionRunId);
  expect(runs).toHaveLength(3);
  const carried = [];
  for (const run of runs.slice(0, 2)) {
    const events = (await h.env.client.workflow.getHandle(handle.workflowId, run.runId).fetchHistory()).events ?? [];
    const next = events.at(-1)!.workflowExecutionContinuedAsNewEventAttributes!;
    carried.push(defaultPayloadConverter.fromPayload<FifoWorkflowInput>(next.input!.payloads![0]));
  }
  expect(carried).toEqual([
    { ...input, delivered: 4, continuations: 1 },
    { ...input, delivered: 7, continuations: 2 },
  ]);
});

test('a head failing for long continues as new after attemptsPerRun attempts, its next attempt the new run\'s (numbered on from the recorded ones, after the wait)', async () => {
  h.fifo.reset();
  h.fifo.add(2, [failed(500), failed(500), failed(500), failed(500), succeeded()]);
  h.fifo.add(4, [succeeded()]);
  const input = h.input({ limits: { attemptsPerRun: 2, idleMs: 1_000 } });
  const handle = await h.start(input);
  expect(await h.result(input)).toEqual(ended(input, 2, 'idle', 2));
  expect(sequences(h.fifo.sends)).toEqual([2, 2, 2, 2, 2, 4]);
  expect(h.fifo.sends.map((s) => s.input.attempt)).toEqual([1, 2, 3, 4, 5, 1]);
  const head = h.fifo.sendsOf(2);
  // The wait after attempt 2 ran out in the first run; attempt 3 is the second run's first command.
  expect(head[2].input.attemptedAtMs - head[1].input.attemptedAtMs).toBeGreaterThanOrEqual(head[1].input.retryDelayMs!);
  const runs = await runsOf(h.env.client, handle.workflowId, handle.firstExecutionRunId);
  expect(runs).toHaveLength(3);
});

test.each([
  ['limits.attemptsPerRun', { limits: { attemptsPerRun: 0 } }, 'limits.attemptsPerRun'],
  ['an endpoint id', { endpointId: 'endpoint-1' }, 'endpointId'],
  ['limits.batch', { limits: { batch: 0 } }, 'limits.batch'],
  ['limits.perRun', { limits: { perRun: 2.5 } }, 'limits.perRun'],
  ['limits.idleMs', { limits: { idleMs: -1 } }, 'limits.idleMs'],
] as Array<[string, Partial<FifoWorkflowInput>, string]>)('malformed input (%s) is refused at once, nothing read or sent', async (_what, overrides, named) => {
  h.fifo.reset();
  h.fifo.add(1, [succeeded()]);
  const input = h.input(overrides);
  await h.start(input);
  const failure = await failureOf(h.result(input));
  expect(failure.type).toBe(WEBHOOK_FIFO_INPUT_REFUSED);
  expect(failure.nonRetryable).toBe(true);
  expect(failure.message).toContain(named);
  expect(h.fifo.reads).toHaveLength(0);
  expect(h.fifo.sends).toHaveLength(0);
});

/**
 * A FIFO endpoint's sends in one execution (activities/deliver-in-turn.ts, issue 49): one after
 * another in the order given, each stamped when it starts; it stops after a failure to retry, before
 * a send once its budget is spent, and before a delivery whose attempt threw (the first one's error
 * is thrown, for Temporal to retry the execution). The real attempts and the workflow around them are
 * test/workflows/webhook-fifo.test.ts's and test/integration/webhook-fifo*.test.ts's.
 */
import { deliverInTurn, GONE, heldBy } from '../../activities/deliver-in-turn';
import type { DeliverInTurnInput, DeliverWebhookInput, DeliverWebhookOutcome } from '../../activities/types';

const ok: DeliverWebhookOutcome = { outcome: 'succeeded', statusCode: 200, reason: null, retryInMs: null, autoDisabled: false };
const retry: DeliverWebhookOutcome = { outcome: 'failed', statusCode: 503, reason: 'HTTP 503', retryInMs: 5_000, autoDisabled: false };
const ended: DeliverWebhookOutcome = { outcome: 'failed', statusCode: null, reason: 'unsigned', retryInMs: null, autoDisabled: false };

const input = (n: number, scheduledAtMs = 1_000): DeliverInTurnInput => ({
  merchantId: 'mer_1',
  environment: 'sandbox',
  scheduledAtMs,
  attempts: Array.from({ length: n }, (_, i) => ({ deliveryId: `whd_${i + 1}`, attempt: i + 1, retryDelayMs: 100 * (i + 1) })),
});

/** A clock that moves `stepMs` on each attempt, and the attempts it was given. */
function world(answers: Array<DeliverWebhookOutcome | Error>, stepMs = 10, startMs = 5_000) {
  let clock = startMs;
  const sent: DeliverWebhookInput[] = [];
  let inFlight = 0;
  let mostInFlight = 0;
  const attempt = async (one: DeliverWebhookInput) => {
    sent.push(one);
    inFlight++;
    mostInFlight = Math.max(mostInFlight, inFlight);
    await new Promise((resolve) => setTimeout(resolve, 1));
    clock += stepMs;
    inFlight--;
    const answer = answers[sent.length - 1] ?? ok;
    if (answer instanceof Error) throw answer;
    return answer;
  };
  return { attempt, sent, now: () => clock, most: () => mostInFlight };
}

class Gone extends Error {}
const options = (w: ReturnType<typeof world>, budgetMs = 60_000) => ({ budgetMs, now: w.now, isGone: (e: unknown) => e instanceof Gone });

test('all in the order given, one at a time, each with its own attempt, delay, merchant and environment', async () => {
  const w = world([]);
  expect(await deliverInTurn(input(3), w.attempt, options(w))).toEqual({ outcomes: [ok, ok, ok], stopped: 'all' });
  expect(w.sent.map((s) => [s.deliveryId, s.attempt, s.retryDelayMs, s.merchantId, s.environment])).toEqual([
    ['whd_1', 1, 100, 'mer_1', 'sandbox'],
    ['whd_2', 2, 200, 'mer_1', 'sandbox'],
    ['whd_3', 3, 300, 'mer_1', 'sandbox'],
  ]);
  expect(w.most()).toBe(1);
  // Stamped when each starts: the clock then (later than the workflow's schedule here)...
  expect(w.sent.map((s) => s.attemptedAtMs)).toEqual([5_000, 5_010, 5_020]);
  // ...and never before the workflow scheduled it (a clock behind the workflow's).
  const behind = world([], 10, 0);
  await deliverInTurn(input(2, 1_000), behind.attempt, options(behind));
  expect(behind.sent.map((s) => s.attemptedAtMs)).toEqual([1_000, 1_000]);
});

test('stops after the first failure to retry: what is behind it is not sent; a failure with no retry is not a stop', async () => {
  const w = world([ok, ended, retry, ok]);
  expect(await deliverInTurn(input(4), w.attempt, options(w))).toEqual({ outcomes: [ok, ended, retry], stopped: 'failed' });
  expect(w.sent).toHaveLength(3);
  expect([ok, ended, retry].map(heldBy)).toEqual([false, false, true]);
});

test('the budget: no send starts once it is spent (the one under way finishes); the first one always goes', async () => {
  const w = world([], 25);
  expect(await deliverInTurn(input(5), w.attempt, options(w, 50))).toEqual({ outcomes: [ok, ok], stopped: 'budget' });
  const none = world([], 100);
  expect(await deliverInTurn(input(2), none.attempt, options(none, 0))).toEqual({ outcomes: [ok], stopped: 'budget' });
});

test('an attempt that throws: the first one throws (Temporal retries the execution); a later one ends it with what was done; a delivery gone counts as answered', async () => {
  const first = world([new Error('ENDPOINT_THROTTLED: next slot in 200 ms')]);
  await expect(deliverInTurn(input(3), first.attempt, options(first))).rejects.toThrow('ENDPOINT_THROTTLED');
  expect(first.sent).toHaveLength(1);

  const later = world([ok, new Error('deferred: the webhook database lane is busy'), ok]);
  expect(await deliverInTurn(input(3), later.attempt, options(later))).toEqual({ outcomes: [ok], stopped: 'deferred', reason: 'deferred: the webhook database lane is busy' });
  expect(later.sent).toHaveLength(2);

  const gone = world([new Gone('delivery whd_1 does not exist'), ok]);
  expect(await deliverInTurn(input(2), gone.attempt, options(gone))).toEqual({ outcomes: [GONE, ok], stopped: 'all' });
});

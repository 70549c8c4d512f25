/**
 * Issue 49, "order kept under retries and a worker kill": a FIFO endpoint (`delivery_order: "fifo"`)
 * on a real receiver, the real worker process (payments worker plus outbox relay) SIGKILLed while the
 * receiver holds one of its requests, a new worker started. The receiver answers 503 to some events'
 * first attempts. Every event is answered 2xx; the requests, in the order the receiver got them, never
 * go back in sequence (a failing event and the killed request are repeated before anything behind
 * them is sent); each event's first 2xx comes after the one before it; every delivery ends succeeded
 * and nothing waits. The same without a kill is test/system/webhook-fifo.test.ts; the figures are
 * the bench's (`npm run bench -- --only fifo`, docs/benchmarks.md).
 */
import { chargeBody, idempotencyKey, startHarness, type Harness } from '../support/harness';
import { killAllWorkers, startWorkerChild } from '../support/worker-child';
import { startTestReceiver, type ReceivedDelivery, type TestReceiver } from '../support/webhook-receiver';

const WEBHOOK_ENV = { WEBHOOK_RETRY_SCHEDULE: '300ms' };
let h: Harness;
let rx: TestReceiver;
beforeAll(async () => {
  h = await startHarness({ worker: false, webhookEnv: WEBHOOK_ENV });
  rx = await startTestReceiver();
});
afterAll(async () => {
  await killAllWorkers();
  await rx?.close();
  await h?.close();
});

const CHARGES = 20;
/** The events (by place, 0-based) whose first attempt is answered 503: two before the kill, two after. */
const FAIL_FIRST = new Set([2, 5, 11, 14]);
/** The event whose first request the receiver holds and never answers: the worker that sent it is killed meanwhile. */
const HELD = 7;

const sequenceOf = (d: ReceivedDelivery) => Number(d.headers['x-service-sequence']);
const eventOf = (d: ReceivedDelivery) => d.headers['x-service-event-id']!;

async function until<T>(what: string, fn: () => Promise<T | undefined>, ms: number): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await fn();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

test('worker SIGKILLed while a FIFO request is held: every event answered 2xx, in sequence order, the held one repeated first; all succeeded, nothing waits', async () => {
  const m = await h.merchant();
  const created = await h.request('sandbox', 'POST', '/v1/webhook-endpoints', {
    key: m.testKey,
    body: { url: `${rx.url}/${m.id}`, subscribed_events: ['transaction.created'], delivery_order: 'fifo' },
  });
  expect(created.status).toBe(201);
  const ep = created.json;
  rx.setSecrets([ep.secret]);
  const mine = (ds: ReceivedDelivery[]) => ds.filter((d) => d.path === `/hook/${m.id}`);

  // Events by their place in the order they first arrived; the 2xx actually written, per request.
  const order: string[] = [];
  const ok = new Set<ReceivedDelivery>();
  let heldArrived!: () => void;
  const held = new Promise<void>((resolve) => (heldArrived = resolve));
  rx.respond((d) => {
    if (d.path !== `/hook/${m.id}`) return { status: 200 };
    const firstTime = !order.includes(eventOf(d));
    if (firstTime) order.push(eventOf(d));
    const place = order.indexOf(eventOf(d));
    if (firstTime && FAIL_FIRST.has(place)) return { status: 503, body: 'not yet' };
    // Never answered: the worker is killed while it waits for this answer.
    if (firstTime && place === HELD) {
      heldArrived();
      return { status: 200, release: new Promise(() => undefined) };
    }
    ok.add(d);
    return { status: 200, body: 'ok' };
  });

  const worker = { env: WEBHOOK_ENV, taskQueue: h.taskQueue };
  const first = await startWorkerChild(worker);
  // The creates write their events whether or not a worker runs; the relay in the worker fans them out.
  const answers = await Promise.all(
    Array.from({ length: CHARGES }, (_, i) =>
      h.request('sandbox', 'POST', '/v1/charges', { key: m.testKey, body: chargeBody({ reference: `fifo-kill-${i}` }), headers: { 'Idempotency-Key': idempotencyKey() } }),
    ),
  );
  expect(answers.map((a) => a.status)).toEqual(Array(CHARGES).fill(200));
  await Promise.race([held, new Promise((_, reject) => setTimeout(() => reject(new Error(`event ${HELD + 1} not sent within 60 s: ${order.length} events sent`)), 60_000).unref())]);
  const killedAt = mine(rx.deliveries).length;
  await first.kill();
  const second = await startWorkerChild(worker);

  // Every event answered 2xx (the held one after its attempt outlived its heartbeat timeout on the dead worker).
  const events = await h.orm.em
    .getConnection()
    .execute<{ id: string; sequence: string }[]>(`select id, sequence from events where merchant_id = ? and type = 'transaction.created' order by sequence`, [m.id]);
  expect(events).toHaveLength(CHARGES);
  await until('every event answered 2xx', async () => (new Set(mine(rx.deliveries).filter((d) => ok.has(d)).map(eventOf)).size >= CHARGES ? true : undefined), 90_000);
  const records = await until('every delivery succeeded and nothing waiting', async () => {
    const list = await h.request('sandbox', 'GET', `/v1/webhook-endpoints/${ep.id}/deliveries?limit=100`, { key: m.testKey });
    const rows = list.json.data as Array<Record<string, any>>;
    const health = (await h.request('sandbox', 'GET', `/v1/webhook-endpoints/${ep.id}`, { key: m.testKey })).json.health;
    return rows.length === CHARGES && rows.every((r) => r.status === 'succeeded') && health.waiting_events === 0 ? rows : undefined;
  }, 30_000);
  const got = mine(rx.deliveries);
  const summary = got.map((d, i) => `#${i} seq ${sequenceOf(d)} attempt ${d.headers['x-service-attempt']}${ok.has(d) ? ' 2xx' : ''}${i === killedAt ? ' (after the kill)' : ''}`).join('\n');

  // Each request's sequence header is its event's.
  const sequenceOfEvent = new Map(events.map((e) => [e.id, Number(e.sequence)]));
  for (const d of got) expect([eventOf(d), sequenceOf(d)]).toEqual([eventOf(d), sequenceOfEvent.get(eventOf(d))]);
  // Never backwards: a request repeats the event before it (a 503, the held request) or moves on.
  const sequences = got.map(sequenceOf);
  expect({ sequences, summary }).toEqual({ sequences: [...sequences].sort((a, b) => a - b), summary });
  // First 2xx per event strictly increasing, every event there; nothing sent for an event before
  // every earlier event had its 2xx.
  const firstOk = [...new Set(got.filter((d) => ok.has(d)).map(sequenceOf))];
  expect(firstOk).toEqual(events.map((e) => Number(e.sequence)));
  const answered = new Set<number>();
  for (const d of got) {
    const earlier = events.map((e) => Number(e.sequence)).filter((s) => s < sequenceOf(d));
    expect({ request: sequenceOf(d), unanswered: earlier.filter((s) => !answered.has(s)) }).toEqual({ request: sequenceOf(d), unanswered: [] });
    if (ok.has(d)) answered.add(sequenceOf(d));
  }

  // The repeats: each failing event once more, and the held request once more after the kill (at least
  // once); a repeat is the same delivery, same bytes.
  const heldEvent = order[HELD]!;
  const copies = (id: string) => got.filter((d) => eventOf(d) === id);
  expect(copies(heldEvent)).toHaveLength(2);
  expect(got.indexOf(copies(heldEvent)[0]!)).toBeLessThan(killedAt);
  expect(got.indexOf(copies(heldEvent)[1]!)).toBeGreaterThanOrEqual(killedAt);
  expect(copies(heldEvent).map((d) => d.headers['x-service-attempt'])).toEqual(['1', '1']);
  for (const id of order) {
    const repeats = copies(id);
    expect(repeats.length).toBe(FAIL_FIRST.has(order.indexOf(id)) || id === heldEvent ? 2 : 1);
    expect(new Set(repeats.map((d) => d.headers['x-service-delivery-id'])).size).toBe(1);
    expect(new Set(repeats.map((d) => d.body)).size).toBe(1);
    expect(repeats.every((d) => d.validFor.length === 1)).toBe(true);
  }
  expect(order).toHaveLength(CHARGES);

  // Recorded: the 503s as a second attempt; the held one as its first (the repeat is the same attempt, retried).
  const attemptsOf = new Map(records.map((r) => [r.event_id as string, r.attempt_count as number]));
  for (const [place, id] of order.entries()) expect([place, attemptsOf.get(id)]).toEqual([place, FAIL_FIRST.has(place) ? 2 : 1]);
  await second.stop();
  expect(await second.exited).toEqual({ code: 0, signal: null });
}, 120_000);

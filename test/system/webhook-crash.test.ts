/**
 * At-least-once fan-out across a crash: the real worker process (payments worker plus outbox relay)
 * is SIGKILLed while charges are producing events and deliveries are being fanned out and sent. After
 * a new worker starts, every endpoint has every event; a duplicate is only ever a redelivery of the
 * same event (same event id, same delivery id, same bytes).
 */
import { setTimeout as delay } from 'node:timers/promises';
import { chargeBody, idempotencyKey, startHarness, type ApiResponse, type Harness } from '../support/harness';
import { killAllWorkers, startWorkerChild } from '../support/worker-child';
import { startTestReceiver, type ReceivedDelivery, type TestReceiver } from '../support/webhook-receiver';

let h: Harness;
let rx: TestReceiver;
beforeAll(async () => {
  h = await startHarness({ worker: false });
  rx = await startTestReceiver();
});
afterAll(async () => {
  await killAllWorkers();
  await rx?.close();
  await h?.close();
});

const CHARGES = 25;
const PATHS = ['a', 'b', 'c'];

test('worker killed during fan-out: after a restart every endpoint has every event, duplicates are redeliveries only', async () => {
  const m = await h.merchant();
  const secrets: string[] = [];
  for (const p of PATHS) {
    const res = await h.request('sandbox', 'POST', '/v1/webhook-endpoints', { key: m.testKey, body: { url: `${rx.url}/${m.id}/${p}` } });
    expect(res.status).toBe(201);
    secrets.push(res.json.secret);
  }
  rx.setSecrets(secrets);
  const mine = (ds: ReceivedDelivery[]) => ds.filter((d) => d.path.startsWith(`/hook/${m.id}/`));

  const first = await startWorkerChild({ taskQueue: h.taskQueue });
  const keys = Array.from({ length: CHARGES }, () => idempotencyKey());
  // A create cut off without an answer counts as status 0 (and is retried below).
  const create = (i: number): Promise<ApiResponse> =>
    h
      .request('sandbox', 'POST', '/v1/charges', { key: m.testKey, body: chargeBody({ reference: `fanout-${i}` }), headers: { 'Idempotency-Key': keys[i] } })
      .catch((error: Error) => ({ status: 0, headers: new Headers(), text: error.message, json: undefined }));
  const creates = keys.map((_, i) => create(i));
  // Kill it while deliveries are flowing: some sent, most not yet.
  await rx.waitFor((ds) => mine(ds).length >= 10, 60_000);
  await first.kill();
  const before = mine(rx.deliveries).length;
  // Creates that were in flight may have been cut off; the API answers them once a worker is back. A
  // create that did not answer 200 is retried with its Idempotency-Key (the same charge) until it does.
  const second = await startWorkerChild({ taskQueue: h.taskQueue });
  const answers = await Promise.all(creates);
  for (let i = 0; i < CHARGES; i++) {
    for (let retries = 0; answers[i].status !== 200 && retries < 10; retries++) {
      await delay(500);
      answers[i] = await create(i);
    }
  }
  expect(answers.map((a) => (a.status === 200 ? 200 : `${a.status} ${a.text}`))).toEqual(Array(CHARGES).fill(200));
  const chargeIds = answers.map((a) => a.json.id as string);
  expect(new Set(chargeIds).size).toBe(CHARGES);
  // Every charge succeeds (the sandbox default): two events each, transaction.created and .succeeded.
  for (const id of chargeIds) expect((await h.settled(id)).status).toBe('succeeded');

  const eventCount = async () => {
    const rows = await h.orm.em.getConnection().execute<{ n: string }[]>(`select count(*) as n from events where merchant_id = ?`, [m.id]);
    return Number(rows[0].n);
  };
  expect(await eventCount()).toBe(2 * CHARGES);
  const events = (await h.request('sandbox', 'GET', '/v1/events?after_sequence=0&limit=100', { key: m.testKey })).json.data as Array<{ id: string; sequence: number }>;
  expect(events.map((e) => e.sequence)).toEqual(Array.from({ length: 2 * CHARGES }, (_, i) => i + 1));
  const want = 2 * CHARGES * PATHS.length; // 150: every event to each of the three endpoints
  const pairs = (ds: ReceivedDelivery[]) => new Set(mine(ds).map((d) => `${d.headers['x-service-event-id']}|${d.signatures.length > 0 ? d.validFor[0] : ''}`));
  // waitFor rejects when the time is up: a missing delivery fails the test here.
  const got = await rx.waitFor((ds) => pairs(ds).size >= want, 90_000);
  expect(pairs(got).size).toBe(want);
  await second.stop();

  const received = mine(got);
  expect(before).toBeLessThan(want);
  for (const e of events) {
    for (const secret of secrets) {
      const copies = received.filter((d) => d.headers['x-service-event-id'] === e.id && d.validFor[0] === secret);
      expect(copies.length).toBeGreaterThanOrEqual(1);
      // A duplicate is a redelivery of the same delivery: same event, same delivery id, same bytes.
      expect(new Set(copies.map((d) => d.headers['x-service-delivery-id'])).size).toBe(1);
      expect(new Set(copies.map((d) => d.body)).size).toBe(1);
    }
  }
  // Nothing but this merchant's events, each signed with exactly its endpoint's secret.
  for (const d of received) expect(d.validFor).toHaveLength(1);
  const rows = await h.orm.em.getConnection().execute<{ n: string }[]>(
    `select count(*) as n from webhook_deliveries where merchant_id = ? and replay_of is null`,
    [m.id],
  );
  expect(Number(rows[0].n)).toBe(want);
}, 240_000);

test('worker killed while first attempts run as local activities (issue 19): after a restart every delivery is sent, signed and recorded', async () => {
  const m = await h.merchant();
  const res = await h.request('sandbox', 'POST', '/v1/webhook-endpoints', { key: m.testKey, body: { url: `${rx.url}/${m.id}/held` } });
  expect(res.status).toBe(201);
  expect(res.json.timeout_seconds).toBeLessThanOrEqual(10); // so the first attempt is local (src/domain/webhook-first-attempt.ts)
  rx.setSecrets([res.json.secret]);
  const mine = (ds: ReceivedDelivery[]) => ds.filter((d) => d.path === `/hook/${m.id}/held`);
  // The receiver holds every request until released: the attempts are in flight when the worker dies.
  let holding = true;
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  rx.respond((d) => (holding && d.path === `/hook/${m.id}/held` ? { status: 200, body: 'ok', release: held } : { status: 200, body: 'ok' }));

  const first = await startWorkerChild({ taskQueue: h.taskQueue });
  const N = 3;
  const chargeIds: string[] = [];
  try {
    for (let i = 0; i < N; i++) {
      const created = await h.request('sandbox', 'POST', '/v1/charges', { key: m.testKey, body: chargeBody({ reference: `held-${i}` }), headers: { 'Idempotency-Key': idempotencyKey() } });
      expect(created.status).toBe(200);
      chargeIds.push(created.json.id);
    }
    await rx.waitFor((ds) => mine(ds).length >= N, 30_000);
  } finally {
    await first.kill();
    holding = false;
    release();
  }
  const heldBefore = mine(rx.deliveries).map((d) => d.headers['x-service-delivery-id']);
  // The attempts that were in flight ran as local activities: no activity task was ever scheduled for them.
  const history = await h.temporal.client.workflow.getHandle(heldBefore[0]).fetchHistory();
  expect(history.events!.filter((e) => e.activityTaskScheduledEventAttributes)).toHaveLength(0);

  const second = await startWorkerChild({ taskQueue: h.taskQueue });
  try {
    for (const id of chargeIds) expect((await h.settled(id)).status).toBe('succeeded');
    const events = await h.orm.em.getConnection().execute<{ id: string }[]>(`select id from events where merchant_id = ?`, [m.id]);
    expect(events).toHaveLength(2 * N);
    // Every event reaches the endpoint at least once, signed with its secret.
    const got = await rx.waitFor((ds) => new Set(mine(ds).map((d) => d.headers['x-service-event-id'])).size >= 2 * N, 60_000);
    const received = mine(got);
    for (const e of events) expect(received.some((d) => d.headers['x-service-event-id'] === e.id && d.validFor.length === 1)).toBe(true);
    // And every delivery is recorded as succeeded (the held ones re-run by the new worker after the workflow task timeout).
    const settledRows = async () =>
      h.orm.em.getConnection().execute<{ status: string; attempts: number }[]>(
        `select d.status, (select count(*)::int from webhook_attempts a where a.delivery_id = d.id) as attempts from webhook_deliveries d where d.merchant_id = ? and d.replay_of is null`,
        [m.id],
      );
    let rows = await settledRows();
    for (let i = 0; i < 100 && rows.some((r) => r.status !== 'succeeded'); i++) {
      await delay(300);
      rows = await settledRows();
    }
    expect(rows).toHaveLength(2 * N);
    expect(rows.every((r) => r.status === 'succeeded' && r.attempts === 1)).toBe(true);
    // Re-run after the crash as a local activity again (its workflow task timed out on the dead worker).
    // The dead worker's send still holds the attempt (webhook_let_go: the POST's timeout and its record),
    // so the local attempt, if it comes before the hold ends, sends nothing and hands the attempt to one
    // activity, which sends it once the hold ends: one local attempt recorded, at most one activity.
    const after = await h.temporal.client.workflow.getHandle(heldBefore[0]).fetchHistory();
    expect(after.events!.filter((e) => e.markerRecordedEventAttributes?.markerName === 'core_local_activity')).toHaveLength(1);
    expect(after.events!.filter((e) => e.activityTaskScheduledEventAttributes).length).toBeLessThanOrEqual(1);
    // A held delivery sent again after the crash is the same delivery: same delivery id, same bytes;
    // once before the kill and once after it at most (at least once, never more without a fault).
    for (const id of heldBefore) {
      const copies = received.filter((d) => d.headers['x-service-delivery-id'] === id);
      expect(copies.length).toBeGreaterThanOrEqual(1);
      expect(copies.length).toBeLessThanOrEqual(2);
      expect(new Set(copies.map((d) => d.body)).size).toBe(1);
    }
  } finally {
    await second.stop();
  }
}, 120_000);

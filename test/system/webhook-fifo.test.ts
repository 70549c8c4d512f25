/**
 * Issue 49, "Ordered delivery per endpoint": `delivery_order: "fifo"` against a real receiver, with
 * real charges on the real worker and relay. One workflow per FIFO endpoint sends one event at a time
 * in sequence order; a failing event holds the ones behind it until it succeeds or is skipped
 * (`POST /v1/webhook-endpoints/{id}/skip`); the health says how many wait and since when; auto-disable,
 * re-enable, rotation and replay keep working. The order under a worker kill is the system tier's
 * (test/system/webhook-fifo-kill.test.ts); the figures are the bench's (docs/benchmarks.md).
 */
import { WorkflowNotFoundError } from '@temporalio/client';
import { fifoWorkflowId } from '../../src/domain/webhook-fifo';
import { chargeBody, idempotencyKey, startHarness, type Harness, type TestMerchant } from '../support/harness';
import { expectError } from '../support/api-errors';
import { startTestReceiver, type ReceivedDelivery, type TestReceiver } from '../support/webhook-receiver';

let h: Harness;
let rx: TestReceiver;
beforeAll(async () => {
  h = await startHarness({ webhookEnv: { WEBHOOK_RETRY_SCHEDULE: '300ms,300ms,300ms', WEBHOOK_DISABLE_AFTER_FAILURES: '8', WEBHOOK_DISABLE_AFTER: '1ms' } });
  rx = await startTestReceiver();
});
afterAll(async () => {
  await rx?.close();
  await h?.close();
});
beforeEach(() => rx.respond(() => ({ status: 200, body: 'ok' })));

async function fifoEndpoint(m: TestMerchant, extra: Record<string, unknown> = {}): Promise<Record<string, any>> {
  const res = await h.request('sandbox', 'POST', '/v1/webhook-endpoints', {
    key: m.testKey,
    body: { url: `${rx.url}/${m.id}`, subscribed_events: ['transaction.created'], delivery_order: 'fifo', ...extra },
  });
  expect(res.status).toBe(201);
  expect(res.json).toMatchObject({ delivery_order: 'fifo', health: { waiting_events: 0, waiting_since: null } });
  return res.json;
}

async function charges(m: TestMerchant, n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    const res = await h.request('sandbox', 'POST', '/v1/charges', { key: m.testKey, body: chargeBody(), headers: { 'Idempotency-Key': idempotencyKey() } });
    expect(res.status).toBe(200);
  }
}

const mine = (m: TestMerchant) => (ds: ReceivedDelivery[]) => ds.filter((d) => d.path === `/hook/${m.id}`);
const sequenceOf = (d: ReceivedDelivery) => Number(d.headers['x-service-sequence']);
const eventOf = (d: ReceivedDelivery) => d.headers['x-service-event-id']!;

/** The distinct events answered 2xx, in the order they were answered. */
const delivered = (ds: ReceivedDelivery[], ok: Set<ReceivedDelivery>) => ds.filter((d) => ok.has(d)).map(sequenceOf);

async function endpointNow(m: TestMerchant, id: string): Promise<Record<string, any>> {
  const res = await h.request('sandbox', 'GET', `/v1/webhook-endpoints/${id}`, { key: m.testKey });
  expect(res.status).toBe(200);
  return res.json;
}

async function until<T>(what: string, fn: () => Promise<T | undefined>, ms = 30_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await fn();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

test('a failing event holds the ones behind it: sends in sequence order, one at a time, the failing one retried until it succeeds; one workflow for the endpoint, none per delivery', async () => {
  const m = await h.merchant();
  const ep = await fifoEndpoint(m);
  const ok = new Set<ReceivedDelivery>();
  const seen: string[] = [];
  let inFlight = 0;
  let most = 0;
  rx.respond((d) => {
    if (d.path !== `/hook/${m.id}`) return { status: 200 };
    if (!seen.includes(eventOf(d))) seen.push(eventOf(d));
    inFlight++;
    most = Math.max(most, inFlight);
    const third = seen.indexOf(eventOf(d)) === 2;
    const fail = third && mine(m)(rx.deliveries).filter((x) => eventOf(x) === eventOf(d)).length <= 2;
    if (!fail) ok.add(d);
    return { status: fail ? 503 : 200, body: fail ? 'not yet' : 'ok', delayMs: 50, release: new Promise((r) => setTimeout(r, 50)).then(() => inFlight--) };
  });
  await charges(m, 6);
  // Six events, the third answered 503 twice first: eight requests.
  const got = mine(m)(await rx.waitFor((ds) => mine(m)(ds).length >= 8, 30_000));
  await until('every delivery recorded', async () => ((await endpointNow(m, ep.id)).health.waiting_events === 0 ? true : undefined));
  const sequences = got.map(sequenceOf);
  // Every request, failed ones included, in sequence order: nothing behind the failing event left early.
  expect(sequences).toEqual([...sequences].sort((a, b) => a - b));
  expect(delivered(got, ok)).toEqual([...new Set(sequences)]);
  expect(new Set(sequences).size).toBe(6);
  expect(got.filter((d) => sequenceOf(d) === [...new Set(sequences)][2])).toHaveLength(3);
  expect(most).toBe(1);

  const list = await h.request('sandbox', 'GET', `/v1/webhook-endpoints/${ep.id}/deliveries?limit=100`, { key: m.testKey });
  const records = list.json.data as Array<Record<string, any>>;
  expect(records).toHaveLength(6);
  for (const r of records) expect(r).toMatchObject({ status: 'succeeded', fifo_sequence: expect.any(Number) });
  expect(records.map((r) => r.attempt_count).sort()).toEqual([1, 1, 1, 1, 1, 3]);
  expect((await endpointNow(m, ep.id)).health).toMatchObject({ waiting_events: 0, waiting_since: null });

  // The endpoint's one workflow sent them; no delivery has a workflow of its own.
  const fifo = await h.temporal.client.workflow.getHandle(fifoWorkflowId(ep.id)).describe();
  expect(fifo.type).toBe('webhookFifoWorkflow');
  await expect(h.temporal.client.workflow.getHandle(records[0]!.id).describe()).rejects.toBeInstanceOf(WorkflowNotFoundError);
}, 60_000);

test('skip: the held event is skipped by sequence (audited), the ones behind it go on; the health said how many waited and since when; refusals change nothing', async () => {
  const m = await h.merchant();
  const ep = await fifoEndpoint(m);
  let stuck: number | undefined;
  rx.respond((d) => {
    if (d.path !== `/hook/${m.id}`) return { status: 200 };
    stuck ??= sequenceOf(d);
    return sequenceOf(d) === stuck ? { status: 500, body: 'broken' } : { status: 200 };
  });
  await charges(m, 4);
  const held = await until('three events waiting behind the failing one', async () => {
    const e = await endpointNow(m, ep.id);
    return e.health.waiting_events === 4 && mine(m)(rx.deliveries).length >= 2 ? e : undefined;
  });
  expect(Date.parse(held.health.waiting_since)).toBeLessThanOrEqual(Date.now());
  expect(new Set(mine(m)(rx.deliveries).map(sequenceOf))).toEqual(new Set([stuck]));

  // Refusals first: a bad body, an unknown sequence, another merchant's endpoint.
  expectError(await h.request('sandbox', 'POST', `/v1/webhook-endpoints/${ep.id}/skip`, { key: m.testKey, body: { sequence: '1' } }), 400, 'invalid_request', 'sequence');
  expectError(await h.request('sandbox', 'POST', `/v1/webhook-endpoints/${ep.id}/skip`, { key: m.testKey, body: { sequence: stuck! + 1000 } }), 404, 'not_found', 'sequence');
  const other = await h.merchant();
  expectError(await h.request('sandbox', 'POST', `/v1/webhook-endpoints/${ep.id}/skip`, { key: other.testKey, body: { sequence: stuck } }), 404, 'not_found', 'id');
  expect((await endpointNow(m, ep.id)).health.waiting_events).toBe(4);

  const skipped = await h.request('sandbox', 'POST', `/v1/webhook-endpoints/${ep.id}/skip`, { key: m.testKey, body: { sequence: stuck } });
  expect(skipped.status).toBe(200);
  expect(skipped.json).toMatchObject({ object: 'webhook_delivery', status: 'skipped', fifo_sequence: stuck, last_error: expect.stringContaining('skipped by the merchant') });
  // The retry schedule is 300 ms, but the skip does not wait for it: the rest arrive in order.
  const got = mine(m)(await rx.waitFor((ds) => new Set(mine(m)(ds).map(sequenceOf)).size >= 4, 20_000));
  const after = got.map(sequenceOf).filter((s) => s !== stuck);
  expect(after).toEqual([stuck! + 1, stuck! + 2, stuck! + 3]);
  await until('the queue empty', async () => ((await endpointNow(m, ep.id)).health.waiting_events === 0 ? true : undefined));
  expect((await endpointNow(m, ep.id)).health.waiting_since).toBeNull();

  // A repeat answers the skipped delivery and writes nothing; a delivered one is not waiting.
  const again = await h.request('sandbox', 'POST', `/v1/webhook-endpoints/${ep.id}/skip`, { key: m.testKey, body: { sequence: stuck } });
  expect(again.status).toBe(200);
  expect(again.json).toMatchObject({ id: skipped.json.id, status: 'skipped' });
  expectError(await h.request('sandbox', 'POST', `/v1/webhook-endpoints/${ep.id}/skip`, { key: m.testKey, body: { sequence: stuck! + 1 } }), 409, 'delivery_not_waiting', 'sequence');
  const audit = await h.orm.em.getConnection().execute<{ action: string; operator: string; state_before: any; state_after: any }[]>(
    `select action, operator, state_before, state_after from operator_audit where payment_id = ? order by created_at`,
    [skipped.json.id],
  );
  expect(audit).toEqual([
    { action: 'webhook_delivery.skip', operator: expect.stringMatching(/^api_key:/), state_before: expect.objectContaining({ status: 'pending', sequence: stuck }), state_after: expect.objectContaining({ status: 'skipped' }) },
  ]);
}, 60_000);

test('auto-disable skips what waits, as for any endpoint; re-enabled, new events go out in order again, and recover resends the skipped ones', async () => {
  const m = await h.merchant();
  const ep = await fifoEndpoint(m);
  let down = true;
  rx.respond((d) => (d.path !== `/hook/${m.id}` ? { status: 200 } : down ? { status: 500, body: 'down' } : { status: 200 }));
  await charges(m, 3);
  const disabled = await until('the endpoint auto-disabled', async () => {
    const e = await endpointNow(m, ep.id);
    return e.status === 'disabled' ? e : undefined;
  }, 40_000);
  expect(disabled.health.auto_disabled_at).toEqual(expect.any(String));
  await until('the waiting deliveries skipped', async () => ((await endpointNow(m, ep.id)).health.waiting_events === 0 ? true : undefined));
  const list = await h.request('sandbox', 'GET', `/v1/webhook-endpoints/${ep.id}/deliveries?limit=100`, { key: m.testKey });
  expect((list.json.data as Array<Record<string, any>>).map((d) => d.status).sort()).toEqual(['skipped', 'skipped', 'skipped']);

  down = false;
  const since = new Date(Date.now() - 60_000).toISOString();
  const enabled = await h.request('sandbox', 'PATCH', `/v1/webhook-endpoints/${ep.id}`, { key: m.testKey, body: { status: 'active' } });
  expect(enabled.json).toMatchObject({ status: 'active', delivery_order: 'fifo' });
  const before = mine(m)(rx.deliveries).length;
  await charges(m, 3);
  const fresh = mine(m)(await rx.waitFor((ds) => mine(m)(ds).length >= before + 3, 20_000)).slice(before).map(sequenceOf);
  expect(fresh).toEqual([...fresh].sort((a, b) => a - b));
  expect(new Set(fresh).size).toBe(3);

  const recovered = await h.request('sandbox', 'POST', `/v1/webhook-endpoints/${ep.id}/recover`, { key: m.testKey, body: { since } });
  expect(recovered.status).toBe(202);
  await rx.waitFor((ds) => new Set(mine(m)(ds).filter((d) => d.headers['x-service-attempt']).map(eventOf)).size >= 6, 20_000);
}, 90_000);

test('rotation and replay: a FIFO delivery is signed with both secrets in the overlap, and a replay of one is sent on its own; PATCH delivery_order is audited and refused when not a known order', async () => {
  const m = await h.merchant();
  const ep = await fifoEndpoint(m);
  const rotated = await h.request('sandbox', 'POST', `/v1/webhook-endpoints/${ep.id}/rotate-secret`, { key: m.testKey });
  expect(rotated.status).toBe(200);
  rx.setSecrets([ep.secret, rotated.json.secret]);
  await charges(m, 1);
  const [first] = mine(m)(await rx.waitFor((ds) => mine(m)(ds).length >= 1, 20_000));
  expect(first!.validFor).toEqual([rotated.json.secret, ep.secret]);

  const list = await h.request('sandbox', 'GET', `/v1/webhook-endpoints/${ep.id}/deliveries?limit=10`, { key: m.testKey });
  const original = (list.json.data as Array<Record<string, any>>)[0]!;
  await until('the delivery recorded', async () => ((await h.request('sandbox', 'GET', `/v1/webhook-deliveries/${original.id}`, { key: m.testKey })).json.status === 'succeeded' ? true : undefined));
  const replay = await h.request('sandbox', 'POST', `/v1/webhook-deliveries/${original.id}/replay`, { key: m.testKey });
  expect(replay.status).toBe(202);
  expect(replay.json).toMatchObject({ replay_of: original.id, fifo_sequence: null });
  await rx.waitFor((ds) => mine(m)(ds).length >= 2, 20_000);
  expect(mine(m)(rx.deliveries)[1]!.headers['x-service-event-id']).toBe(eventOf(first!));

  expectError(await h.request('sandbox', 'PATCH', `/v1/webhook-endpoints/${ep.id}`, { key: m.testKey, body: { delivery_order: 'lifo' } }), 400, 'invalid_request', 'delivery_order');
  const patched = await h.request('sandbox', 'PATCH', `/v1/webhook-endpoints/${ep.id}`, { key: m.testKey, body: { delivery_order: 'unordered' } });
  expect(patched.json).toMatchObject({ delivery_order: 'unordered' });
  const audit = await h.orm.em.getConnection().execute<{ state_before: any; state_after: any }[]>(
    `select state_before, state_after from operator_audit where payment_id = ? and action = 'webhook_endpoint.update' order by created_at`,
    [ep.id],
  );
  expect(audit.at(-1)).toMatchObject({ state_before: { delivery_order: 'fifo' }, state_after: { delivery_order: 'unordered' } });
  // Unordered again: the next event's delivery has a workflow of its own and no place in a queue.
  await charges(m, 1);
  await rx.waitFor((ds) => mine(m)(ds).length >= 3, 20_000);
  const latest = (await h.request('sandbox', 'GET', `/v1/webhook-endpoints/${ep.id}/deliveries?limit=1`, { key: m.testKey })).json.data[0];
  expect(latest).toMatchObject({ fifo_sequence: null, replay_of: null });
}, 60_000);

test('an event claimed by a relay that died before its fan-out holds the events behind it until it is fanned out, then all go in order', async () => {
  const m = await h.merchant();
  const ep = await fifoEndpoint(m);
  // No relay while the events are written; then the first one is left as a relay killed between its
  // claim and its fan-out leaves it (leased, no delivery written), and a relay starts again.
  await h.stopWorker();
  let first: { id: string; sequence: string } | undefined;
  try {
    await charges(m, 3);
    [first] = await h.orm.em.getConnection().execute<{ id: string; sequence: string }[]>(
      `update events set dispatch_lease_until = now() + interval '10 minutes'
       where id = (select id from events where merchant_id = ? and type = 'transaction.created' order by sequence limit 1) returning id, sequence`,
      [m.id],
    );
  } finally {
    await h.startWorker();
  }
  // The relay fans out the two behind it and wakes the endpoint's workflow; they wait.
  const conn = h.orm.em.getConnection();
  await until('the two later events fanned out', async () => {
    const [row] = await conn.execute<{ n: number }[]>(`select count(*)::int as n from webhook_deliveries where endpoint_id = ?`, [ep.id]);
    return row!.n === 2 ? true : undefined;
  });
  await new Promise((r) => setTimeout(r, 1_500));
  expect(mine(m)(rx.deliveries).map(sequenceOf)).toEqual([]);
  expect((await endpointNow(m, ep.id)).health.waiting_events).toBe(2);

  // The lease ends (as the dead relay's would): the relay fans the first one out, and all three go, in order.
  await conn.execute(`update events set dispatch_lease_until = now() - interval '1 second' where id = ?`, [first!.id]);
  const got = mine(m)(await rx.waitFor((ds) => mine(m)(ds).length >= 3, 30_000));
  expect(got.map(sequenceOf)).toEqual([Number(first!.sequence), Number(first!.sequence) + 1, Number(first!.sequence) + 2]);
  await until('the queue empty', async () => ((await endpointNow(m, ep.id)).health.waiting_events === 0 ? true : undefined));
}, 60_000);

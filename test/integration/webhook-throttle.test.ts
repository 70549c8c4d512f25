/**
 * Issue 49, "Throttle per endpoint": `max_per_second` and `max_in_flight` on an endpoint, against a
 * real receiver, with real charges on the real worker and relay. What is checked is what the throttle
 * promises, not a speed: every send reserved its own slot on one schedule spaced 1 / max_per_second,
 * no send left before its slot, no more than max_in_flight were under way at the receiver at once,
 * and waiting is not failing (every delivery succeeds at attempt 1). The rates reached are measured
 * by the bench (docs/benchmarks.md, "Webhook throttle").
 */
import { chargeBody, idempotencyKey, startHarness, type Harness, type TestMerchant } from '../support/harness';
import { expectError } from '../support/api-errors';
import { decodedJson } from '../support/payload-codec';
import { letGo } from '../../src/persistence/webhooks/webhook-let-go-store';
import { reserveSend } from '../../src/persistence/webhooks/webhook-throttle-store';
import { startTestReceiver, type ReceivedDelivery, type TestReceiver } from '../support/webhook-receiver';

let h: Harness;
let rx: TestReceiver;
beforeAll(async () => {
  h = await startHarness({ webhookEnv: { WEBHOOK_RETRY_SCHEDULE: '300ms,300ms,300ms' } });
  rx = await startTestReceiver();
});
afterAll(async () => {
  await rx?.close();
  await h?.close();
});
beforeEach(() => rx.respond(() => ({ status: 200, body: 'ok' })));

async function endpoint(m: TestMerchant, body: Record<string, unknown>): Promise<Record<string, any>> {
  const res = await h.request('sandbox', 'POST', '/v1/webhook-endpoints', {
    key: m.testKey,
    body: { url: `${rx.url}/${m.id}`, subscribed_events: ['transaction.created'], ...body },
  });
  expect(res.status).toBe(201);
  return res.json;
}

async function charges(m: TestMerchant, n: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const res = await h.request('sandbox', 'POST', '/v1/charges', { key: m.testKey, body: chargeBody(), headers: { 'Idempotency-Key': idempotencyKey() } });
    expect(res.status).toBe(200);
    ids.push(res.json.id);
  }
  return ids;
}

const mine = (m: TestMerchant) => (ds: ReceivedDelivery[]) => ds.filter((d) => d.path === `/hook/${m.id}`);

async function settled(m: TestMerchant, endpointId: string, n: number): Promise<Array<Record<string, any>>> {
  const until = Date.now() + 30_000;
  for (;;) {
    const res = await h.request('sandbox', 'GET', `/v1/webhook-endpoints/${endpointId}/deliveries?limit=100`, { key: m.testKey });
    const data = res.json.data as Array<Record<string, any>>;
    if (data.length === n && data.every((d) => d.status !== 'pending')) return data;
    if (Date.now() > until) throw new Error(`deliveries not settled: ${JSON.stringify(data.map((d) => d.status))}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

test('max_per_second 5: each send reserves its own slot, 200 ms apart on one schedule, none leaves before its slot, and none fails for waiting', async () => {
  const m = await h.merchant();
  const ep = await endpoint(m, { max_per_second: 5 });
  expect(ep).toMatchObject({ max_per_second: 5, max_in_flight: null });
  const n = 12;
  await charges(m, n);
  const got = mine(m)(await rx.waitFor((ds) => mine(m)(ds).length >= n, 30_000));
  expect(new Set(got.map((d) => d.headers['x-service-event-id'])).size).toBe(n);
  const records = await settled(m, ep.id, n);
  for (const r of records) expect(r).toMatchObject({ status: 'succeeded', attempt_count: 1 });

  const slots = await h.orm.em.getConnection().execute<{ id: string; slot: Date }[]>(
    `select id, throttle_slot_at as slot from webhook_deliveries where endpoint_id = ? order by throttle_slot_at`,
    [ep.id],
  );
  expect(slots).toHaveLength(n);
  for (let i = 1; i < slots.length; i++) expect(new Date(slots[i]!.slot).getTime() - new Date(slots[i - 1]!.slot).getTime()).toBeGreaterThanOrEqual(199);
  const slotOf = new Map(slots.map((s) => [s.id, new Date(s.slot).getTime()]));
  // The receiver's clock is the database's (one machine); a millisecond of rounding allowed.
  for (const d of got) expect(d.receivedAt).toBeGreaterThanOrEqual(slotOf.get(d.headers['x-service-delivery-id']!)! - 1);
  // So the sends span at least the schedule: 11 gaps of 200 ms.
  const times = got.map((d) => d.receivedAt).sort((a, b) => a - b);
  expect(times[n - 1]! - times[0]!).toBeGreaterThanOrEqual(((n - 1) * 1000) / 5 - (times[0]! - Math.min(...slotOf.values())) - 1);
  // Each attempt records the instant it was let go: no second of them holds more than 5, and no
  // request reached the receiver before it.
  const sent = await h.orm.em.getConnection().execute<{ delivery_id: string; sent_at: Date | null }[]>(
    `select a.delivery_id, a.sent_at from webhook_attempts a join webhook_deliveries d on d.id = a.delivery_id where d.endpoint_id = ? order by a.sent_at`,
    [ep.id],
  );
  expect(sent).toHaveLength(n);
  const sentAt = sent.map((r) => new Date(r.sent_at!).getTime());
  for (let i = 5; i < sentAt.length; i++) expect(sentAt[i]! - sentAt[i - 5]!).toBeGreaterThanOrEqual(1000);
  const sentOf = new Map(sent.map((r) => [r.delivery_id, new Date(r.sent_at!).getTime()]));
  for (const d of got) expect(d.receivedAt).toBeGreaterThanOrEqual(sentOf.get(d.headers['x-service-delivery-id']!)! - 1);
}, 60_000);

test('max_in_flight 2: a slow receiver never has more than 2 sends under way at once, and every delivery still succeeds at attempt 1', async () => {
  const m = await h.merchant();
  const ep = await endpoint(m, { max_in_flight: 2 });
  let open = 0;
  let most = 0;
  rx.respond((d) => {
    if (d.path !== `/hook/${m.id}`) return { status: 200, body: 'ok' };
    open++;
    most = Math.max(most, open);
    return { status: 200, body: 'ok', release: new Promise((r) => setTimeout(() => r((open--, undefined)), 400)) };
  });
  const n = 8;
  await charges(m, n);
  await rx.waitFor((ds) => mine(m)(ds).length >= n, 30_000);
  const records = await settled(m, ep.id, n);
  for (const r of records) expect(r).toMatchObject({ status: 'succeeded', attempt_count: 1 });
  expect(most).toBe(2);
  // The relay started each delivery without a local first attempt: it would only hand the attempt
  // over to the activity, which takes the endpoint's turn.
  const started = await h.temporal.client.workflow.getHandle(records[0]!.id).fetchHistory();
  const input = (await decodedJson(started.events![0]!.workflowExecutionStartedEventAttributes!.input!.payloads![0]!)) as { firstAttemptLocal?: boolean };
  expect(input.firstAttemptLocal).toBe(false);
  const [{ leases }] = await h.orm.em.getConnection().execute<{ leases: string }[]>(`select count(*) as leases from webhook_send_leases where endpoint_id = ?`, [ep.id]);
  expect(Number(leases)).toBe(0);
}, 60_000);

test('the sliding second, in the database\'s one-statement reservation: with max_per_second sends in the second before, a send waits until the oldest of them is a second old', async () => {
  const m = await h.merchant();
  const ep = await endpoint(m, { max_per_second: 5 });
  const conn = h.orm.em.getConnection();
  const reserve = (deliveryId: string) => reserveSend(h.orm, { deliveryId, attempt: 1, endpointId: ep.id, timeoutSeconds: 10 }, 250);
  /** Sets the endpoint's recent sends at these offsets (ms) from the database's clock now; answers that instant. */
  const recent = async (offsets: number[]) => {
    const [{ now }] = await conn.execute<{ now: Date }[]>(
      `update webhook_endpoints set throttle_next_at = null, throttle_recent = (select coalesce(array_agg(clock_timestamp() + make_interval(secs => o / 1000.0) order by o), '{}') from unnest(?::int[]) o)
       where id = ? returning clock_timestamp() as now`,
      [`{${offsets.join(',')}}`, ep.id],
    );
    const [{ first }] = await conn.execute<{ first: Date | null }[]>(`select throttle_recent[1] as first from webhook_endpoints where id = ?`, [ep.id]);
    return { now: new Date(now).getTime(), first: first ? new Date(first).getTime() : null };
  };
  // The recent sends are at most 330 ms old, so the reservation (a round trip later) still finds them
  // all in its second on a loaded machine: at -900 ms a whole npm test's 100 ms were not enough (2026-11-30).
  // Four in the second before: at once (its slot, the reservation's now: not after the call returned).
  await recent([-240, -180, -120, -60]);
  const a = await reserve('dlv_windowtest000000000001');
  expect(a).toMatchObject({ kind: 'send', leased: false });
  expect(a.kind === 'send' && a.sendAtMs).toBeLessThanOrEqual(Date.now() + 5);
  // Five: until the oldest is a second old, to the millisecond.
  const five = await recent([-300, -240, -180, -120, -60]);
  const b = await reserve('dlv_windowtest000000000002');
  expect(b).toEqual({ kind: 'send', sendAtMs: five.first! + 1000, leased: false });
  // Six (a limit lowered by PATCH): two must drop out, so the second oldest.
  await recent([-330, -300, -240, -180, -120, -60]);
  const [{ second }] = await conn.execute<{ second: Date }[]>(`select throttle_recent[2] as second from webhook_endpoints where id = ?`, [ep.id]);
  expect(await reserve('dlv_windowtest000000000003')).toEqual({ kind: 'send', sendAtMs: new Date(second).getTime() + 1000, leased: false });
  // A slot further away than a moment: come back for it, early (the slot stays reserved).
  await conn.execute(`update webhook_endpoints set throttle_next_at = clock_timestamp() + interval '5 seconds' where id = ?`, [ep.id]);
  const later = await reserve('dlv_windowtest000000000004');
  expect(later).toMatchObject({ kind: 'later', why: 'rate' });
  expect(later.kind === 'later' && later.retryInMs).toBeGreaterThan(4000);
  expect(later.kind === 'later' && later.retryInMs).toBeLessThanOrEqual(5000);
  // A plan counts nothing: only the send let go does (confirmSend, below).
  const [{ count }] = await conn.execute<{ count: number }[]>(`select array_length(throttle_recent, 1) as count from webhook_endpoints where id = ?`, [ep.id]);
  expect(count).toBe(6);
});

test('the last word before the POST: a send is counted when it is let go, and however many ask at once, no second holds more than max_per_second', async () => {
  const m = await h.merchant();
  const ep = await endpoint(m, { max_per_second: 5 });
  const conn = h.orm.em.getConnection();
  // Twelve real deliveries (their first attempts sent and recorded); the asks below are for attempt 2.
  await charges(m, 12);
  const ids = (await settled(m, ep.id, 12)).map((d) => d.id as string);
  const ask = (deliveryId: string) => letGo(h.orm, { deliveryId, attempt: 2, token: `t-${deliveryId}`, holdMs: 1000 });
  const setRecent = (offsets: number[]) =>
    conn.execute<{ oldest: Date | null }[]>(
      `update webhook_endpoints set throttle_recent = (select coalesce(array_agg(clock_timestamp() + make_interval(secs => o / 1000.0) order by o), '{}') from unnest(?::int[]) o)
       where id = ? returning throttle_recent[1] as oldest`,
      [`{${offsets.join(',')}}`, ep.id],
    );
  // Five in the second before: not yet, until the oldest is a second old (what is left of it).
  const [{ oldest }] = await setRecent([-300, -240, -180, -120, -60]);
  const held = await ask(ids[0]!);
  const askedAt = Date.now();
  expect(held).toMatchObject({ go: false, why: 'rate' });
  expect(held.go === false && held.retryInMs).toBeGreaterThan(0);
  expect(held.go === false && held.retryInMs).toBeLessThanOrEqual(new Date(oldest!).getTime() + 1000 - askedAt + 50);
  // Four: go, counted at the instant it answers.
  await setRecent([-240, -180, -120, -60]);
  const go = await ask(ids[0]!);
  expect(go.go).toBe(true);
  const [{ last }] = await conn.execute<{ last: Date }[]>(`select throttle_recent[array_length(throttle_recent, 1)] as last from webhook_endpoints where id = ?`, [ep.id]);
  expect(go.go && go.sentAtMs).toBe(new Date(last).getTime());
  // Eleven others at once on an empty second: exactly five go.
  await setRecent([]);
  const answers = await Promise.all(ids.slice(1).map(ask));
  expect(answers.filter((a) => a.go)).toHaveLength(5);
  expect(answers.filter((a) => !a.go && a.why === 'rate')).toHaveLength(6);
  // An attempt already recorded is never let go again.
  expect(await letGo(h.orm, { deliveryId: ids[1]!, attempt: 1, token: 'x', holdMs: 1000 })).toMatchObject({ go: false, why: 'recorded' });
});

test('the limits are validated, PATCHed (null removes one) and audited; refused values change nothing', async () => {
  const m = await h.merchant();
  for (const body of [{ max_per_second: 0 }, { max_per_second: 1001 }, { max_per_second: 2.5 }, { max_in_flight: 0 }, { max_in_flight: 101 }, { max_in_flight: '2' }]) {
    const param = Object.keys(body)[0];
    expectError(await h.request('sandbox', 'POST', '/v1/webhook-endpoints', { key: m.testKey, body: { url: `${rx.url}/${m.id}`, ...body } }), 400, 'invalid_request', param);
  }
  const ep = await endpoint(m, { max_per_second: 10, max_in_flight: 3 });
  expectError(await h.request('sandbox', 'PATCH', `/v1/webhook-endpoints/${ep.id}`, { key: m.testKey, body: { max_in_flight: 0 } }), 400, 'invalid_request', 'max_in_flight');
  const patched = await h.request('sandbox', 'PATCH', `/v1/webhook-endpoints/${ep.id}`, { key: m.testKey, body: { max_per_second: null, max_in_flight: 1 } });
  expect(patched.status).toBe(200);
  expect(patched.json).toMatchObject({ max_per_second: null, max_in_flight: 1 });
  const audit = await h.orm.em.getConnection().execute<{ action: string; state_before: any; state_after: any }[]>(
    `select action, state_before, state_after from operator_audit where payment_id = ? order by created_at`,
    [ep.id],
  );
  expect(audit.map((a) => a.action)).toEqual(['webhook_endpoint.create', 'webhook_endpoint.update']);
  expect(audit[0]!.state_after).toMatchObject({ max_per_second: 10, max_in_flight: 3 });
  expect(audit[1]!.state_before).toMatchObject({ max_per_second: 10, max_in_flight: 3 });
  expect(audit[1]!.state_after).toMatchObject({ max_per_second: null, max_in_flight: 1 });
});

/**
 * Webhook delivery end to end (SPEC 6.1–6.3, 4.9; INTERFACE "Webhooks"): real charges on the real
 * worker and relay, sent to a real local receiver (test/support/webhook-receiver.ts) that checks
 * signatures with its own code. Retries use a short WEBHOOK_RETRY_SCHEDULE here; the production
 * schedule and auto-disable are covered on the time-skipping server. A rotated secret keeps signing
 * for a short WEBHOOK_SECRET_OVERLAP (4 s, waited out in real time by the rotation tests); the 24 h
 * default is checked as the expiry a rotation promises (webhook-endpoints-api.test.ts).
 */
import { createHmac } from 'node:crypto';
import { chargeBody, idempotencyKey, startHarness, type Harness, type TestMerchant } from '../support/harness';
import { expectError } from '../support/api-errors';
import { startTestReceiver, type ReceivedDelivery, type TestReceiver } from '../support/webhook-receiver';
import { writeLiveCharge } from '../support/live-charge';
import { runCli } from '../support/run-cli';
import { ok } from '../support/cli-results';

let h: Harness;
let rx: TestReceiver;
beforeAll(async () => {
  h = await startHarness({ webhookEnv: { WEBHOOK_RETRY_SCHEDULE: '300ms,300ms,300ms', WEBHOOK_SECRET_OVERLAP: '4s' } });
  rx = await startTestReceiver();
});
afterAll(async () => {
  await rx?.close();
  await h?.close();
});
beforeEach(() => rx.respond(() => ({ status: 200, body: 'ok' })));

interface Endpoint {
  id: string;
  secret: string;
}

async function endpoint(m: TestMerchant, body: Record<string, unknown> = {}, env: 'sandbox' | 'live' = 'sandbox'): Promise<Endpoint> {
  const res = await h.request(env, 'POST', '/v1/webhook-endpoints', {
    key: env === 'live' ? m.liveKey : m.testKey,
    body: { url: `${rx.url}/${m.id}`, subscribed_events: ['transaction.created'], ...body },
  });
  expect(res.status).toBe(201);
  return res.json;
}

async function charge(m: TestMerchant, env: 'sandbox' | 'live' = 'sandbox', overrides: Record<string, unknown> = {}): Promise<string> {
  const res = await h.request(env, 'POST', '/v1/charges', {
    key: env === 'live' ? m.liveKey : m.testKey,
    body: chargeBody(overrides),
    headers: { 'Idempotency-Key': idempotencyKey() },
  });
  expect(res.status).toBe(200);
  return res.json.id;
}

const forMerchant = (m: TestMerchant) => (ds: ReceivedDelivery[]) => ds.filter((d) => d.path === `/hook/${m.id}`);
const ofCharge = (ds: ReceivedDelivery[], chargeId: string) => ds.filter((d) => JSON.parse(d.body).resource_id === chargeId);
const hmac = (secret: string, ts: string, body: string) => createHmac('sha256', secret).update(`${ts}.${body}`).digest('hex');

async function deliveriesOf(m: TestMerchant, endpointId: string, query = '') {
  const res = await h.request('sandbox', 'GET', `/v1/webhook-endpoints/${endpointId}/deliveries?limit=100${query}`, { key: m.testKey });
  expect(res.status).toBe(200);
  return res.json.data as Array<Record<string, any>>;
}

async function deliveryRecord(m: TestMerchant, id: string) {
  const res = await h.request('sandbox', 'GET', `/v1/webhook-deliveries/${id}`, { key: m.testKey });
  expect(res.status).toBe(200);
  return res.json;
}

/** Waits (by polling the API, the merchant's view) until a delivery is no longer pending. */
async function settledDelivery(m: TestMerchant, id: string, timeoutMs = 15_000) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const d = await deliveryRecord(m, id);
    if (d.status !== 'pending') return d;
    if (Date.now() > until) throw new Error(`delivery ${id} still pending: ${JSON.stringify(d)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

test('every event of a charge arrives signed, with all SPEC 6.1 headers and the stored bytes as body', async () => {
  const m = await h.merchant();
  const ep = await endpoint(m, { subscribed_events: [] });
  rx.setSecrets([ep.secret]);
  const id = await charge(m);
  const got = await rx.waitFor((ds) => ofCharge(ds, id).length >= 2, 20_000);
  const mine = ofCharge(got, id);
  expect(mine.map((d) => JSON.parse(d.body).type)).toEqual(['transaction.created', 'transaction.succeeded']);

  const events = await h.request('sandbox', 'GET', '/v1/events?after_sequence=0&limit=100', { key: m.testKey });
  for (const d of mine) {
    const event = JSON.parse(d.body);
    expect(d.validFor).toEqual([ep.secret]);
    expect(d.signatures).toHaveLength(1);
    expect(d.headers['content-type']).toMatch(/^application\/json/);
    expect(d.headers['x-service-timestamp']).toMatch(/^\d+$/);
    expect(Math.abs(Number(d.headers['x-service-timestamp']) - d.receivedAt / 1000)).toBeLessThan(30);
    expect(d.headers['x-service-event-id']).toBe(event.id);
    expect(d.headers['x-service-event-type']).toBe(event.type);
    expect(d.headers['x-service-delivery-id']).toMatch(/^dlv_[A-Za-z0-9]{24}$/);
    expect(d.headers['x-service-sequence']).toBe(String(event.sequence));
    expect(d.headers['x-service-attempt']).toBe('1');
    // The body is the stored event: the same bytes GET /v1/events serves, so the stored signature verifies.
    expect(events.text).toContain(d.body);
    expect(hmac(ep.secret, d.headers['x-service-timestamp'], d.body)).toBe(d.signatures[0]);
  }
  expect(mine.map((d) => Number(d.headers['x-service-sequence']))).toEqual([1, 2]);

  // The receiver's 2xx comes before the attempt is recorded: wait until both deliveries are settled.
  const listed = await deliveriesOf(m, ep.id);
  expect(listed).toHaveLength(2);
  for (const r of listed) await settledDelivery(m, r.id);
  const records = await deliveriesOf(m, ep.id);
  expect(records).toHaveLength(2);
  for (const r of records) expect(r).toMatchObject({ object: 'webhook_delivery', endpoint_id: ep.id, status: 'succeeded', attempt_count: 1 });
  const detail = await deliveryRecord(m, records[0].id);
  expect(detail.attempts).toEqual([
    expect.objectContaining({ attempt: 1, outcome: 'succeeded', status_code: 200, error: null, response_body: 'ok', duration_ms: expect.any(Number) }),
  ]);
});

test('a 500 is retried with the same event id and delivery id and a rising attempt number', async () => {
  const m = await h.merchant();
  const ep = await endpoint(m);
  rx.setSecrets([ep.secret]);
  let failures = 0;
  rx.respond((d) => (d.path.includes(m.id) && failures++ < 2 ? { status: 500, body: 'database is down' } : { status: 200, body: 'ok' }));
  const id = await charge(m);
  const got = ofCharge(await rx.waitFor((ds) => ofCharge(ds, id).length >= 3, 20_000), id);
  expect(got.map((d) => d.headers['x-service-attempt'])).toEqual(['1', '2', '3']);
  expect(new Set(got.map((d) => d.headers['x-service-event-id'])).size).toBe(1);
  expect(new Set(got.map((d) => d.headers['x-service-delivery-id'])).size).toBe(1);
  expect(new Set(got.map((d) => d.body)).size).toBe(1);
  for (const d of got) expect(d.validFor).toEqual([ep.secret]);

  const record = await settledDelivery(m, got[0].headers['x-service-delivery-id']);
  expect(record.status).toBe('succeeded');
  expect(record.attempts.map((a: { status_code: number }) => a.status_code)).toEqual([500, 500, 200]);
  expect(record.attempts[0]).toMatchObject({ outcome: 'failed', error: 'HTTP 500', response_body: 'database is down' });
  const health = (await h.request('sandbox', 'GET', `/v1/webhook-endpoints/${ep.id}`, { key: m.testKey })).json.health;
  expect(health).toMatchObject({ consecutive_failures: 0, last_failure_reason: 'HTTP 500' });
});

test('a receiver slower than timeout_seconds fails the attempt, which is retried', async () => {
  const m = await h.merchant();
  await endpoint(m, { timeout_seconds: 1 });
  let first = true;
  rx.respond((d) => {
    if (d.path.includes(m.id) && first) {
      first = false;
      return { status: 200, delayMs: 2500 };
    }
    return { status: 200 };
  });
  const id = await charge(m);
  const got = ofCharge(await rx.waitFor((ds) => ofCharge(ds, id).length >= 2, 20_000), id);
  const record = await settledDelivery(m, got[0].headers['x-service-delivery-id']);
  expect(record.status).toBe('succeeded');
  expect(record.attempts[0]).toMatchObject({ attempt: 1, outcome: 'failed', status_code: null });
  expect(record.attempts[0].error).toMatch(/timeout/);
  expect(record.attempts[0].duration_ms).toBeGreaterThanOrEqual(900);
  expect(record.attempts[0].duration_ms).toBeLessThan(2400);
  expect(record.attempts[1]).toMatchObject({ attempt: 2, outcome: 'succeeded', status_code: 200 });
});

test('a 3xx is a failure and its Location is not followed', async () => {
  const m = await h.merchant();
  await endpoint(m);
  rx.respond((d) => (d.path.includes(m.id) && d.headers['x-service-attempt'] === '1' ? { status: 302, headers: { location: `${rx.url}/elsewhere-${m.id}` } } : { status: 200 }));
  const id = await charge(m);
  const got = ofCharge(await rx.waitFor((ds) => ofCharge(ds, id).length >= 2, 20_000), id);
  expect(got.map((d) => d.headers['x-service-attempt'])).toEqual(['1', '2']);
  expect(rx.deliveries.filter((d) => d.path.startsWith('/hook/elsewhere'))).toHaveLength(0);
  const record = await settledDelivery(m, got[0].headers['x-service-delivery-id']);
  expect(record.attempts[0]).toMatchObject({ outcome: 'failed', status_code: 302 });
  expect(record.attempts[0].error).toMatch(/redirect/);
  expect(record.status).toBe('succeeded');
});

test('when the schedule runs out the delivery is failed, and the merchant sees why', async () => {
  const m = await h.merchant();
  const ep = await endpoint(m);
  rx.respond((d) => (d.path.includes(m.id) ? { status: 503, body: 'maintenance' } : { status: 200 }));
  const id = await charge(m);
  const got = ofCharge(await rx.waitFor((ds) => ofCharge(ds, id).length >= 4, 20_000), id);
  const record = await settledDelivery(m, got[0].headers['x-service-delivery-id']);
  expect(record).toMatchObject({ status: 'failed', attempt_count: 4, last_status_code: 503, next_attempt_at: null });
  expect(record.attempts.map((a: { attempt: number }) => a.attempt)).toEqual([1, 2, 3, 4]);
  const failed = await deliveriesOf(m, ep.id, '&status=failed');
  expect(failed.map((d) => d.id)).toEqual([record.id]);
  const health = (await h.request('sandbox', 'GET', `/v1/webhook-endpoints/${ep.id}`, { key: m.testKey })).json.health;
  expect(health).toMatchObject({ consecutive_failures: 4, last_failure_reason: 'HTTP 503' });
  expect(health).not.toHaveProperty('auto_disabled_at');
});

test('rotation: both signatures, current first, until the overlap ends; then only the new one', async () => {
  const m = await h.merchant();
  const ep = await endpoint(m);
  const rotated = await h.request('sandbox', 'POST', `/v1/webhook-endpoints/${ep.id}/rotate-secret`, { key: m.testKey });
  const fresh = rotated.json.secret as string;
  rx.setSecrets([fresh, ep.secret]);
  const during = await charge(m);
  const [d1] = ofCharge(await rx.waitFor((ds) => ofCharge(ds, during).length >= 1, 20_000), during);
  expect(d1.signatures).toHaveLength(2);
  expect(d1.validFor).toEqual([fresh, ep.secret]);

  const expires = Date.parse(rotated.json.previous_secret_expires_at);
  await new Promise((r) => setTimeout(r, Math.max(0, expires - Date.now() + 200)));
  const after = await charge(m);
  const [d2] = ofCharge(await rx.waitFor((ds) => ofCharge(ds, after).length >= 1, 20_000), after);
  expect(d2.signatures).toHaveLength(1);
  expect(d2.validFor).toEqual([fresh]);
});

test('two rotations within the overlap: the first old secret still signs until its own expiry, then the second until its own', async () => {
  const m = await h.merchant();
  const ep = await endpoint(m);
  const first = await h.request('sandbox', 'POST', `/v1/webhook-endpoints/${ep.id}/rotate-secret`, { key: m.testKey });
  // The second rotation at once, with a minute's overlap instead of the suite's 4 s: the first old
  // secret (a) expires first, and no delivery below has to beat a clock by less than 4 s.
  const overlapMs = h.deps.webhooks.secretOverlapMs;
  h.deps.webhooks.secretOverlapMs = 60_000;
  const second = await h.request('sandbox', 'POST', `/v1/webhook-endpoints/${ep.id}/rotate-secret`, { key: m.testKey }).finally(() => (h.deps.webhooks.secretOverlapMs = overlapMs));
  const [a, b, c] = [ep.secret, first.json.secret as string, second.json.secret as string];
  rx.setSecrets([c, b, a]);
  const during = await charge(m);
  const [d1] = ofCharge(await rx.waitFor((ds) => ofCharge(ds, during).length >= 1, 20_000), during);
  // Before the fix the second rotation dropped a at once: two signatures, c and b.
  expect(d1.validFor).toEqual([c, b, a]);
  // The endpoint's view: the overlap lasts until the last promised secret expires (b's).
  const view = await h.request('sandbox', 'GET', `/v1/webhook-endpoints/${ep.id}`, { key: m.testKey });
  expect(view.json.previous_secret_expires_at).toBe(second.json.previous_secret_expires_at);

  await new Promise((r) => setTimeout(r, Math.max(0, Date.parse(first.json.previous_secret_expires_at) - Date.now() + 200)));
  const later = await charge(m);
  const [d2] = ofCharge(await rx.waitFor((ds) => ofCharge(ds, later).length >= 1, 20_000), later);
  expect(d2.validFor).toEqual([c, b]);
  expect(d2.signatures).toHaveLength(2);
  const [{ retired }] = await h.orm.em.getConnection().execute(`select jsonb_array_length(retired_secrets) as retired from webhook_endpoints where id = ?`, [ep.id]);
  expect(retired).toBe(1); // a, kept until a third rotation drops it as expired
}, 60_000);

test('replay re-sends the same event, freshly signed, as a new delivery', async () => {
  const m = await h.merchant();
  const ep = await endpoint(m);
  rx.setSecrets([ep.secret]);
  const id = await charge(m);
  const [original] = ofCharge(await rx.waitFor((ds) => ofCharge(ds, id).length >= 1, 20_000), id);
  const originalId = original.headers['x-service-delivery-id'];
  await settledDelivery(m, originalId);
  // A later second than the original's signature, so the timestamp differs.
  while (Math.floor(Date.now() / 1000) <= Number(original.headers['x-service-timestamp'])) await new Promise((r) => setTimeout(r, 50));

  const replay = await h.request('sandbox', 'POST', `/v1/webhook-deliveries/${originalId}/replay`, { key: m.testKey });
  expect(replay.status).toBe(202);
  expect(replay.json).toMatchObject({ object: 'webhook_delivery', replay_of: originalId, status: 'pending', event_id: original.headers['x-service-event-id'] });
  expect(replay.json.id).not.toBe(originalId);
  const got = ofCharge(await rx.waitFor((ds) => ofCharge(ds, id).length >= 2, 20_000), id);
  const resent = got[1];
  expect(resent.headers['x-service-delivery-id']).toBe(replay.json.id);
  expect(resent.headers['x-service-event-id']).toBe(original.headers['x-service-event-id']);
  expect(resent.headers['x-service-attempt']).toBe('1');
  expect(resent.body).toBe(original.body);
  expect(resent.headers['x-service-timestamp']).not.toBe(original.headers['x-service-timestamp']);
  expect(resent.validFor).toEqual([ep.secret]);
  expect((await settledDelivery(m, replay.json.id)).status).toBe('succeeded');

  // With an Idempotency-Key, a retried replay request answers the first replay and sends nothing more.
  const headers = { 'Idempotency-Key': idempotencyKey() };
  const once = await h.request('sandbox', 'POST', `/v1/webhook-deliveries/${originalId}/replay`, { key: m.testKey, headers });
  const again = await h.request('sandbox', 'POST', `/v1/webhook-deliveries/${originalId}/replay`, { key: m.testKey, headers });
  expect(once.status).toBe(202);
  expect(again.status).toBe(202);
  expect(again.text).toBe(once.text);
  expect(again.headers.get('idempotent-replayed')).toBe('true');
  await rx.waitFor((ds) => ofCharge(ds, id).length >= 3, 20_000);
  expect((await settledDelivery(m, once.json.id)).status).toBe('succeeded');
  await new Promise((r) => setTimeout(r, 500));
  expect(ofCharge(rx.deliveries, id).map((d) => d.headers['x-service-delivery-id'])).toEqual([originalId, replay.json.id, once.json.id]);

  // Each replay (not the answered retry) is in the audit log, naming the key and the request.
  const audited = await h.orm.em.getConnection().execute<{ payment_id: string; action: string; operator: string; reason: string; request_id: string }[]>(
    `select payment_id, action, operator, reason, request_id from operator_audit where merchant_id = ? and action = 'webhook_delivery.replay' order by created_at`,
    [m.id],
  );
  expect(audited).toEqual([
    { payment_id: replay.json.id, action: 'webhook_delivery.replay', operator: expect.stringMatching(/^api_key:key_/), reason: `POST /v1/webhook-deliveries/${originalId}/replay`, request_id: replay.headers.get('request-id') },
    { payment_id: once.json.id, action: 'webhook_delivery.replay', operator: expect.stringMatching(/^api_key:key_/), reason: `POST /v1/webhook-deliveries/${originalId}/replay`, request_id: once.headers.get('request-id') },
  ]);

  expectError(await h.request('sandbox', 'POST', '/v1/webhook-deliveries/dlv_nope/replay', { key: m.testKey }), 404, 'not_found', 'id');
  const stranger = await h.merchant();
  expectError(await h.request('sandbox', 'POST', `/v1/webhook-deliveries/${originalId}/replay`, { key: stranger.testKey }), 404, 'not_found', 'id');
});

test('a disabled endpoint gets nothing; what it missed is listed as skipped and replayable once re-enabled', async () => {
  const m = await h.merchant();
  const ep = await endpoint(m);
  await h.request('sandbox', 'PATCH', `/v1/webhook-endpoints/${ep.id}`, { key: m.testKey, body: { status: 'disabled' } });
  const id = await charge(m);
  let skipped: Array<Record<string, any>> = [];
  const until = Date.now() + 10_000;
  while (skipped.length === 0 && Date.now() < until) {
    skipped = await deliveriesOf(m, ep.id, '&status=skipped');
    if (skipped.length === 0) await new Promise((r) => setTimeout(r, 100));
  }
  expect(skipped).toHaveLength(1);
  expect(skipped[0]).toMatchObject({ attempt_count: 0, last_error: 'endpoint disabled' });
  expect(ofCharge(rx.deliveries, id)).toHaveLength(0);
  expectError(await h.request('sandbox', 'POST', `/v1/webhook-deliveries/${skipped[0].id}/replay`, { key: m.testKey }), 409, 'endpoint_disabled');

  await h.request('sandbox', 'PATCH', `/v1/webhook-endpoints/${ep.id}`, { key: m.testKey, body: { status: 'active' } });
  const replay = await h.request('sandbox', 'POST', `/v1/webhook-deliveries/${skipped[0].id}/replay`, { key: m.testKey });
  expect(replay.status).toBe(202);
  const got = ofCharge(await rx.waitFor((ds) => ofCharge(ds, id).length >= 1, 20_000), id);
  expect(got).toHaveLength(1);
  expect(JSON.parse(got[0].body).type).toBe('transaction.created');
});

test('sandbox events go only to sandbox endpoints, live events only to live ones', async () => {
  const m = await h.merchant({ verified: true });
  const sandboxEp = await endpoint(m);
  const liveEp = await h.request('live', 'POST', '/v1/webhook-endpoints', { key: m.liveKey, body: { url: 'https://93.184.216.34/hook', subscribed_events: ['transaction.created'] } });
  expect(liveEp.status).toBe(201);
  const sandboxCharge = await charge(m, 'sandbox');
  const liveCharge = (await writeLiveCharge(h, m)).id; // the live listener moves no money (no live rail)
  await rx.waitFor((ds) => ofCharge(ds, sandboxCharge).length >= 1, 20_000);

  const rows = await h.orm.em.getConnection().execute<{ endpoint_id: string; environment: string; resource_id: string }[]>(
    `select d.endpoint_id, d.environment, e.resource_id from webhook_deliveries d join events e on e.id = d.event_id where d.merchant_id = ?
     order by d.environment`,
    [m.id],
  );
  const until = Date.now() + 10_000;
  while (rows.length < 2 && Date.now() < until) {
    await new Promise((r) => setTimeout(r, 100));
    rows.splice(0, rows.length, ...(await h.orm.em.getConnection().execute<typeof rows>(
      `select d.endpoint_id, d.environment, e.resource_id from webhook_deliveries d join events e on e.id = d.event_id where d.merchant_id = ?
       order by d.environment`,
      [m.id],
    )));
  }
  expect(rows).toEqual([
    { endpoint_id: liveEp.json.id, environment: 'live', resource_id: liveCharge },
    { endpoint_id: sandboxEp.id, environment: 'sandbox', resource_id: sandboxCharge },
  ]);
  expect(ofCharge(rx.deliveries, liveCharge)).toHaveLength(0);
  await h.request('live', 'DELETE', `/v1/webhook-endpoints/${liveEp.json.id}`, { key: m.liveKey });
});

test('an endpoint receives only the types it subscribed to', async () => {
  const m = await h.merchant();
  await endpoint(m, { subscribed_events: ['transaction.failed'] });
  const ok = await charge(m);
  const declined = await charge(m, 'sandbox', { metadata: { sandbox_outcome: 'declined' } });
  const got = await rx.waitFor((ds) => ofCharge(ds, declined).length >= 1, 20_000);
  expect(ofCharge(got, declined).map((d) => JSON.parse(d.body).type)).toEqual(['transaction.failed']);
  expect(ofCharge(got, ok)).toHaveLength(0);
  expect(forMerchant(m)(rx.deliveries).every((d) => JSON.parse(d.body).type === 'transaction.failed')).toBe(true);
});

/** Waits until every delivery of the endpoint has ended (none pending). */
async function allSettled(m: TestMerchant, endpointId: string, timeoutMs = 20_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while ((await deliveriesOf(m, endpointId, '&status=pending')).length > 0) {
    if (Date.now() > until) throw new Error(`deliveries of ${endpointId} still pending`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

test('recover since a time: every failed and skipped event since then arrives again once, freshly signed; succeeded ones and earlier events are not resent; refusals change nothing', async () => {
  const m = await h.merchant();
  const ep = await endpoint(m);
  rx.setSecrets([ep.secret]);
  const sql = <T>(text: string, params: unknown[]) => h.orm.em.getConnection().execute<T[]>(text, params);
  // The receiver fails the charges whose reference says so (their deliveries run through the whole schedule) and takes the others.
  const down = `down-${m.id}`;
  rx.respond((d) => (d.body.includes(down) ? { status: 500, body: 'down' } : { status: 200, body: 'ok' }));
  const before = await charge(m, 'sandbox', { reference: down }); // failed, but created before `since`: not resent
  await new Promise((r) => setTimeout(r, 5));
  const since = new Date().toISOString();
  const ok = await charge(m); // succeeded: not resent
  const failed = [await charge(m, 'sandbox', { reference: down }), await charge(m, 'sandbox', { reference: down })];
  await rx.waitFor((ds) => ofCharge(ds, ok).length >= 1 && [before, ...failed].every((id) => ofCharge(ds, id).length >= 4), 20_000);
  await allSettled(m, ep.id);
  // Skipped while disabled.
  await h.request('sandbox', 'PATCH', `/v1/webhook-endpoints/${ep.id}`, { key: m.testKey, body: { status: 'disabled' } });
  const skipped = await charge(m);
  const until = Date.now() + 10_000;
  while ((await deliveriesOf(m, ep.id, '&status=skipped')).length === 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 100));

  const recoveries = async () => Number((await sql<{ n: string }>(`select count(*) as n from webhook_recoveries where merchant_id = ?`, [m.id]))[0].n);
  const audits = async () => Number((await sql<{ n: string }>(`select count(*) as n from operator_audit where merchant_id = ? and action = 'webhook_endpoint.recover'`, [m.id]))[0].n);
  const recover = (body: unknown, key = m.testKey, headers: Record<string, string> = {}, id = ep.id) => h.request('sandbox', 'POST', `/v1/webhook-endpoints/${id}/recover`, { key, body, headers });
  // Refusals, each changing nothing: disabled endpoint, since in the future or too old, a bad date, another merchant's endpoint.
  expectError(await recover({ since }), 409, 'endpoint_disabled');
  await h.request('sandbox', 'PATCH', `/v1/webhook-endpoints/${ep.id}`, { key: m.testKey, body: { status: 'active' } });
  rx.respond(() => ({ status: 200, body: 'ok' })); // fixed
  expectError(await recover({ since: new Date(Date.now() + 3_600_000).toISOString() }), 422, 'recover_since_out_of_range', 'since');
  expectError(await recover({ since: new Date(Date.now() - 91 * 86_400_000).toISOString() }), 422, 'recover_since_out_of_range', 'since');
  expectError(await recover({ since: 'yesterday' }), 400, 'invalid_request', 'since');
  expectError(await recover({}), 400, 'invalid_request', 'since');
  const stranger = await h.merchant();
  expectError(await recover({ since }, stranger.testKey), 404, 'not_found', 'id');
  expect(await recoveries()).toBe(0);
  expect(await audits()).toBe(0);
  const receivedBefore = rx.deliveries.length;

  const headers = { 'Idempotency-Key': idempotencyKey() };
  const res = await recover({ since }, m.testKey, headers);
  expect(res.status).toBe(202);
  expect(res.json).toMatchObject({ object: 'webhook_recovery', endpoint_id: ep.id, since, status: 'running', livemode: false, progress: { total: 3 }, completed_at: null });
  expect(res.json.id).toMatch(/^whr_[0-9A-Za-z]{24}$/);
  const again = await recover({ since }, m.testKey, headers);
  expect(again.status).toBe(202);
  expect(again.text).toBe(res.text);
  expect(again.headers.get('idempotent-replayed')).toBe('true');

  const resent = [...failed, skipped];
  const got = await rx.waitFor((ds) => resent.every((id) => ds.slice(receivedBefore).some((d) => JSON.parse(d.body).resource_id === id)), 20_000);
  const path = `/v1/webhook-endpoints/${ep.id}/recoveries/${res.json.id}`;
  let progress = (await h.request('sandbox', 'GET', path, { key: m.testKey })).json;
  for (const stop = Date.now() + 20_000; progress.status !== 'completed' && Date.now() < stop; ) {
    await new Promise((r) => setTimeout(r, 100));
    progress = (await h.request('sandbox', 'GET', path, { key: m.testKey })).json;
  }
  expect(progress).toMatchObject({ id: res.json.id, status: 'completed', progress: { total: 3, queued: 3, succeeded: 3, failed: 0, skipped: 0, pending: 0 } });
  expect(Date.parse(progress.completed_at)).toBeGreaterThanOrEqual(Date.parse(progress.queued_at));
  await new Promise((r) => setTimeout(r, 300));
  const after = got.length === rx.deliveries.length ? got.slice(receivedBefore) : rx.deliveries.slice(receivedBefore);
  // Exactly once each, freshly signed with the endpoint's secret, as new (replay) deliveries of the same event.
  expect(after.map((d) => JSON.parse(d.body).resource_id).sort()).toEqual([...resent].sort());
  const rows = await sql<{ id: string; replay_of: string; event_id: string }>(`select id, replay_of, event_id from webhook_deliveries where recovery_id = ?`, [res.json.id]);
  expect(rows).toHaveLength(3);
  for (const d of after) {
    expect(d.validFor).toEqual([ep.secret]);
    expect(d.headers['x-service-attempt']).toBe('1');
    const row = rows.find((r) => r.id === d.headers['x-service-delivery-id'])!;
    expect(row).toMatchObject({ event_id: d.headers['x-service-event-id'], replay_of: expect.stringMatching(/^dlv_/) });
  }
  expect(await recoveries()).toBe(1);
  const [audit] = await sql<{ payment_id: string; operator: string; reason: string }>(`select payment_id, operator, reason from operator_audit where merchant_id = ? and action = 'webhook_endpoint.recover'`, [m.id]);
  expect(audit).toEqual({ payment_id: res.json.id, operator: expect.stringMatching(/^api_key:key_/), reason: `POST /v1/webhook-endpoints/${ep.id}/recover` });
  // Another merchant's key does not read it; nor does an unknown recovery id.
  expectError(await h.request('sandbox', 'GET', path, { key: stranger.testKey }), 404, 'not_found', 'rid');
  expectError(await h.request('sandbox', 'GET', `/v1/webhook-endpoints/${ep.id}/recoveries/whr_000000000000000000000000`, { key: m.testKey }), 404, 'not_found', 'rid');
  expect(ok).not.toBe(before);
}, 60_000);

test('cli webhooks recover|recovery: an operator recovers what a disabled endpoint skipped, through the same service and audit; bad input exits 1 and changes nothing', async () => {
  const m = await h.merchant();
  const ep = await endpoint(m);
  rx.setSecrets([ep.secret]);
  await h.request('sandbox', 'PATCH', `/v1/webhook-endpoints/${ep.id}`, { key: m.testKey, body: { status: 'disabled' } });
  const id = await charge(m);
  const until = Date.now() + 10_000;
  while ((await deliveriesOf(m, ep.id, '&status=skipped')).length === 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
  await h.request('sandbox', 'PATCH', `/v1/webhook-endpoints/${ep.id}`, { key: m.testKey, body: { status: 'active' } });
  const cli = (...args: string[]) => runCli(h.taskQueue, ...args);
  const flags = ['--merchant', m.id, '--env', 'test', '--reason', 'outage INC-7', '--operator', 'ops@example.com'];

  for (const bad of [
    ['webhooks', 'recover', ep.id, '--since', '1h', '--merchant', m.id, '--env', 'test', '--operator', 'ops@example.com'], // no --reason
    ['webhooks', 'recover', ep.id, '--since', 'soon', ...flags],
    ['webhooks', 'recover', ep.id, '--since', new Date(Date.now() + 3_600_000).toISOString(), ...flags], // the service's 422
    ['webhooks', 'recover', ep.id, '--since', '1h', ...flags.slice(0, 1), (await h.merchant()).id, ...flags.slice(2)], // another merchant's endpoint
  ]) {
    const result = await cli(...bad);
    expect({ code: result.code, stdout: result.stdout }).toEqual({ code: 1, stdout: '' });
    expect(result.stderr.length).toBeGreaterThan(0);
  }
  const count = async () => Number((await h.orm.em.getConnection().execute<{ n: string }[]>(`select count(*) as n from webhook_recoveries where endpoint_id = ?`, [ep.id]))[0].n);
  expect(await count()).toBe(0);

  const started = ok(await cli('webhooks', 'recover', ep.id, '--since', '1h', ...flags));
  expect(started).toMatchObject({ object: 'webhook_recovery', endpoint_id: ep.id, merchant_id: m.id, environment: 'sandbox', status: 'running', progress: { total: 1 } });
  const [got] = ofCharge(await rx.waitFor((ds) => ofCharge(ds, id).length >= 1, 20_000), id);
  expect(got.validFor).toEqual([ep.secret]);
  let shown = ok(await cli('webhooks', 'recovery', started.id));
  for (const stop = Date.now() + 20_000; shown.status !== 'completed' && Date.now() < stop; shown = ok(await cli('webhooks', 'recovery', started.id))) await new Promise((r) => setTimeout(r, 200));
  expect(shown).toMatchObject({ id: started.id, status: 'completed', progress: { total: 1, queued: 1, succeeded: 1, failed: 0, skipped: 0, pending: 0 } });
  const audit = await h.orm.em.getConnection().execute(`select action, operator, reason from operator_audit where payment_id = ?`, [started.id]);
  expect(audit).toEqual([{ action: 'webhook_endpoint.recover', operator: 'ops@example.com', reason: 'outage INC-7' }]);
  expect(await count()).toBe(1);
}, 60_000);

/**
 * Issue 49, "Verifiers merchants already have": an endpoint with `signature_scheme:
 * "standard_webhooks"` gets webhook-id, webhook-timestamp and webhook-signature, and the
 * `standardwebhooks` package (the reference library of standardwebhooks.com) verifies every delivery
 * with the endpoint's secret as the API gave it: first sends, rotation overlap (both secrets), a
 * scheme changed by PATCH (audited) and a replay. Real charges on the real worker and relay, a real
 * local receiver; WEBHOOK_SECRET_OVERLAP is 4 s here, waited out in real time.
 */
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { chargeBody, idempotencyKey, startHarness, type Harness, type TestMerchant } from '../support/harness';
import { expectError } from '../support/api-errors';
import { startTestReceiver, type ReceivedDelivery, type TestReceiver } from '../support/webhook-receiver';

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

async function endpoint(m: TestMerchant, body: Record<string, unknown>): Promise<{ id: string; secret: string; signature_scheme: string }> {
  const res = await h.request('sandbox', 'POST', '/v1/webhook-endpoints', {
    key: m.testKey,
    body: { url: `${rx.url}/${m.id}`, subscribed_events: ['transaction.created'], ...body },
  });
  expect(res.status).toBe(201);
  return res.json;
}

async function charge(m: TestMerchant): Promise<string> {
  const res = await h.request('sandbox', 'POST', '/v1/charges', { key: m.testKey, body: chargeBody(), headers: { 'Idempotency-Key': idempotencyKey() } });
  expect(res.status).toBe(200);
  return res.json.id;
}

const ofCharge = (ds: ReceivedDelivery[], chargeId: string) => ds.filter((d) => JSON.parse(d.body).resource_id === chargeId);
const firstOf = async (chargeId: string, count = 1) => ofCharge(await rx.waitFor((ds) => ofCharge(ds, chargeId).length >= count, 20_000), chargeId);

/** The library's verdict: the payload it returns, or the reason it refuses. */
function verdict(secret: string, d: ReceivedDelivery, body = d.body): unknown {
  try {
    return new Webhook(secret).verify(body, d.headers);
  } catch (error) {
    if (error instanceof WebhookVerificationError) return `refused: ${error.message}`;
    throw error;
  }
}

test('a standard_webhooks endpoint gets the three Standard Webhooks headers, and the standardwebhooks package verifies them with the secret as given', async () => {
  const m = await h.merchant();
  const ep = await endpoint(m, { signature_scheme: 'standard_webhooks' });
  expect(ep.signature_scheme).toBe('standard_webhooks');
  expect((await h.request('sandbox', 'GET', `/v1/webhook-endpoints/${ep.id}`, { key: m.testKey })).json.signature_scheme).toBe('standard_webhooks');
  const id = await charge(m);
  const [d] = await firstOf(id);
  const event = JSON.parse(d.body);
  expect(d.headers['webhook-id']).toBe(event.id);
  expect(d.headers['webhook-timestamp']).toMatch(/^\d+$/);
  expect(Math.abs(Number(d.headers['webhook-timestamp']) - d.receivedAt / 1000)).toBeLessThan(30);
  expect(d.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
  // The service's own signature headers are not sent under this scheme; the informational ones are.
  expect(d.headers['x-service-signature']).toBeUndefined();
  expect(d.headers['x-service-timestamp']).toBeUndefined();
  expect(d.headers['x-service-event-id']).toBe(event.id);
  expect(d.headers['x-service-sequence']).toBe(String(event.sequence));

  expect(verdict(ep.secret, d)).toEqual(event);
  // The checks can fail: another secret, a changed body, a changed id.
  const other = await endpoint(await h.merchant(), {});
  expect(verdict(other.secret, d)).toMatch(/^refused: /);
  expect(verdict(ep.secret, d, d.body.replace('"transaction.created"', '"transaction.succeeded"'))).toMatch(/^refused: /);
  expect(verdict(ep.secret, { ...d, headers: { ...d.headers, 'webhook-id': 'evt_other' } })).toMatch(/^refused: /);
});

test('a service_v1 endpoint (the default) is unchanged: X-Service-Signature, no webhook-* headers', async () => {
  const m = await h.merchant();
  const ep = await endpoint(m, {});
  expect(ep.signature_scheme).toBe('service_v1');
  rx.setSecrets([ep.secret]);
  const [d] = await firstOf(await charge(m));
  expect(d.validFor).toEqual([ep.secret]);
  expect(d.headers['webhook-signature']).toBeUndefined();
  expect(d.headers['webhook-id']).toBeUndefined();
  expect(verdict(ep.secret, d)).toMatch(/^refused: /);
});

test('rotation overlap: both secrets sign (current first), each verifies alone; after the overlap only the new one', async () => {
  const m = await h.merchant();
  const ep = await endpoint(m, { signature_scheme: 'standard_webhooks' });
  const rotated = await h.request('sandbox', 'POST', `/v1/webhook-endpoints/${ep.id}/rotate-secret`, { key: m.testKey });
  expect(rotated.json.signature_scheme).toBe('standard_webhooks');
  const fresh = rotated.json.secret as string;
  const during = await charge(m);
  const [d1] = await firstOf(during);
  const elements = d1.headers['webhook-signature'].split(' ');
  expect(elements).toHaveLength(2);
  expect(verdict(fresh, d1)).toMatchObject({ resource_id: during });
  expect(verdict(ep.secret, d1)).toMatchObject({ resource_id: during });
  // Current first: the first element alone verifies with the new secret.
  expect(verdict(fresh, { ...d1, headers: { ...d1.headers, 'webhook-signature': elements[0] } })).toMatchObject({ resource_id: during });

  await new Promise((r) => setTimeout(r, Math.max(0, Date.parse(rotated.json.previous_secret_expires_at) - Date.now() + 200)));
  const after = await charge(m);
  const [d2] = await firstOf(after);
  expect(d2.headers['webhook-signature'].split(' ')).toHaveLength(1);
  expect(verdict(fresh, d2)).toMatchObject({ resource_id: after });
  expect(verdict(ep.secret, d2)).toMatch(/^refused: /);
});

test('PATCH signature_scheme switches the next deliveries, audited with before and after; a scheme not offered is refused and changes nothing', async () => {
  const m = await h.merchant();
  const ep = await endpoint(m, {});
  expectError(await h.request('sandbox', 'PATCH', `/v1/webhook-endpoints/${ep.id}`, { key: m.testKey, body: { signature_scheme: 'v2' } }), 400, 'invalid_request', 'signature_scheme');
  expect((await h.request('sandbox', 'GET', `/v1/webhook-endpoints/${ep.id}`, { key: m.testKey })).json.signature_scheme).toBe('service_v1');

  const patched = await h.request('sandbox', 'PATCH', `/v1/webhook-endpoints/${ep.id}`, { key: m.testKey, body: { signature_scheme: 'standard_webhooks' } });
  expect(patched.status).toBe(200);
  expect(patched.json.signature_scheme).toBe('standard_webhooks');
  const id = await charge(m);
  const [d] = await firstOf(id);
  expect(verdict(ep.secret, d)).toMatchObject({ resource_id: id });
  expect(d.headers['x-service-signature']).toBeUndefined();

  const audit = await h.orm.em.getConnection().execute<{ action: string; state_before: { signature_scheme: string }; state_after: { signature_scheme: string }; operator: string }[]>(
    `select action, state_before, state_after, operator from operator_audit where payment_id = ? and action = 'webhook_endpoint.update' order by created_at`,
    [ep.id],
  );
  expect(audit).toHaveLength(1);
  expect(audit[0]).toMatchObject({ operator: expect.stringMatching(/^api_key:/) });
  expect(audit[0].state_before.signature_scheme).toBe('service_v1');
  expect(audit[0].state_after.signature_scheme).toBe('standard_webhooks');
});

test('a replay is signed afresh under the scheme and verifies, with the same webhook-id', async () => {
  const m = await h.merchant();
  const ep = await endpoint(m, { signature_scheme: 'standard_webhooks' });
  const id = await charge(m);
  const [original] = await firstOf(id);
  const deliveryId = original.headers['x-service-delivery-id'];
  for (let i = 0; i < 100; i++) {
    const d = await h.request('sandbox', 'GET', `/v1/webhook-deliveries/${deliveryId}`, { key: m.testKey });
    if (d.json.status !== 'pending') break;
    await new Promise((r) => setTimeout(r, 100));
  }
  while (Math.floor(Date.now() / 1000) <= Number(original.headers['webhook-timestamp'])) await new Promise((r) => setTimeout(r, 50));
  const replay = await h.request('sandbox', 'POST', `/v1/webhook-deliveries/${deliveryId}/replay`, { key: m.testKey });
  expect(replay.status).toBe(202);
  const [, resent] = await firstOf(id, 2);
  expect(resent.headers['webhook-id']).toBe(original.headers['webhook-id']);
  expect(resent.headers['webhook-timestamp']).not.toBe(original.headers['webhook-timestamp']);
  expect(resent.headers['webhook-signature']).not.toBe(original.headers['webhook-signature']);
  expect(verdict(ep.secret, resent)).toMatchObject({ resource_id: id });
});

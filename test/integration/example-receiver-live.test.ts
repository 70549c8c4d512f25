/**
 * The example receiver (examples/receiver) against the real service: real signed deliveries from the
 * worker, and gap recovery through the real GET /v1/events. The endpoint subscribes to
 * `transaction.succeeded` only, so every `transaction.created` in between is a gap in the sequence the
 * receiver must fill from the API.
 */
import { createReceiver, type EventSource, type Receiver } from '../../examples/receiver/receiver';
import type { WebhookEvent } from '../../src/verifier';
import { freePort } from '../../src/support/free-port';
import { chargeBody, idempotencyKey, startHarness, type Harness } from '../support/harness';

let h: Harness;
let receiver: Receiver | undefined;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await new Promise((resolve) => (receiver ? receiver.close(resolve) : resolve(undefined)));
  await h?.close();
});

test('processes every event once, in sequence order, recovering the unsubscribed ones from the API', async () => {
  const m = await h.merchant();
  const processed: Array<{ sequence: number; type: string; source: EventSource }> = [];
  const errors: unknown[] = [];
  const port = await freePort();
  const ep = await h.request('sandbox', 'POST', '/v1/webhook-endpoints', {
    key: m.testKey,
    body: { url: `http://127.0.0.1:${port}/webhooks`, subscribed_events: ['transaction.succeeded'] },
  });
  expect(ep.status).toBe(201);
  receiver = createReceiver({
    secrets: [ep.json.secret],
    apiBase: h.urls.sandbox,
    apiKey: m.testKey,
    lastSequence: 0,
    onEvent: (e: WebhookEvent, source) => void processed.push({ sequence: e.sequence, type: e.type, source }),
    onError: (e) => void errors.push(e),
  });
  await new Promise<void>((resolve) => receiver!.listen(port, '127.0.0.1', resolve));

  for (let i = 0; i < 3; i++) {
    const res = await h.request('sandbox', 'POST', '/v1/charges', { key: m.testKey, body: chargeBody({ reference: `rx-${i}` }), headers: { 'Idempotency-Key': idempotencyKey() } });
    expect(res.status).toBe(200);
  }
  const until = Date.now() + 30_000;
  while (processed.length < 6 && Date.now() < until) {
    await new Promise((r) => setTimeout(r, 100));
    await receiver.idle();
  }
  expect(errors).toEqual([]);
  expect(processed.map((p) => p.sequence)).toEqual([1, 2, 3, 4, 5, 6]);
  // Never delivered (not subscribed), so only recovery can have brought the created events. A
  // succeeded event may come either way: deliveries can arrive out of order, and a later one's gap
  // recovery may fetch it first (its own delivery is then a duplicate, dropped).
  const created = processed.filter((p) => p.type === 'transaction.created');
  expect(created).toHaveLength(3);
  for (const p of created) expect(p.source).toBe('recovery');
  expect(processed.filter((p) => p.type === 'transaction.succeeded' && p.source === 'webhook').length).toBeGreaterThanOrEqual(1);
});

import { freePort } from '../../src/support/free-port';
import { chargeBody, idempotencyKey, startHarness, type Harness } from '../support/harness';
import { startWorkerChild, type WorkerChild } from '../support/worker-child';

let h: Harness;
let worker: WorkerChild | undefined;
let metricsPort: number;

beforeAll(async () => {
  h = await startHarness({ worker: false });
  metricsPort = await freePort();
  worker = await startWorkerChild({ taskQueue: h.taskQueue, env: { WORKER_METRICS_PORT: String(metricsPort), HOST: '127.0.0.1' } });
});
afterAll(async () => {
  await worker?.stop();
  await h?.close();
});

test('the API counts requests by route template and charge creates by result', async () => {
  const merchant = await h.merchant();
  const key = idempotencyKey();
  const first = await h.request('sandbox', 'POST', '/v1/charges', { key: merchant.testKey, body: chargeBody(), headers: { 'Idempotency-Key': key } });
  expect(first.status).toBe(200);
  const again = await h.request('sandbox', 'POST', '/v1/charges', { key: merchant.testKey, body: chargeBody(), headers: { 'Idempotency-Key': key } });
  expect(again.headers.get('idempotent-replayed')).toBe('true');
  await h.request('sandbox', 'GET', `/v1/charges/${first.json.id}`, { key: merchant.testKey });

  const text = await h.deps.metrics!.registry.metrics();
  expect(text).toContain('payments_charge_creates_total{environment="sandbox",result="accepted"} 1');
  expect(text).toContain('payments_charge_creates_total{environment="sandbox",result="replayed"} 1');
  expect(text).toContain('payments_http_requests_total{method="GET",route="/v1/charges/:id",status="200",environment="sandbox"} 1');
  expect(text).not.toContain(first.json.id);
});

test('the worker exports the SDK metrics and the charge transitions it wrote', async () => {
  const merchant = await h.merchant();
  const created = await h.request('sandbox', 'POST', '/v1/charges', {
    key: merchant.testKey,
    body: chargeBody({ metadata: { sandbox_outcome: 'declined' } }),
    headers: { 'Idempotency-Key': idempotencyKey() },
  });
  expect((await h.settled(created.json.id)).status).toBe('failed');
  // The SDK exports on an interval (1 s): read until the counter shows up, a bounded number of times.
  let text = '';
  for (let i = 0; i < 50 && !/payments_charge_transitions\{[^}]*to="failed"/.test(text); i++) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
  }
  expect(text).toMatch(/payments_charge_transitions\{[^}]*failure_class="declined"[^}]*to="failed"[^}]*\} 1|payments_charge_transitions\{[^}]*to="failed"[^}]*failure_class="declined"[^}]*\} 1/);
  expect(text).toContain('temporal_workflow_completed');
});

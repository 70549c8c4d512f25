/**
 * Issue 18: the alerts and the dashboard work on what the processes really export. The API's `/metrics`
 * (serveMetrics, with the metrics sampler of src/runtime/monitor-sampler.ts reading the suite's real
 * PostgreSQL and Temporal) and the real worker process's Prometheus endpoint (workers/main.ts,
 * WORKER_METRICS_PORT) are scraped after the worker has done work, failures included (a workflow task
 * that fails, an activity and a local activity that fail), so that every metric the SDK exports only
 * once it happens is there; then every metric name used by monitoring/prometheus/rules.yml and
 * monitoring/grafana/payments-dashboard.json must be among the exported series. The sampler's own
 * figures are checked against what was done, and against a database and a Temporal that never answer.
 */
import http from 'node:http';
import net from 'node:net';
import { Client as TemporalClient, Connection } from '@temporalio/client';
import { openOrm } from '../../src/persistence/orm';
import { startMonitorSampler, type MonitorSampler } from '../../src/runtime/monitor-sampler';
import { HELD_FOR_REVIEW_REASON } from '../../src/domain/attention-reason';
import { SA } from '../../src/domain/search-attributes';
import { resolveCharge } from '../../src/services/resolve-charge';
import { createLogger } from '../../src/support/logger';
import { createApiMetrics, serveMetrics } from '../../src/support/metrics';
import { freePort } from '../../src/support/free-port';
import { newId } from '../../src/support/new-id';
import { startDeliveryWorkflow } from '../../src/temporal/delivery-start';
import { countNeedingAttention, REVIEW_OVERDUE_AFTER_MS } from '../../src/temporal/needing-attention-counts';
import { taskQueueFor } from '../../src/temporal/task-queues';
import { decidePayoutUpdate } from '../../workflows/payout-messages';
import { fundMerchant } from '../support/fund-merchant';
import { chargeBody, idempotencyKey, MTN_GH, startHarness, type Harness } from '../support/harness';
import { dashboardQueries, exportedNames, metricNames, ruleQueries, withoutGrafanaVariables } from '../support/monitoring-queries';
import { until } from '../support/webhook-fixtures';
import { startTestReceiver, type TestReceiver } from '../support/webhook-receiver';
import { startWorkerChild, type WorkerChild } from '../support/worker-child';

let h: Harness;
let worker: WorkerChild | undefined;
let receiver: TestReceiver | undefined;
let sampler: MonitorSampler | undefined;
let apiMetricsServer: http.Server | undefined;
let workerMetricsUrl: string;
let apiMetricsUrl: string;
const probes: string[] = [];
/** The indeterminate charge of doWork, resolved at the end (so no later file sees it wait for an operator). */
let indeterminateId: string | undefined;
/** The payout of doWork held for review, rejected at the end. */
let heldPayoutId: string | undefined;

beforeAll(async () => {
  h = await startHarness({ worker: false });
  const workerPort = await freePort();
  workerMetricsUrl = `http://127.0.0.1:${workerPort}/metrics`;
  worker = await startWorkerChild({ taskQueue: h.taskQueue, env: { WORKER_METRICS_PORT: String(workerPort), HOST: '127.0.0.1', WEBHOOK_RETRY_SCHEDULE: '1h' } });
  // As src/main.ts wires it: the sampler's gauges on the API's registry, served by serveMetrics. A long
  // interval: the test samples when it wants to.
  // A longer deadline than production's 5 s: on a loaded 2-core CI machine a Temporal count query
  // has taken 9 s, and a source past its deadline drops its gauges (the test checks that on its own).
  sampler = startMonitorSampler({ registry: h.deps.metrics!.registry, orm: h.orm, temporal: h.temporal, taskQueue: h.taskQueue, log: createLogger('silent'), deadlineMs: 20_000 }, 3_600_000);
  const apiPort = await freePort();
  apiMetricsServer = serveMetrics(h.deps.metrics!, apiPort, '127.0.0.1');
  await new Promise((resolve) => apiMetricsServer!.once('listening', resolve));
  apiMetricsUrl = `http://127.0.0.1:${apiPort}/metrics`;
  receiver = await startTestReceiver();
});

afterAll(async () => {
  if (indeterminateId) await resolveCharge(h.orm, h.temporal, indeterminateId, { as: 'failed', operator: 'monitoring-test', reason: 'test cleanup' }).catch(() => undefined);
  if (heldPayoutId) {
    await h.temporal.client.workflow
      .getHandle(heldPayoutId)
      .executeUpdate(decidePayoutUpdate, { args: [{ decision: 'reject', reason: 'test cleanup', operator: 'monitoring-test' }] })
      .catch(() => undefined);
  }
  await sampler?.stop();
  await new Promise((resolve) => (apiMetricsServer ? apiMetricsServer.close(resolve) : resolve(undefined)));
  for (const id of probes) await h?.temporal.client.workflow.getHandle(id).terminate('monitoring test probe').catch(() => undefined);
  await receiver?.close();
  await worker?.stop();
  await h?.close();
});

const scrape = async (url: string) => {
  const response = await fetch(url);
  expect(response.status).toBe(200);
  return response.text();
};

/** `name{labels} value` lines of one metric, as [labels, value]. */
function samples(text: string, name: string): Array<[string, number]> {
  return [...text.matchAll(new RegExp(`^${name}\\{([^}]*)\\} (\\S+)$`, 'gm'))].map((m) => [m[1], Number(m[2])]);
}
const value = (text: string, name: string, labels: string) => samples(text, name).find(([l]) => l === labels)?.[1];

let work: Promise<void> | undefined;
/**
 * Work done once for both tests: a webhook endpoint whose receiver always fails (each delivery stays
 * pending, waiting for its retry in an hour), a charge that succeeds and an indeterminate one (marked
 * NeedsAttention at once: the partner did not answer), and a payout held for review (NeedsAttention
 * too, but kind="review": the normal flow).
 */
function doWork(): Promise<void> {
  work ??= (async () => {
    const merchant = await h.merchant();
    receiver!.respond(() => ({ status: 500, body: 'down' }));
    const endpoint = await h.request('sandbox', 'POST', '/v1/webhook-endpoints', {
      key: merchant.testKey,
      body: { url: `${receiver!.url}/${merchant.id}`, subscribed_events: ['transaction.created'] },
    });
    expect(endpoint.status).toBe(201);
    const succeeded = await h.request('sandbox', 'POST', '/v1/charges', { key: merchant.testKey, body: chargeBody(), headers: { 'Idempotency-Key': idempotencyKey() } });
    expect(succeeded.status).toBe(200);
    const indeterminate = await h.request('sandbox', 'POST', '/v1/charges', {
      key: merchant.testKey,
      body: chargeBody({ metadata: { sandbox_outcome: 'indeterminate' } }),
      headers: { 'Idempotency-Key': idempotencyKey() },
    });
    expect(indeterminate.status).toBe(504);
    indeterminateId = indeterminate.json.error.transaction_id;
    await fundMerchant(h, merchant.id, 1_000_000);
    const payout = await h.request('sandbox', 'POST', '/v1/payouts', {
      key: merchant.testKey,
      headers: { 'Idempotency-Key': idempotencyKey() },
      body: { amount: 100_000, currency: 'GHS', channel: 'mobile_money', momo_network_id: MTN_GH, recipient: { identifier: '233241234567', name: 'Kofi Boateng' }, reference: 'ops', metadata: { sandbox_outcome: 'held_for_review' } },
    });
    expect([payout.status, payout.json.status]).toEqual([200, 'held_for_review']);
    heldPayoutId = payout.json.id;
    await receiver!.waitFor((ds) => ds.length >= 2, 30_000);
  })();
  return work;
}

test('the sampler exports what PostgreSQL and Temporal hold: needing attention (trouble apart from review), webhook backlog, relay lag, pollers', async () => {
  await doWork();
  let text = '';
  const wanted = () => ({
    needingAttention: value(text, 'payments_needing_attention', 'type="charge",environment="sandbox",kind="trouble"'),
    payoutReview: value(text, 'payments_needing_attention', 'type="payout",environment="sandbox",kind="review"'),
    payoutTrouble: value(text, 'payments_needing_attention', 'type="payout",environment="sandbox",kind="trouble"'),
    webhookBacklog: value(text, 'payments_webhook_backlog', 'environment="sandbox"'),
    workflowPollers: value(text, 'payments_task_queue_pollers', `environment="sandbox",task_queue="${h.taskQueue}-sandbox",task_type="workflow"`),
    oldestPendingAge: value(text, 'payments_webhook_oldest_pending_age_seconds', 'environment="sandbox"'),
    up: samples(text, 'payments_monitor_up'),
  });
  await until('the sampled gauges', async () => {
    await sampler!.sample();
    text = await scrape(apiMetricsUrl);
    const now = wanted();
    return (
      now.needingAttention === 1 &&
      now.payoutReview === 1 &&
      (now.webhookBacklog ?? 0) >= 2 &&
      (now.workflowPollers ?? 0) >= 1 &&
      // Deployment-wide figures: the suite's database is shared with other files of this jest worker,
      // whose deliveries may be due; this file's own two wait for their retry in an hour.
      now.oldestPendingAge !== undefined &&
      now.oldestPendingAge >= 0
    );
  }, 90_000).catch((error: Error) => {
    throw new Error(`${error.message}; last sample: ${JSON.stringify(wanted())}`);
  });
  expect(value(text, 'payments_monitor_up', 'source="postgres"')).toBe(1);
  expect(value(text, 'payments_monitor_up', 'source="temporal"')).toBe(1);
  // Every cell is exported, zero included: 5 payment types x 2 environments of kind trouble, and the
  // payouts' 2 of kind review; 4 queues (2 payments, 2 webhook delivery) x 2 task types.
  expect(samples(text, 'payments_needing_attention')).toHaveLength(12);
  expect(value(text, 'payments_needing_attention', 'type="charge",environment="live",kind="trouble"')).toBe(0);
  // The held payout is a review, not trouble; it has not waited 4 hours.
  expect(value(text, 'payments_needing_attention', 'type="payout",environment="sandbox",kind="trouble"')).toBe(0);
  expect(samples(text, 'payments_payout_reviews_overdue')).toEqual([
    ['environment="sandbox"', 0],
    ['environment="live"', 0],
  ]);
  // Seen from over 4 hours later, it is overdue.
  const later = await countNeedingAttention(h.temporal.client, h.taskQueue, 20_000, Date.now() + REVIEW_OVERDUE_AFTER_MS + 60_000);
  expect(later.overdueReviews).toEqual([
    { environment: 'sandbox', count: 1 },
    { environment: 'live', count: 0 },
  ]);
  // Its reason is a search attribute the Temporal UI can show (registered on the dev server).
  const held = (await h.temporal.client.workflow.getHandle(heldPayoutId!).describe()).typedSearchAttributes;
  expect([held.get(SA.NeedsAttention), held.get(SA.NeedsAttentionReason)]).toEqual([true, HELD_FOR_REVIEW_REASON]);
  expect(samples(text, 'payments_task_queue_pollers')).toHaveLength(8);
  expect(value(text, 'payments_task_queue_pollers', `environment="live",task_queue="${h.taskQueue}-live",task_type="activity"`)).toBeGreaterThanOrEqual(1);
  // Each environment's webhook delivery queue (issue 19) is counted too.
  expect(value(text, 'payments_task_queue_pollers', `environment="sandbox",task_queue="${h.taskQueue}-sandbox-webhooks",task_type="workflow"`)).toBeGreaterThanOrEqual(1);
  expect(samples(text, 'payments_relay_lag_seconds').map(([labels]) => labels).sort()).toEqual(
    ['charge_start', 'dispute_start', 'payout_start', 'refund_start', 'webhook_delivery_start', 'webhook_outbox'].map((r) => `relay="${r}"`),
  );
  for (const [, seconds] of samples(text, 'payments_relay_lag_seconds')) expect(seconds).toBeGreaterThanOrEqual(0);
  // Exported for live too. Not zero across the suite: other files (the live partner rail's) leave
  // live deliveries to unreachable public endpoints on their retry timers in the shared database.
  expect(value(text, 'payments_webhook_backlog', 'environment="live"')).toBeGreaterThanOrEqual(0);
  // Figures only: no id, key or URL in any label.
  expect(text).not.toMatch(/txn_|mer_|we_|dlv_|svc_test_|127\.0\.0\.1/);
});

test('every metric name the alert rules and the dashboard use is exported by the API or the worker', async () => {
  await doWork();
  const sandboxQueue = taskQueueFor(h.taskQueue, 'sandbox');
  const merchant = await h.merchant();
  // Metrics the SDK exports only once something happened: a workflow task that fails (an unknown
  // workflow type; it also evicts the run from the cache), a local activity that fails (a charge run for
  // a charge that does not exist) and an activity that fails (a delivery run for a delivery that does not exist).
  const unknown = `monitoring-probe-${newId('charge')}`;
  await h.temporal.client.workflow.start('noSuchWorkflow', { workflowId: unknown, taskQueue: sandboxQueue, args: [] });
  probes.push(unknown);
  const missingCharge = newId('charge');
  await h.temporal.client.workflow.start('chargeWorkflow', { workflowId: missingCharge, taskQueue: sandboxQueue, args: [{ chargeId: missingCharge }] });
  await startDeliveryWorkflow(h.temporal.client, h.taskQueue, {
    deliveryId: newId('delivery'),
    eventId: newId('event'),
    eventType: 'transaction.succeeded',
    endpointId: newId('webhookEndpoint'),
    merchantId: merchant.id,
    environment: 'sandbox',
    retryScheduleMs: [1_000],
  });

  const used = new Map<string, string[]>();
  for (const { where, expr } of [...ruleQueries(), ...dashboardQueries()]) {
    for (const name of metricNames(withoutGrafanaVariables(expr))) used.set(name, [...(used.get(name) ?? []), where]);
  }
  expect(used.size).toBeGreaterThan(20);

  // The SDK exports on an interval: scrape until every name is there, a bounded number of times.
  let missing: string[] = [];
  await until(
    'every metric name of monitoring/ in the scrapes',
    async () => {
      await sampler!.sample();
      const exported = new Set([...exportedNames(await scrape(apiMetricsUrl)), ...exportedNames(await scrape(workerMetricsUrl))]);
      missing = [...used.keys()].filter((name) => !exported.has(name));
      return missing.length === 0;
    },
    45_000,
  ).catch(() => undefined);
  expect(missing.map((name) => `${name} (used by ${used.get(name)!.join(', ')})`)).toEqual([]);
});

/** A TCP server that accepts connections and never answers: a dependency that hangs. */
async function silentServer(): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

test("the worker exports each partner's breaker and health (issue 46), read from PostgreSQL by its breaker loop", async () => {
  const has = (text: string, name: string, ...labels: string[]) => samples(text, name).filter(([l]) => labels.every((label) => l.split(',').includes(label)));
  let text = '';
  await until('the partner gauges in the worker scrape', async () => has((text = await scrape(workerMetricsUrl)), 'partner_breaker_state', 'partner="aggregator"').length === 4, 30_000);
  for (const partner of ['momo', 'aggregator']) {
    // Each state exported, 1 for the breaker's state only (an earlier file of this database may have moved it).
    const states = Object.fromEntries(has(text, 'partner_breaker_state', `partner="${partner}"`).map(([labels, v]) => [/state="(\w+)"/.exec(labels)![1], v]));
    expect(Object.keys(states).sort()).toEqual(['closed', 'drained', 'half_open', 'open']);
    expect(Object.values(states).sort()).toEqual([0, 0, 0, 1]);
    expect(has(text, 'partner_calls_window', `partner="${partner}"`)).toHaveLength(1);
    expect(has(text, 'partner_error_ratio', `partner="${partner}"`)).toHaveLength(1);
    expect(has(text, 'partner_latency_seconds', `partner="${partner}"`, 'quantile="0.95"')).toHaveLength(1);
  }
});

test('a database and a Temporal server that never answer: payments_monitor_up 0 within the deadline, no stale gauges, and the sampler goes on', async () => {
  const silent = await silentServer();
  const orm = await openOrm(`postgresql://monitor:unused@127.0.0.1:${silent.port}/payments`, { poolMax: 2, timeouts: { lockTimeoutMs: 1_000, statementTimeoutMs: 1_000, acquireTimeoutMs: 1_500 } });
  const connection = Connection.lazy({ address: `127.0.0.1:${silent.port}`, connectTimeout: '1 second' });
  const temporal = { connection, client: new TemporalClient({ connection, namespace: 'default' }), namespace: 'default' };
  const metrics = createApiMetrics();
  const blind = startMonitorSampler({ registry: metrics.registry, orm, temporal, taskQueue: h.taskQueue, log: createLogger('silent'), deadlineMs: 1_000 }, 3_600_000);
  try {
    for (let pass = 0; pass < 2; pass++) {
      const started = Date.now();
      await blind.sample();
      expect(Date.now() - started).toBeLessThan(3_000);
      const text = await metrics.registry.metrics();
      expect(value(text, 'payments_monitor_up', 'source="postgres"')).toBe(0);
      expect(value(text, 'payments_monitor_up', 'source="temporal"')).toBe(0);
      for (const name of ['payments_needing_attention', 'payments_payout_reviews_overdue', 'payments_webhook_backlog', 'payments_webhook_oldest_pending_age_seconds', 'payments_relay_lag_seconds', 'payments_task_queue_pollers']) {
        expect({ name, series: samples(text, name) }).toEqual({ name, series: [] });
      }
    }
  } finally {
    await blind.stop();
    await connection.close().catch(() => undefined);
    await orm.close().catch(() => undefined);
    await silent.close();
  }
});

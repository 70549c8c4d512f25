/**
 * What a merchant sees when a send is refused by the SSRF rules (issue 9, Low): a generic reason that
 * names no resolved internal address, stored on the attempt, the delivery and the endpoint; the detail
 * goes to the server's log, without the URL's path or query. And in live, sends go only to ports 443,
 * 8443 and 1024 and up (the URL checked again at send time). The attempt runs in MockActivityEnvironment
 * against the real database.
 */
import { MockActivityEnvironment } from '@temporalio/testing';
import type { LogLevel, LogMetadata, Logger } from '@temporalio/common';
import { createWebhookActivities } from '../../activities/webhooks';
import type { DeliverWebhookOutcome } from '../../activities/types';
import { createMerchant } from '../../src/persistence/merchants/merchant-store';
import type { Caller } from '../../src/services/context';
import { createEndpoint } from '../../src/services/webhook-endpoints';
import { newId, randomBase62 } from '../../src/support/new-id';
import { policyAgents } from '../../src/webhooks/policy-agents';
import { startHarness, type Harness } from '../support/harness';
import { emitEvent, sandboxCaller } from '../support/webhook-fixtures';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ worker: false, resolve: async (host) => (host === 'hooks.example.com' ? ['93.184.216.34'] : []) });
});
afterAll(() => h?.close());

const sql = <T = Record<string, any>>(query: string, params: unknown[] = []) => h.orm.em.getConnection().execute<T[]>(query, params);

/** A Logger that keeps every entry. */
function capturingLogger(): Logger & { entries: Array<{ level: LogLevel; message: string; meta?: LogMetadata }> } {
  const entries: Array<{ level: LogLevel; message: string; meta?: LogMetadata }> = [];
  const at = (level: LogLevel) => (message: string, meta?: LogMetadata) => void entries.push({ level, message, meta });
  return { entries, log: (level, message, meta) => void entries.push({ level, message, meta }), trace: at('TRACE'), debug: at('DEBUG'), info: at('INFO'), warn: at('WARN'), error: at('ERROR') };
}

/** An endpoint registered with a good URL, then pointed (as DNS rebinding would) at `url`, and a pending delivery to it. */
async function deliveryTo(caller: Caller, url: string): Promise<{ deliveryId: string; endpointId: string }> {
  const { endpoint } = await createEndpoint(h.deps, caller, { url: 'https://hooks.example.com/hook', subscribed_events: ['transaction.failed'] });
  await sql(`update webhook_endpoints set url = ? where id = ?`, [url, endpoint.id]);
  const eventId = await emitEvent(h.orm, caller, 'transaction.succeeded');
  const deliveryId = newId('delivery');
  await sql(
    `insert into webhook_deliveries (id, endpoint_id, event_id, merchant_id, environment, event_type, status, created_at, updated_at, workflow_started_at)
     values (?, ?, ?, ?, ?, 'transaction.succeeded', 'pending', date_trunc('milliseconds', now()), now(), now())`,
    [deliveryId, endpoint.id, eventId, caller.merchantId, caller.environment],
  );
  return { deliveryId, endpointId: endpoint.id };
}

async function attempt(deliveryId: string, logger: Logger): Promise<DeliverWebhookOutcome> {
  const activities = createWebhookActivities({ orm: h.orm, secretBox: h.deps.secretBox, agents: policyAgents(h.deps.webhooks), disableRule: h.deps.webhooks.disableRule });
  return new MockActivityEnvironment({ attempt: 1, startToCloseTimeoutMs: 90_000 }, { logger }).run(activities.deliverWebhook, { deliveryId, attempt: 1, attemptedAtMs: Date.now(), retryDelayMs: 60_000 });
}

async function stored(deliveryId: string, endpointId: string): Promise<string[]> {
  const [a] = await sql<{ error: string }>(`select error from webhook_attempts where delivery_id = ?`, [deliveryId]);
  const [d] = await sql<{ last_error: string }>(`select last_error from webhook_deliveries where id = ?`, [deliveryId]);
  const [e] = await sql<{ last_failure_reason: string }>(`select last_failure_reason from webhook_endpoints where id = ?`, [endpointId]);
  return [a.error, d.last_error, e.last_failure_reason];
}

test('a host resolving to an internal address: the merchant sees a generic reason; the log has the detail, not the URL secrets', async () => {
  const { caller } = await sandboxCaller(h.orm);
  // `*.localhost` resolves to loopback without DNS (RFC 6761); it is not an exempt host.
  const { deliveryId, endpointId } = await deliveryTo(caller, `https://internal-${randomBase62(4).toLowerCase()}.localhost:8443/hook?token=s3cret`);
  const logger = capturingLogger();
  const outcome = await attempt(deliveryId, logger);
  const generic = 'the host does not resolve to a public internet address; webhook sends to it are refused';
  expect(outcome).toMatchObject({ outcome: 'failed', statusCode: null, reason: generic });
  for (const text of await stored(deliveryId, endpointId)) {
    expect(text).toBe(generic);
    expect(text).not.toMatch(/127\.0\.0\.1|::1/);
  }
  const refusal = logger.entries.find((e) => e.message === 'webhook send refused by the SSRF rules');
  expect(refusal?.level).toBe('WARN');
  expect(refusal?.meta).toMatchObject({ deliveryId, endpointId, environment: 'sandbox', address: '127.0.0.1' });
  expect(JSON.stringify(logger.entries)).not.toMatch(/s3cret|token|\/hook/);
});

test('live: a send to a port other than 443, 8443 or 1024 and up is refused at send time, before any lookup', async () => {
  const m = await createMerchant(h.orm, `Ports ${randomBase62(6)}`);
  const caller: Caller = { merchantId: m.id, environment: 'live', keyId: m.liveKey.id, merchantVerified: true };
  const { deliveryId, endpointId } = await deliveryTo(caller, 'https://hooks.example.com:25/hook');
  const logger = capturingLogger();
  const outcome = await attempt(deliveryId, logger);
  expect(outcome).toMatchObject({ outcome: 'failed', statusCode: null, reason: 'live webhook sends go only to port 443, 8443 or 1024 and above' });
  expect(await stored(deliveryId, endpointId)).toEqual(Array(3).fill('live webhook sends go only to port 443, 8443 or 1024 and above'));
  expect(logger.entries.find((e) => e.message === 'webhook send refused by the SSRF rules')?.meta).toMatchObject({ host: 'hooks.example.com', port: 25 });
});

test('live: registering a URL on a refused port is 400 invalid_webhook_url; the sandbox takes it', async () => {
  const m = await h.merchant({ verified: true });
  const live = await h.request('live', 'POST', '/v1/webhook-endpoints', { key: m.liveKey, body: { url: 'https://hooks.example.com:22/hook' } });
  expect(live.status).toBe(400);
  expect(live.json.error).toMatchObject({ code: 'invalid_webhook_url', param: 'url', message: 'live webhook URLs must use port 443, 8443 or 1024 and above' });
  for (const url of ['https://hooks.example.com/hook', 'https://hooks.example.com:8443/hook', 'https://hooks.example.com:9000/hook']) {
    expect((await h.request('live', 'POST', '/v1/webhook-endpoints', { key: m.liveKey, body: { url } })).status).toBe(201);
  }
  expect((await h.request('sandbox', 'POST', '/v1/webhook-endpoints', { key: m.testKey, body: { url: 'https://hooks.example.com:22/hook' } })).status).toBe(201);
});

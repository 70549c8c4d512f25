/**
 * Issue 49, ordered delivery: `cli webhooks skip we_… --sequence N` skips the event a FIFO endpoint's
 * queue is held on through the API's service (src/services/skip-fifo-event.ts), audited with the
 * operator and reason as `webhook_delivery.skip`; the events behind it go on. The API's skip is
 * test/system/webhook-fifo.test.ts's. With Temporal away at the skip, the skip stands and the queue
 * moves on at the held event's next attempt (the CLI warns on stderr).
 */
import net, { type AddressInfo } from 'node:net';
import { Client, Connection } from '@temporalio/client';
import { skipFifoEvent } from '../../src/services/skip-fifo-event';
import { chargeBody, idempotencyKey, startHarness, type Harness, type TestMerchant } from '../support/harness';
import { ok, refused } from '../support/cli-results';
import { runCli } from '../support/run-cli';
import { startTestReceiver, type ReceivedDelivery, type TestReceiver } from '../support/webhook-receiver';

let h: Harness;
let rx: TestReceiver;
beforeAll(async () => {
  h = await startHarness({ webhookEnv: { WEBHOOK_RETRY_SCHEDULE: '300ms' } });
  rx = await startTestReceiver();
});
afterAll(async () => {
  await rx?.close();
  await h?.close();
});

const sequenceOf = (d: ReceivedDelivery) => Number(d.headers['x-service-sequence']);

async function waiting(m: TestMerchant, id: string): Promise<number> {
  const res = await h.request('sandbox', 'GET', `/v1/webhook-endpoints/${id}`, { key: m.testKey });
  expect(res.status).toBe(200);
  return res.json.health.waiting_events as number;
}

async function until(what: string, fn: () => Promise<boolean>, ms = 20_000): Promise<void> {
  for (const end = Date.now() + ms; !(await fn()); await new Promise((r) => setTimeout(r, 100))) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
  }
}

/** A FIFO endpoint whose receiver answers 500 to its first event, and one more event behind it (two waiting). */
async function heldQueue(): Promise<{ m: TestMerchant; ep: string; stuck: number; mine: (ds: ReceivedDelivery[]) => ReceivedDelivery[] }> {
  const m = await h.merchant();
  const created = await h.request('sandbox', 'POST', '/v1/webhook-endpoints', {
    key: m.testKey,
    body: { url: `${rx.url}/${m.id}`, subscribed_events: ['transaction.created'], delivery_order: 'fifo' },
  });
  expect(created.status).toBe(201);
  const ep = created.json.id as string;
  const mine = (ds: ReceivedDelivery[]) => ds.filter((d) => d.path === `/hook/${m.id}`);
  let stuck: number | undefined;
  rx.respond((d) => {
    if (d.path !== `/hook/${m.id}`) return { status: 200 };
    stuck ??= sequenceOf(d);
    return sequenceOf(d) === stuck ? { status: 500, body: 'broken' } : { status: 200 };
  });
  for (let i = 0; i < 2; i++) {
    expect((await h.request('sandbox', 'POST', '/v1/charges', { key: m.testKey, body: chargeBody(), headers: { 'Idempotency-Key': idempotencyKey() } })).status).toBe(200);
  }
  await until('two events waiting behind the failing one', async () => (await waiting(m, ep)) === 2 && mine(rx.deliveries).length >= 1);
  return { m, ep, stuck: stuck!, mine };
}

test('cli webhooks skip: an operator skips the held event by its sequence (audited with operator and reason), the one behind it goes on; bad input and refusals exit 1 and change nothing', async () => {
  const { m, ep, stuck, mine } = await heldQueue();

  const cli = (...args: string[]) => runCli(h.taskQueue, ...args);
  const flags = ['--merchant', m.id, '--env', 'test', '--reason', 'receiver rejects event INC-9', '--operator', 'ops@example.com'];
  const skips = () => h.orm.em.getConnection().execute(`select action, operator, reason, state_before from operator_audit where merchant_id = ? and action = 'webhook_delivery.skip'`, [m.id]);
  for (const [bad, message] of [
    [['webhooks', 'skip', ep, '--merchant', m.id, '--env', 'test', '--operator', 'ops@example.com', '--sequence', String(stuck)], /--reason is required/],
    [['webhooks', 'skip', ep, ...flags], /--sequence is required/],
    [['webhooks', 'skip', ep, '--sequence', 'first', ...flags], /--sequence is required/],
    [['webhooks', 'skip', ep, '--sequence', String(stuck + 1000), ...flags], /No delivery of event sequence/], // the service's 404
    [['webhooks', 'skip', ep, '--sequence', String(stuck), ...flags.slice(0, 1), (await h.merchant()).id, ...flags.slice(2)], new RegExp(`No webhook endpoint ${ep}`)], // another merchant's endpoint
  ] as Array<[string[], RegExp]>) {
    refused(await cli(...bad), message);
  }
  expect(await skips()).toEqual([]);
  expect(await waiting(m, ep)).toBe(2);

  const skipped = ok(await cli('webhooks', 'skip', ep, '--sequence', String(stuck), ...flags));
  expect(skipped).toMatchObject({ object: 'webhook_delivery', endpoint_id: ep, status: 'skipped', fifo_sequence: stuck, merchant_id: m.id, environment: 'sandbox' });
  // The event behind it is sent at once and answered 2xx: nothing waits.
  await until('the next event delivered', async () => mine(rx.deliveries).some((d) => sequenceOf(d) > stuck) && (await waiting(m, ep)) === 0);
  const next = mine(rx.deliveries).find((d) => sequenceOf(d) > stuck)!;
  expect(await skips()).toEqual([{ action: 'webhook_delivery.skip', operator: 'ops@example.com', reason: 'receiver rejects event INC-9', state_before: expect.objectContaining({ status: 'pending', sequence: stuck }) }]);

  // A repeat prints the skipped delivery and writes nothing; a delivered one is not waiting.
  expect(ok(await cli('webhooks', 'skip', ep, '--sequence', String(stuck), ...flags))).toMatchObject({ id: skipped.id, status: 'skipped' });
  refused(await cli('webhooks', 'skip', ep, '--sequence', String(sequenceOf(next)), ...flags), /not waiting/);
  expect(await skips()).toHaveLength(1);
}, 30_000);

test('Temporal away at the skip: the skip is recorded and answered (workflowTold false); the queue moves on at the held event\'s next attempt, without sending it again', async () => {
  const { m, ep, stuck, mine } = await heldQueue();
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  const connection = Connection.lazy({ address: `127.0.0.1:${port}` });
  const away = { connection, client: new Client({ connection, namespace: 'default' }), namespace: 'default' };
  const actor = { operator: 'ops@example.com', reason: 'receiver rejects the event', requestId: 'req_test_fifo_away' };
  const skip = await skipFifoEvent({ ...h.deps, temporal: away, temporalDeadlineMs: 1_000 }, { merchantId: m.id, environment: 'sandbox' }, ep, stuck, actor);
  expect(skip).toMatchObject({ workflowTold: false, delivery: { status: 'skipped', fifoSequence: stuck } });
  const sentBefore = mine(rx.deliveries).filter((d) => sequenceOf(d) === stuck).length;
  await until('the event behind it delivered', async () => mine(rx.deliveries).some((d) => sequenceOf(d) > stuck) && (await waiting(m, ep)) === 0);
  // At most the one attempt that was under way when the skip was written; none after it.
  expect(mine(rx.deliveries).filter((d) => sequenceOf(d) === stuck).length).toBeLessThanOrEqual(sentBefore + 1);
  await connection.close();
}, 30_000);

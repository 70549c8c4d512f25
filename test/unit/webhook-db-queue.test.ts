/**
 * The webhook database queue (src/webhooks/db-queue.ts, issue 32): records of sends that are done go
 * before new attempts' reads, every wait is bounded and ends on cancellation, and each environment
 * has its own lane (src/runtime/worker-capacity.ts, webhookDbLanes).
 */
import { DbLane, DbQueueTimeout, environmentOfQueue, WebhookDbQueues } from '../../src/webhooks/db-queue';
import { webhookDbLanes } from '../../src/runtime/worker-capacity';

/** A step that runs until released. */
function held(): { done: Promise<void>; release(): void } {
  let release!: () => void;
  const done = new Promise<void>((resolve) => (release = resolve));
  return { done, release };
}

test('a record waiting goes before reads that waited longer', async () => {
  const lane = new DbLane(1);
  const first = held();
  const order: string[] = [];
  const running = lane.run('read', () => first.done, { waitMs: 5_000 });
  const waiting = [
    lane.run('read', async () => void order.push('read 1'), { waitMs: 5_000 }),
    lane.run('read', async () => void order.push('read 2'), { waitMs: 5_000 }),
    lane.run('record', async () => void order.push('record 1'), { waitMs: 5_000 }),
    lane.run('record', async () => void order.push('record 2'), { waitMs: 5_000 }),
  ];
  expect(lane.waiting('record')).toBe(2);
  expect(lane.waiting('read')).toBe(2);
  first.release();
  await Promise.all([running, ...waiting]);
  expect(order).toEqual(['record 1', 'record 2', 'read 1', 'read 2']);
  expect(lane.active()).toBe(0);
});

test('a wait is bounded: DbQueueTimeout, and the lane serves the next waiter', async () => {
  const lane = new DbLane(1);
  const first = held();
  const running = lane.run('read', () => first.done, { waitMs: 1_000 });
  await expect(lane.run('read', async () => 'never', { waitMs: 50 })).rejects.toBeInstanceOf(DbQueueTimeout);
  expect(lane.waiting()).toBe(0);
  const next = lane.run('read', async () => 'served', { waitMs: 1_000 });
  first.release();
  await running;
  await expect(next).resolves.toBe('served');
});

test('a wait ends at once on cancellation, and a step cancelled before it began does not run', async () => {
  const lane = new DbLane(1);
  const first = held();
  const running = lane.run('read', () => first.done, { waitMs: 1_000 });
  const controller = new AbortController();
  let ran = false;
  const waiting = lane.run('read', async () => void (ran = true), { waitMs: 10_000, signal: controller.signal });
  controller.abort(new Error('cancelled'));
  await expect(waiting).rejects.toThrow('cancelled');
  first.release();
  await running;
  await expect(lane.run('read', async () => void (ran = true), { waitMs: 10, signal: controller.signal })).rejects.toThrow('cancelled');
  expect(ran).toBe(false);
});

test('a full sandbox lane does not hold a live step', async () => {
  const queues = new WebhookDbQueues({ sandbox: 1, live: 1 });
  const stuck = held();
  const sandbox = queues.run('sandbox', 'record', () => stuck.done, { waitMs: 1_000 });
  await expect(queues.run('live', 'read', async () => 'live ran', { waitMs: 50 })).resolves.toBe('live ran');
  await expect(queues.run('sandbox', 'read', async () => 'sandbox ran', { waitMs: 50 })).rejects.toBeInstanceOf(DbQueueTimeout);
  stuck.release();
  await sandbox;
});

test('WEBHOOK_DB_CONNECTIONS split by environment: live the larger half, a one-environment worker all of it', () => {
  expect(webhookDbLanes(4)).toEqual({ live: 2, sandbox: 2 });
  expect(webhookDbLanes(5)).toEqual({ live: 3, sandbox: 2 });
  expect(webhookDbLanes(1, ['live'])).toEqual({ live: 1 });
  expect(webhookDbLanes(4, ['sandbox'])).toEqual({ sandbox: 4 });
  expect(() => webhookDbLanes(1)).toThrow(/at least 2 for a worker of both environments/);
});

test('the environment of an attempt from its task queue', () => {
  expect(environmentOfQueue('payments-live-webhooks')).toBe('live');
  expect(environmentOfQueue('payments-sandbox-webhooks')).toBe('sandbox');
  expect(environmentOfQueue('live-sandbox-webhooks')).toBe('sandbox');
  expect(environmentOfQueue('payments')).toBe('sandbox');
});

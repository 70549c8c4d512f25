import { defaultProcessWorkflowCache, RESERVED_CONNECTIONS, workerCapacity, type WorkerCapacity } from '../../src/runtime/worker-capacity';
import { workerQueueSettings } from '../../src/runtime/worker-settings';
import { loadConfig } from '../../src/config';

const CACHE = 1000;
const totals = (c: WorkerCapacity) => c.localActivitySlots + c.activitySlots;
/** Every Worker's slots added up, per kind. */
const queueSum = (c: WorkerCapacity, kind: 'localActivitySlots' | 'activitySlots') => Object.values(c.queues).reduce((n, q) => n + q[kind], 0);

test('the default pool of 30: 8 local activity and 8 activity slots, 4 webhook connections, ten connections reserved (one per background loop, three for the outbox relay)', () => {
  expect(workerCapacity(30, { cachedWorkflows: CACHE })).toMatchObject({ poolMax: 30, localActivitySlots: 8, activitySlots: 8, webhookDbConnections: 4 });
});

test('by default the slots split into live 4, sandbox 3 and legacy 1 of each kind, the workflow cache in proportion', () => {
  expect(workerCapacity(30, { cachedWorkflows: CACHE }).queues).toEqual({
    live: { localActivitySlots: 4, activitySlots: 4, cachedWorkflows: 375 },
    sandbox: { localActivitySlots: 3, activitySlots: 3, cachedWorkflows: 281 },
    legacy: { localActivitySlots: 1, activitySlots: 1, cachedWorkflows: 93 },
  });
});

test.each([20, 22, 30, 38, 100])('the Workers of pool %i together never exceed it minus the reserved connections, each at least 1', (pool) => {
  const c = workerCapacity(pool, { cachedWorkflows: CACHE });
  expect(queueSum(c, 'localActivitySlots')).toBe(c.localActivitySlots);
  expect(queueSum(c, 'activitySlots')).toBe(c.activitySlots);
  expect(totals(c) + c.webhookDbConnections + RESERVED_CONNECTIONS).toBeLessThanOrEqual(pool);
  for (const q of Object.values(c.queues)) {
    expect(q.localActivitySlots).toBeGreaterThanOrEqual(1);
    expect(q.activitySlots).toBeGreaterThanOrEqual(1);
  }
  expect(Object.values(c.queues).reduce((n, q) => n + q.cachedWorkflows, 0)).toBeLessThanOrEqual(CACHE);
});

test('WORKER_LIVE_SHARE moves slots between live and sandbox; neither is ever left without one', () => {
  const split = (liveShare: number) => {
    const { live, sandbox } = workerCapacity(30, { liveShare, legacySlots: 0, cachedWorkflows: CACHE }).queues;
    return [live!.localActivitySlots, sandbox!.localActivitySlots];
  };
  expect(split(0.5)).toEqual([4, 4]);
  expect(split(0.75)).toEqual([6, 2]);
  expect(split(0.2)).toEqual([2, 6]); // rounded up in live's favour
  expect(split(0.01)).toEqual([1, 7]);
  expect(split(0.99)).toEqual([7, 1]);
});

test('explicit totals are split the same way', () => {
  const c = workerCapacity(30, { localActivitySlots: 12, activitySlots: 4, cachedWorkflows: CACHE });
  expect(c.queues.live).toMatchObject({ localActivitySlots: 6, activitySlots: 2 });
  expect(c.queues.sandbox).toMatchObject({ localActivitySlots: 5, activitySlots: 1 });
  expect(c.queues.legacy).toMatchObject({ localActivitySlots: 1, activitySlots: 1 });
});

test('WORKER_LEGACY_SLOTS 0 stops polling the legacy queue and gives its slots back', () => {
  const c = workerCapacity(30, { legacySlots: 0, cachedWorkflows: CACHE });
  expect(Object.keys(c.queues).sort()).toEqual(['live', 'sandbox']);
  expect(queueSum(c, 'localActivitySlots')).toBe(8);
});

test('WORKER_ENVIRONMENTS with one environment gives it every slot left after legacy', () => {
  expect(workerCapacity(30, { environments: ['live'], cachedWorkflows: CACHE }).queues).toEqual({
    live: { localActivitySlots: 7, activitySlots: 7, cachedWorkflows: 656 },
    legacy: { localActivitySlots: 1, activitySlots: 1, cachedWorkflows: 93 },
  });
  expect(Object.keys(workerCapacity(30, { environments: ['sandbox'], legacySlots: 0 }).queues)).toEqual(['sandbox']);
});

test('a small Worker still gets the SDK minimum cache of 10', () => {
  expect(workerCapacity(100, { cachedWorkflows: 20 }).queues.legacy?.cachedWorkflows).toBe(10);
  expect(defaultProcessWorkflowCache(100 * 1024 * 1024)).toBe(10);
  expect(defaultProcessWorkflowCache(2248 * 1024 * 1024)).toBe(1200);
});

test('a split that could exhaust the pool, or leaves an environment without a slot, is refused with the numbers', () => {
  expect(() => workerCapacity(17, { localActivitySlots: 100, activitySlots: 100 })).toThrow(/100 local activity \+ 100 activity \+ 4 webhook \(WEBHOOK_DB_CONNECTIONS\) \+ 10 reserved > WORKER_DB_POOL_MAX 17/);
  expect(() => workerCapacity(15)).toThrow(/at least 16 connections/);
  expect(() => workerCapacity(30, { webhookDbConnections: 0 })).toThrow(/WEBHOOK_DB_CONNECTIONS must be a positive integer/);
  expect(() => workerCapacity(30, { webhookSendSlots: 0 })).toThrow(/WEBHOOK_SEND_SLOTS must be a positive integer/);
  expect(() => workerCapacity(30, { localActivitySlots: 0 })).toThrow(/at least 1/);
  expect(() => workerCapacity(18)).toThrow(/2 local activity slots - WORKER_LEGACY_SLOTS 1 leaves 1 for sandbox and live/);
  expect(() => workerCapacity(30, { legacySlots: 7 })).toThrow(/WORKER_LEGACY_SLOTS 7 leaves 1/);
  expect(() => workerCapacity(30, { liveShare: 1 })).toThrow(/WORKER_LIVE_SHARE/);
  expect(() => workerCapacity(30, { environments: [] })).toThrow(/WORKER_ENVIRONMENTS/);
});

test('each environment has a delivery Worker whose send slots hold no pool connection (issue 19)', () => {
  const c = workerCapacity(30, { cachedWorkflows: CACHE });
  expect(c.deliveries).toEqual({
    sandbox: { sendSlots: 200, cachedWorkflows: 125, workflowTaskSlots: 100 },
    live: { sendSlots: 200, cachedWorkflows: 125, workflowTaskSlots: 100 },
  });
  // The payment Workers' caches and the delivery Workers' caches together stay within the process's.
  const cached = Object.values(c.queues).reduce((n, q) => n + q.cachedWorkflows, 0) + Object.values(c.deliveries).reduce((n, d) => n + d.cachedWorkflows, 0);
  expect(cached).toBeLessThanOrEqual(CACHE);
  expect(workerCapacity(30, { environments: ['live'], webhookSendSlots: 50, cachedWorkflows: CACHE }).deliveries).toEqual({
    live: { sendSlots: 50, cachedWorkflows: 250, workflowTaskSlots: 100 },
  });
  // More connections for webhook steps come out of the slots of the payment Workers, never beyond the pool.
  expect(workerCapacity(30, { webhookDbConnections: 8, cachedWorkflows: CACHE })).toMatchObject({ localActivitySlots: 6, activitySlots: 6, webhookDbConnections: 8 });
});

describe('settings from the environment', () => {
  test('unset: the defaults', () => {
    expect(workerQueueSettings({})).toEqual({});
    expect(loadConfig({}).worker).toEqual({ poolMax: 30 });
  });

  test('set: parsed, and carried by loadConfig', () => {
    const env = { WORKER_LIVE_SHARE: '0.25', WORKER_LEGACY_SLOTS: '0', WORKER_ENVIRONMENTS: ' live , live', WEBHOOK_SEND_SLOTS: '300', WEBHOOK_DB_CONNECTIONS: '6' };
    expect(workerQueueSettings(env)).toEqual({ liveShare: 0.25, legacySlots: 0, environments: ['live'], webhookSendSlots: 300, webhookDbConnections: 6 });
    expect(loadConfig(env).worker).toMatchObject({ liveShare: 0.25, legacySlots: 0, environments: ['live'] });
  });

  test.each([
    [{ WORKER_LIVE_SHARE: '1' }, /WORKER_LIVE_SHARE must be a number strictly between 0 and 1, got "1"/],
    [{ WORKER_LIVE_SHARE: 'half' }, /WORKER_LIVE_SHARE/],
    [{ WORKER_LEGACY_SLOTS: '-1' }, /WORKER_LEGACY_SLOTS must be a non-negative integer/],
    [{ WORKER_LEGACY_SLOTS: '1.5' }, /WORKER_LEGACY_SLOTS/],
    [{ WORKER_ENVIRONMENTS: 'sandbox,prod' }, /WORKER_ENVIRONMENTS must list sandbox and\/or live/],
    [{ WORKER_ENVIRONMENTS: ',' }, /WORKER_ENVIRONMENTS/],
    [{ WEBHOOK_SEND_SLOTS: '0' }, /WEBHOOK_SEND_SLOTS must be a positive integer, got "0"/],
    [{ WEBHOOK_DB_CONNECTIONS: 'four' }, /WEBHOOK_DB_CONNECTIONS must be a positive integer/],
  ])('%j is refused', (env, message) => {
    expect(() => workerQueueSettings(env)).toThrow(message);
  });
});

import { RESERVED_CONNECTIONS, workerCapacity } from '../../src/runtime/worker-capacity';

test('the default pool of 20 splits into 9 local activity and 9 activity slots, two connections reserved', () => {
  expect(workerCapacity(20)).toEqual({ poolMax: 20, localActivitySlots: 9, activitySlots: 9 });
});

test.each([5, 10, 20, 33, 100])('slots never exceed pool %i minus the reserved connections', (pool) => {
  const c = workerCapacity(pool);
  expect(c.localActivitySlots + c.activitySlots + RESERVED_CONNECTIONS).toBeLessThanOrEqual(pool);
  expect(c.localActivitySlots).toBeGreaterThanOrEqual(1);
  expect(c.activitySlots).toBeGreaterThanOrEqual(1);
});

test('an explicit split is kept when it fits, and the rest goes to the other kind', () => {
  expect(workerCapacity(20, { localActivitySlots: 12 })).toEqual({ poolMax: 20, localActivitySlots: 12, activitySlots: 6 });
  expect(workerCapacity(20, { localActivitySlots: 4, activitySlots: 4 })).toEqual({ poolMax: 20, localActivitySlots: 4, activitySlots: 4 });
});

test('a split that could exhaust the pool is refused with the numbers', () => {
  expect(() => workerCapacity(10, { localActivitySlots: 100, activitySlots: 100 })).toThrow(/100 local activity \+ 100 activity \+ 2 reserved > WORKER_DB_POOL_MAX 10/);
  expect(() => workerCapacity(3)).toThrow(/at least 4 connections/);
  expect(() => workerCapacity(20, { localActivitySlots: 0 })).toThrow(/at least 1/);
});

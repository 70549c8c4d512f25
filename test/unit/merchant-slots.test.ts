/** The per-merchant send semaphore of the webhook worker (src/webhooks/merchant-slots.ts). */
import { BUSY_RETRY_MAX_MS, BUSY_RETRY_MIN_MS, MERCHANT_WAITING_FACTOR, MerchantBusyError, MerchantSlots, processMerchantSlots } from '../../src/webhooks/merchant-slots';

test('at most perKey holders per key; other keys are not affected', async () => {
  const slots = new MerchantSlots(2);
  const a1 = await slots.acquire('a', { waitMs: 1000 });
  await slots.acquire('a', { waitMs: 1000 });
  expect(slots.active('a')).toBe(2);
  // Another merchant gets a slot at once while "a" is full.
  const b = await slots.acquire('b', { waitMs: 0 });
  expect(slots.active('b')).toBe(1);
  b();
  expect(slots.active('b')).toBe(0);
  // A third holder of "a" waits until one is released, and gets the slot handed over.
  let granted = false;
  const waiting = slots.acquire('a', { waitMs: 5000 }).then((release) => {
    granted = true;
    return release;
  });
  await new Promise((r) => setTimeout(r, 20));
  expect(granted).toBe(false);
  expect(slots.waiting('a')).toBe(1);
  a1();
  a1(); // a second call does nothing
  const release = await waiting;
  expect(slots.active('a')).toBe(2);
  release();
  expect(slots.active('a')).toBe(1);
});

test('a wait ends with MerchantBusyError after waitMs; nothing is left behind', async () => {
  const slots = new MerchantSlots(1);
  const held = await slots.acquire('m', { waitMs: 0 });
  const started = Date.now();
  await expect(slots.acquire('m', { waitMs: 100 })).rejects.toBeInstanceOf(MerchantBusyError);
  expect(Date.now() - started).toBeGreaterThanOrEqual(90);
  expect(slots.waiting('m')).toBe(0);
  held();
  expect(slots.active('m')).toBe(0);
});

test('waiters are bounded: beyond perKey of them a caller is refused at once', async () => {
  const slots = new MerchantSlots(2);
  const r1 = await slots.acquire('m', { waitMs: 0 });
  const r2 = await slots.acquire('m', { waitMs: 0 });
  const w1 = slots.acquire('m', { waitMs: 60_000 });
  const w2 = slots.acquire('m', { waitMs: 60_000 });
  const started = Date.now();
  await expect(slots.acquire('m', { waitMs: 60_000 })).rejects.toBeInstanceOf(MerchantBusyError);
  expect(Date.now() - started).toBeLessThan(50);
  const controller = new AbortController();
  controller.abort(new Error('stop'));
  await expect(slots.acquire('x', { waitMs: 1000, signal: controller.signal })).rejects.toThrow('stop');
  // The waiters get the slots as they are released (no timer left behind).
  r1();
  r2();
  (await w1)();
  (await w2)();
  expect(slots.active('m')).toBe(0);
});

test('cancellation ends a wait at once with the signal reason', async () => {
  const slots = new MerchantSlots(1);
  const held = await slots.acquire('m', { waitMs: 0 });
  const controller = new AbortController();
  const waiting = slots.acquire('m', { waitMs: 60_000, signal: controller.signal });
  controller.abort(new Error('activity cancelled'));
  await expect(waiting).rejects.toThrow('activity cancelled');
  expect(slots.waiting('m')).toBe(0);
  held();
  expect(slots.active('m')).toBe(0);
});

test('the process shares one semaphore per concurrency; bad values are refused', () => {
  expect(processMerchantSlots(3)).toBe(processMerchantSlots(3));
  // Its waiting line is MERCHANT_WAITING_FACTOR x the concurrency (issue 19: a waiter holds a send slot, no connection).
  expect(processMerchantSlots(3)).toMatchObject({ perKey: 3, maxWaiting: 3 * MERCHANT_WAITING_FACTOR });
  expect(() => new MerchantSlots(0)).toThrow(/positive integer/);
  expect(() => new MerchantSlots(1, -1)).toThrow(/waiting line/);
});

test('a longer waiting line: maxWaiting callers wait, the next is refused at once', async () => {
  const slots = new MerchantSlots(1, 3);
  const r = await slots.acquire('m', { waitMs: 0 });
  const waiting = [0, 1, 2].map(() => slots.acquire('m', { waitMs: 60_000 }));
  expect(slots.waiting('m')).toBe(3);
  await expect(slots.acquire('m', { waitMs: 60_000 })).rejects.toBeInstanceOf(MerchantBusyError);
  r();
  for (const w of waiting) (await w)();
  expect(slots.active('m')).toBe(0);
});

test('a refused caller is told to come back once the sends ahead of it should be done, within [200 ms, 60 s]', async () => {
  const slots = new MerchantSlots(2, 2);
  expect(slots.retryDelayMs('m')).toBe(BUSY_RETRY_MIN_MS); // nothing known, nothing ahead
  jest.useFakeTimers({ now: 0, doNotFake: ['nextTick', 'setImmediate'] });
  try {
    const first = await slots.acquire('m', { waitMs: 0 });
    jest.setSystemTime(10_000);
    first(); // held 10 s: the average hold
    const a = await slots.acquire('m', { waitMs: 0 });
    const b = await slots.acquire('m', { waitMs: 0 });
    expect(slots.retryDelayMs('m')).toBe(10_000); // 2 holders ahead, 2 at a time, 10 s each
    const waiting = slots.acquire('m', { waitMs: 60_000 });
    expect(slots.retryDelayMs('m')).toBe(15_000);
    const waiting2 = slots.acquire('m', { waitMs: 60_000 });
    expect(slots.retryDelayMs('m')).toBe(20_000);
    a();
    b();
    jest.setSystemTime(400_000);
    (await waiting)(); // held 390 s: the average moves towards it
    (await waiting2)();
    const c = await slots.acquire('m', { waitMs: 0 });
    expect(slots.retryDelayMs('m')).toBe(BUSY_RETRY_MAX_MS);
    c();
  } finally {
    jest.useRealTimers();
  }
});

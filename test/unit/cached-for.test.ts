import { cachedFor } from '../../src/support/cached-for';

/** The short-lived, single-flight cache behind /health (src/http/routes/health.ts). */
test('callers during a computation share it; its result answers for `ms` after it settled; the first call after recomputes', async () => {
  let clock = 1_000;
  let computations = 0;
  let release: (value: number) => void = () => {};
  const cached = cachedFor(
    1_000,
    () =>
      new Promise<number>((resolve) => {
        computations += 1;
        release = resolve;
      }),
    () => clock,
  );
  const waiting = Array.from({ length: 50 }, () => cached());
  expect(computations).toBe(1);
  clock += 5_000; // however long it runs, callers keep sharing it
  release(7);
  expect(await Promise.all(waiting)).toEqual(Array(50).fill(7));
  clock += 999;
  expect(await cached()).toBe(7);
  expect(computations).toBe(1);
  clock += 1;
  const next = cached();
  expect(computations).toBe(2);
  release(8);
  expect(await next).toBe(8);
});

test('a rejection is shared and kept as long as a result, then computed again', async () => {
  let clock = 0;
  let computations = 0;
  const cached = cachedFor(
    100,
    async () => {
      computations += 1;
      throw new Error(`failure ${computations}`);
    },
    () => clock,
  );
  await expect(Promise.all([cached(), cached()])).rejects.toThrow('failure 1');
  await expect(cached()).rejects.toThrow('failure 1');
  clock = 100;
  await expect(cached()).rejects.toThrow('failure 2');
  expect(computations).toBe(2);
});

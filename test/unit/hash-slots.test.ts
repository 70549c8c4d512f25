import { HashSlotsFull, hashSlots } from '../../src/support/hash-slots';

/** src/support/hash-slots.ts: at most `slots` hashes run at once, `queue` more wait, the rest are refused at once. */
test('at most slots run at once and queue more wait; past that, a refusal at once; a freed slot takes new work', async () => {
  const slots = hashSlots(2, 3);
  let running = 0;
  let most = 0;
  const releases: (() => void)[] = [];
  const slowHash = () =>
    new Promise<string>((resolve) => {
      running++;
      most = Math.max(most, running);
      releases.push(() => {
        running--;
        resolve('hash');
      });
    });
  const accepted = Array.from({ length: 5 }, () => slots.run(slowHash));
  expect(slots.inFlight).toBe(5);
  expect(slots.full).toBe(true);
  const started = Date.now();
  await expect(slots.run(slowHash)).rejects.toBeInstanceOf(HashSlotsFull);
  expect(Date.now() - started).toBeLessThan(50);
  await new Promise((r) => setImmediate(r));
  expect(running).toBe(2);
  while (releases.length) {
    releases.shift()!();
    await new Promise((r) => setImmediate(r));
    expect(running).toBeLessThanOrEqual(2);
  }
  await expect(Promise.all(accepted)).resolves.toEqual(['hash', 'hash', 'hash', 'hash', 'hash']);
  expect(most).toBe(2);
  expect(slots.full).toBe(false);
  const again = slots.run(async () => 'again');
  await expect(again).resolves.toBe('again');
});

test('a failed hash frees its slot', async () => {
  const slots = hashSlots(1, 0);
  await expect(slots.run(async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
  await expect(slots.run(async () => 'ok')).resolves.toBe('ok');
});

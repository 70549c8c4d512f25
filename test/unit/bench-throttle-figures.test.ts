/** The throttle bench's figures (scripts/bench/throttle/throttle-figures.ts): what "5 a second" looks like at a receiver. */
import { bucketRefusals, peakInWindow } from '../../scripts/bench/throttle/throttle-figures';

const every = (n: number, gapMs: number, from = 0) => Array.from({ length: n }, (_, i) => from + i * gapMs);

test('peakInWindow: the most in any window starting at an arrival; one exactly a window later is not in it', () => {
  expect(peakInWindow([], 1000)).toBe(0);
  expect(peakInWindow(every(20, 200), 1000)).toBe(5);
  expect(peakInWindow(every(20, 199), 1000)).toBe(6);
  // One late by 150 ms beside the next ones on time: six in the window that starts with it.
  expect(peakInWindow([150, 200, 400, 600, 800, 1000], 1000)).toBe(6);
});

test('bucketRefusals: a token bucket of 5 a second with a burst of 5 takes 5 at once, then one every 200 ms', () => {
  expect(bucketRefusals([], 5)).toBe(0);
  expect(bucketRefusals(every(100, 200), 5)).toBe(0);
  expect(bucketRefusals(every(6, 0), 5)).toBe(1);
  expect(bucketRefusals([...every(5, 0), 200, 210], 5)).toBe(1);
  // Jitter around an even 200 ms spacing (one 150 ms late) is taken whole: the burst absorbs it.
  expect(bucketRefusals([150, 200, 400, 600, 800, 1000], 5)).toBe(0);
  // Sustained faster than the rate is refused: 10 a second for 3 s refuses about half after the burst.
  const refused = bucketRefusals(every(30, 100), 5);
  expect(refused).toBeGreaterThanOrEqual(11);
  expect(refused).toBeLessThanOrEqual(13);
});

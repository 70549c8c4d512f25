/** The throttle bench's figures from arrival times (scripts/bench/throttle/throttle.ts), pure so they are tested (test/unit/bench-throttle-figures.test.ts). */

/** The most timestamps in any window of `windowMs` (sliding, starting at each one). */
export function peakInWindow(sorted: number[], windowMs: number): number {
  let peak = 0;
  let j = 0;
  for (let i = 0; i < sorted.length; i++) {
    while (sorted[i]! - sorted[j]! >= windowMs) j++;
    peak = Math.max(peak, i - j + 1);
  }
  return peak;
}

/**
 * How many of these arrivals a receiver limiting itself with a token bucket of `rate` a second and a
 * burst of `rate` (the common shape of a "5 a second" limit) would have refused.
 */
export function bucketRefusals(sorted: number[], rate: number): number {
  let tokens = rate;
  let last = sorted[0] ?? 0;
  let refused = 0;
  for (const t of sorted) {
    tokens = Math.min(rate, tokens + ((t - last) / 1000) * rate);
    last = t;
    if (tokens >= 1) tokens -= 1;
    else refused++;
  }
  return refused;
}

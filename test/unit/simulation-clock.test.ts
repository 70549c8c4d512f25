/**
 * The simulation's process clock (src/simulation/sim-clock.ts): one shifted Date at a time, and an
 * engine's restore gives back only its own. An engine whose close passed its bound gives the process
 * back at once (session.ts: engine.releaseProcess) so the next seed of a --sweep block can start; the
 * rest of that close, ending later, must not undo the next engine's Date.
 */
import { realNow, shiftProcessDate } from '../../src/simulation/sim-clock';

test("a second shifted Date is refused while one is in place; a late restore of the first leaves the second's", () => {
  const NativeDate = globalThis.Date;
  const first = shiftProcessDate();
  try {
    expect(() => shiftProcessDate()).toThrow(/already replaced/);
    first.setOffset(3_600_000);
    expect(Date.now() - realNow()).toBeGreaterThanOrEqual(3_599_000);
    first.restore();
    expect(globalThis.Date).toBe(NativeDate);
    const second = shiftProcessDate();
    second.setOffset(7_200_000);
    // The first engine's close ends late and restores again: the second engine's Date stays.
    first.restore();
    expect(globalThis.Date).not.toBe(NativeDate);
    expect(Date.now() - realNow()).toBeGreaterThanOrEqual(7_199_000);
    second.restore();
    expect(globalThis.Date).toBe(NativeDate);
  } finally {
    globalThis.Date = NativeDate;
  }
});

/**
 * Closing the simulation's engine in the middle of a time jump (what a run cut by its real-time bound
 * does: src/simulation/session.ts) ends the jump and leaves the process alive: the engine aborts its
 * calls to the test server before the connection closes (src/simulation/engine.ts `guarded`). Before,
 * the client retried the cut call on the closed channel from a timer and the uncaught error killed
 * `npm run simulate -- --hours` (seed 2000).
 */
import { startEngine } from '../../src/simulation/engine';

test('a jump still running when the engine closes ends with an error, and nothing throws after', async () => {
  const uncaught: unknown[] = [];
  const onUncaught = (error: unknown) => uncaught.push(error);
  process.on('uncaughtException', onUncaught);
  process.on('unhandledRejection', onUncaught);
  try {
    const engine = await startEngine({ seed: 77 });
    // Held like a leaked lock: the jump passes at the pace of real time, so it is still running at close.
    await engine.temporal.connection.testService!.lockTimeSkipping({});
    const jump = engine.timeJump(3_600_000);
    const outcome = jump.then(() => 'ended', (error: unknown) => `failed: ${(error as Error).message}`);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    await engine.close();
    expect(await outcome).toMatch(/^failed: /);
    // The client's retry backoff is 100 ms and grows: a retry on the closed channel would have fired by now.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    expect(uncaught).toEqual([]);
  } finally {
    process.off('uncaughtException', onUncaught);
    process.off('unhandledRejection', onUncaught);
  }
}, 120_000);

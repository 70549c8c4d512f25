/** A background loop of the worker process: one pass, then a pause, until stopped. */
export interface PeriodicLoop {
  /** Run the next pass now instead of after the pause. */
  wake(): void;
  /** Stops after the pass under way, if any. */
  stop(): Promise<void>;
}

/**
 * Runs `pass` now and then `intervalMs` after each pass ends. A pass that throws goes to `onError`
 * and the loop carries on at the next interval, so one bad pass never stops the loop.
 */
export function runPeriodically(intervalMs: number, pass: () => Promise<void>, onError: (error: unknown) => void): PeriodicLoop {
  let stopped = false;
  let wake: () => void = () => {};
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  const loop = (async () => {
    while (!stopped) {
      try {
        await pass();
      } catch (error) {
        onError(error);
      }
      if (!stopped) await pause(intervalMs);
    }
  })();
  return {
    wake: () => wake(),
    async stop() {
      stopped = true;
      wake();
      await loop;
    },
  };
}

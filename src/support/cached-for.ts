/**
 * `compute` behind a short-lived cache with a single flight: callers while a computation is running
 * share it; its result (a rejection too) is answered to every caller for `ms` after it settled; the
 * first call after that starts the next computation. So however many calls come, `compute` runs at
 * most once per `ms` plus its own duration.
 */
export function cachedFor<T>(ms: number, compute: () => Promise<T>, now: () => number = Date.now): () => Promise<T> {
  let current: { result: Promise<T>; settledAt?: number } | undefined;
  return () => {
    if (current && (current.settledAt === undefined || now() - current.settledAt < ms)) return current.result;
    const entry: { result: Promise<T>; settledAt?: number } = { result: compute() };
    const settle = () => {
      entry.settledAt = now();
    };
    entry.result.then(settle, settle);
    current = entry;
    return entry.result;
  };
}

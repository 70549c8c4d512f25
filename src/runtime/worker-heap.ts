/**
 * WORKER_HEAP_MB (issue 34): the V8 heap limit of every isolate of a worker process, in MiB, i.e.
 * its main thread (activities, relays, pools) and each Worker's workflow thread (the SDK runs each
 * Worker's workflows in a worker thread of its own, which takes the process's V8 flags). V8 grows a
 * heap towards its limit before it collects hard, and Node's default limit on a large machine is
 * about 4 GiB per isolate: a bound makes the worker collect instead of growing. The workflow cache
 * (WORKER_CACHED_WORKFLOWS unset) is sized from the main thread's limit, so it shrinks with it.
 *
 * Applied where a worker process is started (src/runtime/worker-process.ts for `npm start`,
 * src/topology/app-pieces.ts for the topology) as `--max-old-space-size`: a running process cannot
 * change its own.
 */
import { StartupError } from '../support/startup-error';

export const WORKER_HEAP_MIN_MB = 256;

/** WORKER_HEAP_MB, checked (src/config.ts reads it at start-up so a bad value stops `npm start` in one line); unset: undefined. */
export function workerHeapMb(env: NodeJS.ProcessEnv = process.env): number | undefined {
  const raw = env.WORKER_HEAP_MB?.trim();
  if (!raw) return undefined;
  const mb = Number(raw);
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(mb) || mb < WORKER_HEAP_MIN_MB) {
    throw new StartupError(`WORKER_HEAP_MB must be a whole number of MiB, at least ${WORKER_HEAP_MIN_MB}, got "${raw}".`);
  }
  return mb;
}

/** The Node flags that give a worker process WORKER_HEAP_MB's limit (none when unset). */
export function workerHeapArgs(env: NodeJS.ProcessEnv = process.env): string[] {
  const mb = workerHeapMb(env);
  return mb === undefined ? [] : [`--max-old-space-size=${mb}`];
}

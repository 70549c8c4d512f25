import fs from 'node:fs';
import os from 'node:os';
import { StartupError } from '../support/startup-error';

/**
 * WORKER_NICE (issue 34, the API's p99 while payments wait): the worker process's scheduling
 * priority, 0 (as everything else) to 19 (only what the rest leaves). On one machine with the API,
 * Temporal and PostgreSQL, a worker working through a backlog of workflow tasks takes the CPU the
 * API's requests wait for; a nice worker yields it and works through the backlog with the rest. No
 * API request waits on the worker (a create starts its workflow on Temporal; the relay starts the
 * rest), so only the backlog's pace changes, and the payments' timers count from their creation.
 *
 * Linux keeps a nice value per thread: `applyWorkerNice` sets it on every thread the process has
 * (/proc/self/task) and threads made later inherit it from their maker. Call it first thing, and
 * again once the Workers run (their threads are made by then). Elsewhere: the process only.
 */
export function workerNice(env: NodeJS.ProcessEnv = process.env): number | undefined {
  const raw = env.WORKER_NICE?.trim();
  if (!raw) return undefined;
  const nice = Number(raw);
  if (!/^\d+$/.test(raw) || nice > 19) throw new StartupError(`WORKER_NICE must be a whole number from 0 to 19, got "${raw}".`);
  return nice;
}

/** Lowers this process's threads to WORKER_NICE; returns how many threads it set (0 when unset). */
export function applyWorkerNice(env: NodeJS.ProcessEnv = process.env): number {
  const nice = workerNice(env);
  if (nice === undefined) return 0;
  let tids: number[] = [];
  try {
    tids = fs.readdirSync('/proc/self/task').map(Number).filter(Number.isInteger);
  } catch {
    // No /proc: the process (its calling thread) only.
  }
  if (tids.length === 0) {
    os.setPriority(nice);
    return 1;
  }
  let set = 0;
  for (const tid of tids) {
    try {
      // Lowering is always allowed; a thread that ended meanwhile is skipped.
      if (os.getPriority(tid) < nice) os.setPriority(tid, nice);
      set++;
    } catch {
      // gone
    }
  }
  return set;
}

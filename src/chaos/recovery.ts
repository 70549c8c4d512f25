import { apiRequest } from './api-client';
import type { InjectedFault, InjectorDeps } from './fault-types';

/** What every fault waits for once lifted: every piece healthy and both APIs answering (src/chaos/faults.ts). */

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** /health on both API ports answers 200 (recorded as probe requests). */
async function apiHealthy(deps: InjectorDeps): Promise<boolean> {
  const { sandbox, live } = deps.topology.ports();
  const answers = await Promise.all([sandbox, live].map((port) => apiRequest(deps.log, 'probe', port, 'GET', '/health', { timeoutMs: 5_000 })));
  return answers.every((a) => a.status === 200);
}

/** Polls until every piece is ok, `extra` holds and both /health answer 200; the time it did, or null. */
export async function waitRecovered(deps: InjectorDeps, since: number, extra: () => boolean | Promise<boolean>): Promise<number | null> {
  const limit = since + deps.recoveryLimitS * 1000;
  // Looked at once at least, even when called after the limit.
  for (;;) {
    let ok = false;
    try {
      ok = deps.topology.unhealthy().length === 0 && (await extra()) && (await apiHealthy(deps));
    } catch {
      ok = false;
    }
    if (ok) return Date.now();
    if (Date.now() >= limit) return null;
    await sleep(500);
  }
}

export function finish(fault: Omit<InjectedFault, 'recoveryS'>): InjectedFault {
  return { ...fault, recoveryS: fault.recoveredAt === null ? null : Math.round((fault.recoveredAt - fault.startedAt) / 100) / 10 };
}


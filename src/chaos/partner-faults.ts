import { topologySecrets } from '../topology/secrets';
import type { InjectedFault, InjectorDeps } from './fault-types';
import { finish, sleep, waitRecovered } from './recovery';
import type { PlannedFault } from './schedule';
import { signal } from './topology-view';

/**
 * Issue 46's partner faults (docs/reliability.md, the fault table), on the topology's fake partner
 * or fake aggregator process, whose records stay in memory throughout (the money check compares
 * them with ours after the run):
 * - `partner_down`: its port closed for the hold (SIGUSR1: open connections closed, new ones
 *   refused), then opened again on the same port (SIGUSR2). A request that never reached it fails
 *   over to the route's next partner (docs/partner-rail.md, "Routing and failover");
 * - `partner_declining`: its declining mode on for the hold, then off, through its HTTP control
 *   (`POST /{product}/_fake/declining`, the aggregator's `POST /_fake/declining`): every new
 *   request refused with a retry-elsewhere reason, nothing kept.
 */

const CONTROL_TIMEOUT_MS = 5_000;

async function momoDeclining(deps: InjectorDeps, port: number, on: boolean): Promise<void> {
  const { partner } = topologySecrets(deps.topology.dir);
  const base = `http://127.0.0.1:${port}`;
  const basic = Buffer.from(`${partner.apiUser}:${partner.apiKey}`).toString('base64');
  const tokenRes = await fetch(`${base}/collection/token/`, { method: 'POST', headers: { authorization: `Basic ${basic}`, 'ocp-apim-subscription-key': partner.subscriptionKey }, signal: AbortSignal.timeout(CONTROL_TIMEOUT_MS) });
  if (tokenRes.status !== 200) throw new Error(`the fake partner refused a token: HTTP ${tokenRes.status}`);
  const { access_token: token } = (await tokenRes.json()) as { access_token: string };
  const res = await fetch(`${base}/collection/_fake/declining`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'ocp-apim-subscription-key': partner.subscriptionKey, 'x-target-environment': 'sandbox', 'content-type': 'application/json' },
    body: JSON.stringify({ on }),
    signal: AbortSignal.timeout(CONTROL_TIMEOUT_MS),
  });
  await res.body?.cancel();
  if (res.status !== 204) throw new Error(`the fake partner's declining control answered HTTP ${res.status}`);
}

async function aggregatorDeclining(deps: InjectorDeps, port: number, on: boolean): Promise<void> {
  const { aggregator } = topologySecrets(deps.topology.dir);
  const res = await fetch(`http://127.0.0.1:${port}/_fake/declining`, {
    method: 'POST',
    headers: { authorization: `Bearer ${aggregator.secretKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ on }),
    signal: AbortSignal.timeout(CONTROL_TIMEOUT_MS),
  });
  await res.body?.cancel();
  if (res.status !== 204) throw new Error(`the fake aggregator's declining control answered HTTP ${res.status}`);
}

/** Sets a fake's declining mode, tried a few times (the control goes over the network like any call). */
export async function setPartnerDeclining(deps: InjectorDeps, target: string, on: boolean): Promise<void> {
  const port = deps.topology.piece(target).port;
  let last: unknown;
  for (let tries = 0; tries < 5; tries++) {
    try {
      return await (target === 'fake-aggregator' ? aggregatorDeclining(deps, port, on) : momoDeclining(deps, port, on));
    } catch (error) {
      last = error;
      await sleep(1_000);
    }
  }
  throw last;
}

export async function partnerDeclining(deps: InjectorDeps, plan: PlannedFault): Promise<InjectedFault> {
  const target = plan.target!;
  const startedAt = Date.now();
  deps.log.faultStarted(plan.n, plan.kind);
  await setPartnerDeclining(deps, target, true);
  try {
    await sleep(plan.holdS * 1000);
  } finally {
    await setPartnerDeclining(deps, target, false);
  }
  const liftedAt = Date.now();
  const recoveredAt = await waitRecovered(deps, startedAt, () => true);
  deps.log.faultEnded(plan.n);
  const code = target === 'fake-aggregator' ? 'SERVICE_DECLINING' : '400 COULD_NOT_PERFORM_TRANSACTION';
  return finish({ n: plan.n, kind: plan.kind, target, pids: [], startedAt, liftedAt, recoveredAt, restarted: null, note: `${target} refused every new request with ${code} (retry elsewhere) for ${plan.holdS} s, then took them again` });
}

export async function partnerDown(deps: InjectorDeps, plan: PlannedFault): Promise<InjectedFault> {
  const piece = deps.topology.piece(plan.target!);
  if (!piece.pid) throw new Error(`${plan.target} has no pid (health ${piece.health})`);
  const startedAt = Date.now();
  deps.log.faultStarted(plan.n, plan.kind);
  signal(piece.pid, 'SIGUSR1');
  await sleep(plan.holdS * 1000);
  signal(piece.pid, 'SIGUSR2');
  const liftedAt = Date.now();
  const recoveredAt = await waitRecovered(deps, startedAt, () => true);
  deps.log.faultEnded(plan.n);
  // Its records are in memory: a restart meanwhile (the process gone) would lose them, which the money check then reports.
  // (`restarted` is a kill's expectation, checks/api-answers.ts: null here, the note says it.)
  const restarted = deps.topology.piece(plan.target!).pid !== piece.pid;
  return finish({ n: plan.n, kind: plan.kind, target: plan.target, pids: [piece.pid], startedAt, liftedAt, recoveredAt, restarted: null, note: `${restarted ? 'RESTARTED (its records lost): ' : ''}${plan.target}'s port closed for ${plan.holdS} s (SIGUSR1: connections refused, its records kept), then open again on the same port (SIGUSR2)` });
}

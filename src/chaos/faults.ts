import type { PlannedFault } from './schedule';
import { processTree, signal } from './topology-view';
import type { InjectedFault, InjectorDeps } from './fault-types';
import { finish, sleep, waitRecovered } from './recovery';
import { buildRollover } from './rollover';
import { setSkew } from '../topology/clock-skew';
import { partnerDeclining, partnerDown } from './partner-faults';

export type { InjectedFault, InjectorDeps } from './fault-types';

async function kill(deps: InjectorDeps, plan: PlannedFault): Promise<InjectedFault> {
  const piece = deps.topology.piece(plan.target!);
  if (!piece.pid) throw new Error(`${plan.target} has no pid to kill (health ${piece.health})`);
  const pid = piece.pid;
  const restartsBefore = piece.restarts;
  const startedAt = Date.now();
  deps.log.faultStarted(plan.n, plan.kind);
  signal(pid, 'SIGKILL');
  const back = () => {
    const now = deps.topology.piece(plan.target!);
    return now.pid !== null && now.pid !== pid && now.health === 'ok';
  };
  const recoveredAt = await waitRecovered(deps, startedAt, back);
  deps.log.faultEnded(plan.n);
  const after = deps.topology.piece(plan.target!);
  return finish({ n: plan.n, kind: plan.kind, target: plan.target, pids: [pid], startedAt, liftedAt: startedAt, recoveredAt, restarted: after.pid !== pid && after.restarts > restartsBefore, note: null });
}

async function pause(deps: InjectorDeps, plan: PlannedFault): Promise<InjectedFault> {
  const piece = deps.topology.piece(plan.target!);
  if (!piece.pid) throw new Error(`${plan.target} has no pid to pause (health ${piece.health})`);
  const pids = processTree(piece.pid);
  const startedAt = Date.now();
  deps.log.faultStarted(plan.n, plan.kind);
  for (const pid of pids) signal(pid, 'SIGSTOP');
  await sleep(plan.holdS * 1000);
  for (const pid of pids) signal(pid, 'SIGCONT');
  const liftedAt = Date.now();
  const recoveredAt = await waitRecovered(deps, startedAt, () => true);
  deps.log.faultEnded(plan.n);
  return finish({ n: plan.n, kind: plan.kind, target: plan.target, pids, startedAt, liftedAt, recoveredAt, restarted: null, note: `SIGSTOP ${plan.holdS} s, then SIGCONT` });
}

/** The bad spell is over once every event that got a bad answer during it has since been answered 2xx. */
async function receiverSpell(deps: InjectorDeps, plan: PlannedFault): Promise<InjectedFault> {
  const startedAt = Date.now();
  const from = deps.receiver.received.length;
  deps.log.faultStarted(plan.n, plan.kind);
  deps.receiver.setMode('bad');
  await sleep(plan.holdS * 1000);
  deps.receiver.setMode('ok');
  const liftedAt = Date.now();
  const refused = new Set(deps.receiver.received.slice(from).filter((r) => r.answered < 200 || r.answered >= 300).map((r) => `${r.endpoint} ${r.eventId}`));
  const redelivered = () => {
    const ok = new Set(deps.receiver.received.filter((r) => r.at >= liftedAt && r.answered >= 200 && r.answered < 300).map((r) => `${r.endpoint} ${r.eventId}`));
    return [...refused].every((k) => ok.has(k) || deps.receiver.received.some((r) => r.at < liftedAt && r.answered === 200 && `${r.endpoint} ${r.eventId}` === k));
  };
  const recoveredAt = await waitRecovered(deps, startedAt, redelivered);
  deps.log.faultEnded(plan.n);
  return finish({ n: plan.n, kind: plan.kind, target: null, pids: [], startedAt, liftedAt, recoveredAt, restarted: null, note: `${plan.holdS} s of slow, failing and dropped answers; ${refused.size} event deliveries refused, recovered once each was redelivered` });
}

/**
 * A spell of `holdS` seconds on one piece: `on` sent to its process, then `off`, then the wait for
 * recovery. The partner's outage is SIGSTOP/SIGCONT (connections open, nothing answers); a partition
 * is SIGUSR1/SIGUSR2 to a link (src/topology/link.ts: nothing passes either way, then it heals).
 */
async function signalledSpell(deps: InjectorDeps, plan: PlannedFault, signals: [NodeJS.Signals, NodeJS.Signals], note: string): Promise<InjectedFault> {
  const piece = deps.topology.piece(plan.target!);
  if (!piece.pid) throw new Error(`${plan.target} has no pid (health ${piece.health})`);
  const startedAt = Date.now();
  deps.log.faultStarted(plan.n, plan.kind);
  signal(piece.pid, signals[0]);
  await sleep(plan.holdS * 1000);
  signal(piece.pid, signals[1]);
  const liftedAt = Date.now();
  const recoveredAt = await waitRecovered(deps, startedAt, () => true);
  deps.log.faultEnded(plan.n);
  return finish({ n: plan.n, kind: plan.kind, target: plan.target, pids: [piece.pid], startedAt, liftedAt, recoveredAt, restarted: null, note });
}

/** `clock_skew`: the worker's wall clock moved `skewS` for `holdS` seconds, then back (src/topology/clock-skew.ts). */
async function clockSkew(deps: InjectorDeps, plan: PlannedFault): Promise<InjectedFault> {
  const skewS = plan.skewS ?? 0;
  const startedAt = Date.now();
  deps.log.faultStarted(plan.n, plan.kind);
  setSkew(deps.topology.dir, skewS);
  await sleep(plan.holdS * 1000);
  setSkew(deps.topology.dir, 0);
  const liftedAt = Date.now();
  const recoveredAt = await waitRecovered(deps, startedAt, () => true);
  deps.log.faultEnded(plan.n);
  return finish({ n: plan.n, kind: plan.kind, target: plan.target, pids: [], startedAt, liftedAt, recoveredAt, restarted: null, note: `${plan.target}'s clock ${skewS > 0 ? '+' : ''}${skewS} s for ${plan.holdS} s (libfaketime), then back` });
}

export async function injectFault(deps: InjectorDeps, plan: PlannedFault): Promise<InjectedFault> {
  switch (plan.kind) {
    case 'partition':
      return signalledSpell(deps, plan, ['SIGUSR1', 'SIGUSR2'], `nothing passed ${plan.target} for ${plan.holdS} s, then it healed`);
    case 'pause_process':
      return pause(deps, plan);
    case 'clock_skew':
      return clockSkew(deps, plan);
    case 'build_rollover':
      return buildRollover(deps, plan);
    case 'receiver_slow_failing':
      return receiverSpell(deps, plan);
    case 'partner_unreachable':
      return signalledSpell(deps, plan, ['SIGSTOP', 'SIGCONT'], `the partner answered nothing for ${plan.holdS} s (SIGSTOP)`);
    case 'partner_down':
      return partnerDown(deps, plan);
    case 'partner_declining':
      return partnerDeclining(deps, plan);
    default:
      return kill(deps, plan);
  }
}

/**
 * Runs the schedule in turn until its end or `until` (a full run's duration): the gap of load, the
 * fault (with its overlap, landing while it is in force), then their recovery, before the next.
 * Stops early when a fault did not recover.
 */
export async function runFaults(deps: InjectorDeps, plan: PlannedFault[], until: number): Promise<InjectedFault[]> {
  const done: InjectedFault[] = [];
  for (const fault of plan) {
    if (Date.now() + fault.gapS * 1000 > until && done.length > 0) break;
    await sleep(fault.gapS * 1000);
    const line = (f: PlannedFault) => `${f.kind}${f.target ? ` (${f.target})` : ''}${f.holdS ? ` for ${f.holdS} s` : ''}`;
    deps.say(`fault ${fault.n}: ${line(fault)}${fault.overlap ? `, and fault ${fault.overlap.n}: ${line(fault.overlap)} ${fault.overlap.afterS} s into it` : ''}`);
    // The composed nemesis: the overlap lands while the first is in force; each recovers on its own.
    const overlap = fault.overlap;
    const injected = await Promise.all([injectFault(deps, fault), ...(overlap ? [sleep(overlap.afterS * 1000).then(() => injectFault(deps, overlap))] : [])]);
    done.push(...injected);
    for (const f of injected) deps.say(`fault ${f.n}: ${f.recoveryS === null ? `NOT recovered within ${deps.recoveryLimitS} s` : `recovered in ${f.recoveryS} s`}`);
    if (injected.some((f) => f.recoveryS === null)) break;
  }
  return done;
}

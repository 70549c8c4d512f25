import { SKEWED_WORKER } from '../topology/clock-skew';
import type { Rng } from './random';

/** The fault kinds of issue 32, in the order a short run injects them when the seed does not reorder them. */
export const FAULT_KINDS = [
  'kill_worker',
  'kill_api',
  'kill_temporal',
  'kill_service_postgres',
  'kill_temporal_postgres',
  'pause_process',
  'receiver_slow_failing',
  'partner_unreachable',
  'partition',
  'clock_skew',
  'build_rollover',
  'partner_down',
  'partner_declining',
] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

/** Which topology piece each SIGKILL fault hits (one of them, chosen by the seed). */
export const KILL_TARGETS: Readonly<Record<Exclude<FaultKind, 'pause_process' | 'receiver_slow_failing' | 'partner_unreachable' | 'partition' | 'clock_skew' | 'build_rollover' | 'partner_down' | 'partner_declining'>, readonly string[]>> = {
  kill_worker: ['worker-1', 'worker-2'],
  kill_api: ['api-1', 'api-2'],
  kill_temporal: ['temporal'],
  kill_service_postgres: ['service-postgres'],
  kill_temporal_postgres: ['temporal-postgres'],
};

/** The links a partition cuts (src/topology/link.ts; the topology has them with TOPOLOGY_LINKS=1): a worker from the service's PostgreSQL, an API from Temporal. */
export const PARTITION_TARGETS = ['link-worker-postgres', 'link-api-temporal'] as const;

/**
 * How far `clock_skew` moves one worker's wall clock (src/topology/clock-skew.ts), either way: what
 * NTP trouble gives, and within the five minutes a merchant's signature check allows (README
 * "Webhooks"), so a refused signature is the engine's doing, not the skew's size.
 */
export const SKEW_MIN_S = 20;
export const SKEW_MAX_S = 240;

/**
 * Issue 46: the partners `partner_down` and `partner_declining` hit (the topology's fake processes).
 * The run routes mobile money `momo|aggregator` (topology-control.ts), so with the MoMo fake down or
 * declining new mobile-money payments fail over to the aggregator; a short run, one fault of each
 * kind, takes the MoMo fake so that both faults show a failover; a full run either, seeded.
 */
export const PARTNER_TARGETS = ['fake-partner', 'fake-aggregator'] as const;

/** What SIGSTOP may pause (a PostgreSQL is paused with its backends: the postmaster alone keeps serving open connections). */
export const PAUSE_TARGETS = ['worker-1', 'worker-2', 'api-1', 'api-2', 'temporal', 'service-postgres'] as const;

export interface PlannedFault {
  /** 1-based, in injection order. */
  n: number;
  kind: FaultKind;
  /** The topology piece signalled (none for the receiver and, SIGSTOP aside, the partner). */
  target: string | null;
  /** Seconds of load between the previous fault's recovery and this fault. */
  gapS: number;
  /** How long a pause, a receiver's bad spell or a partner outage lasts, in seconds (0 for a kill). */
  holdS: number;
  /**
   * A second fault that lands while this one is in force (the composed nemesis, issue 44): of another
   * kind and on another piece, `afterS` seconds after this one starts. Full runs only.
   */
  overlap?: PlannedFault & { afterS: number };
  /** `clock_skew`: how far the worker's wall clock moves, in seconds (ahead when positive). */
  skewS?: number;
}

export interface ScheduleSettings {
  short: boolean;
  durationS: number;
  /** Kinds that do not apply to this topology (Temporal's PostgreSQL on the dev server). */
  notApplicable: readonly FaultKind[];
}

/** A run's faults are bounded in count whatever its duration. */
export const MAX_FAULTS = 60;

/** In a full run, the share of faults that another one overlaps (composed nemesis). */
export const OVERLAP_CHANCE = 0.4;

/** A fault of another kind, on another piece than `first`, to land `afterS` into it; null when none fits. */
function overlapOf(rng: Rng, first: PlannedFault, kinds: readonly FaultKind[]): (PlannedFault & { afterS: number }) | null {
  const others = kinds.filter((k) => k !== first.kind);
  for (let tries = 0; tries < 4; tries++) {
    // Numbered 100 + the first's: the request log keys faults in force by number.
    const second = planOne(rng, 100 + first.n, rng.pick(others), false);
    if (second.target !== null && second.target === first.target) continue;
    return { ...second, gapS: 0, afterS: rng.int(0, Math.max(2, Math.min(first.holdS, 10))) };
  }
  return null;
}

function planOne(rng: Rng, n: number, kind: FaultKind, short: boolean): PlannedFault {
  const gapS = short ? rng.int(2, 4) : rng.int(10, 40);
  if (kind === 'pause_process') return { n, kind, target: rng.pick(PAUSE_TARGETS), gapS, holdS: short ? 6 : 30 };
  if (kind === 'receiver_slow_failing') return { n, kind, target: null, gapS, holdS: short ? 8 : rng.int(30, 60) };
  if (kind === 'partner_unreachable') return { n, kind, target: 'fake-partner', gapS, holdS: short ? 8 : rng.int(30, 60) };
  if (kind === 'clock_skew') return { n, kind, target: SKEWED_WORKER, gapS, holdS: short ? 8 : rng.int(30, 90), skewS: (rng.chance(0.5) ? 1 : -1) * rng.int(SKEW_MIN_S, SKEW_MAX_S) };
  // Both builds serve for the hold, then the old one's runs move and it retires (src/chaos/rollover.ts).
  if (kind === 'build_rollover') return { n, kind, target: 'worker-1', gapS, holdS: short ? 10 : rng.int(30, 90) };
  if (kind === 'partner_down' || kind === 'partner_declining') return { n, kind, target: short ? 'fake-partner' : rng.pick(PARTNER_TARGETS), gapS, holdS: short ? 10 : rng.int(20, 60) };
  if (kind === 'partition') return { n, kind, target: rng.pick(PARTITION_TARGETS), gapS, holdS: short ? 6 : rng.int(15, 40) };
  return { n, kind, target: rng.pick(KILL_TARGETS[kind]), gapS, holdS: 0 };
}

/**
 * The seeded schedule: faults in turn, each kind once per round in a seeded order; a short run is
 * one round; a full run plans rounds up to MAX_FAULTS and the injector stops at the run's duration,
 * and OVERLAP_CHANCE of its faults have a second one landing while they are in force.
 * Times are gaps after the previous fault's recovery, so a seed reproduces the sequence of faults,
 * their targets and their spacing, whatever each recovery takes.
 */
export function planFaults(rng: Rng, settings: ScheduleSettings): PlannedFault[] {
  const kinds = FAULT_KINDS.filter((k) => !settings.notApplicable.includes(k));
  const plan: PlannedFault[] = [];
  // Overlaps from a stream of their own: the schedule without them is what it was.
  const compose = rng.fork('compose');
  const rounds = settings.short ? 1 : Math.ceil(MAX_FAULTS / kinds.length);
  for (let round = 0; round < rounds && plan.length < MAX_FAULTS; round++) {
    for (const kind of rng.shuffle(kinds)) {
      if (plan.length >= MAX_FAULTS) break;
      const fault = planOne(rng, plan.length + 1, kind, settings.short);
      const overlap = !settings.short && compose.chance(OVERLAP_CHANCE) ? overlapOf(compose, fault, kinds) : null;
      plan.push(overlap ? { ...fault, overlap } : fault);
    }
  }
  return plan;
}

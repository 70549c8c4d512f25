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
] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

/** Which topology piece each SIGKILL fault hits (one of them, chosen by the seed). */
export const KILL_TARGETS: Readonly<Record<Exclude<FaultKind, 'pause_process' | 'receiver_slow_failing' | 'partner_unreachable'>, readonly string[]>> = {
  kill_worker: ['worker-1', 'worker-2'],
  kill_api: ['api-1', 'api-2'],
  kill_temporal: ['temporal'],
  kill_service_postgres: ['service-postgres'],
  kill_temporal_postgres: ['temporal-postgres'],
};

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
}

export interface ScheduleSettings {
  short: boolean;
  durationS: number;
  /** Kinds that do not apply to this topology (Temporal's PostgreSQL on the dev server). */
  notApplicable: readonly FaultKind[];
}

/** A run's faults are bounded in count whatever its duration. */
export const MAX_FAULTS = 60;

function planOne(rng: Rng, n: number, kind: FaultKind, short: boolean): PlannedFault {
  const gapS = short ? rng.int(2, 4) : rng.int(10, 40);
  if (kind === 'pause_process') return { n, kind, target: rng.pick(PAUSE_TARGETS), gapS, holdS: short ? 6 : 30 };
  if (kind === 'receiver_slow_failing') return { n, kind, target: null, gapS, holdS: short ? 8 : rng.int(30, 60) };
  if (kind === 'partner_unreachable') return { n, kind, target: 'fake-partner', gapS, holdS: short ? 8 : rng.int(30, 60) };
  return { n, kind, target: rng.pick(KILL_TARGETS[kind]), gapS, holdS: 0 };
}

/**
 * The seeded schedule: faults in turn, each kind once per round in a seeded order; a short run is
 * one round; a full run plans rounds up to MAX_FAULTS and the injector stops at the run's duration.
 * Times are gaps after the previous fault's recovery, so a seed reproduces the sequence of faults,
 * their targets and their spacing, whatever each recovery takes.
 */
export function planFaults(rng: Rng, settings: ScheduleSettings): PlannedFault[] {
  const kinds = FAULT_KINDS.filter((k) => !settings.notApplicable.includes(k));
  const plan: PlannedFault[] = [];
  const rounds = settings.short ? 1 : Math.ceil(MAX_FAULTS / kinds.length);
  for (let round = 0; round < rounds && plan.length < MAX_FAULTS; round++) {
    for (const kind of rng.shuffle(kinds)) {
      if (plan.length >= MAX_FAULTS) break;
      plan.push(planOne(rng, plan.length + 1, kind, settings.short));
    }
  }
  return plan;
}

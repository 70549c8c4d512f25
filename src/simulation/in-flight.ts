import type { SimContext, Step, StepKind, StepOutcome } from './types';

/**
 * Faults in flight (issue 44): a step drawn with `params.during` has that fault land while it runs,
 * `params.during_after_ms` real milliseconds after it starts, instead of between steps after a
 * settle:
 * - `cut_db_connections`: every server session of the run's database terminated
 *   (pg_terminate_backend) while the step's request and the work it starts use them;
 * - `restart_worker`: the worker shut down and a new one started while the step's workflows and
 *   activities run (the SDK cancels its running activities at shutdown; one that finishes anyway
 *   completes into a worker that is going away, and Temporal retries what was not recorded). A process
 *   killed outright is the chaos run's `kill_worker`.
 * The plan draws them (plan.ts, from a stream of their own) on the steps that send requests or start work.
 */
export const IN_FLIGHT_FAULTS = ['cut_db_connections', 'restart_worker'] as const;
export type InFlightFault = (typeof IN_FLIGHT_FAULTS)[number];

/** The step kinds a fault may land in the middle of. */
export const IN_FLIGHT_KINDS: readonly StepKind[] = ['sandbox_charge', 'live_charge', 'payout', 'review_payout', 'refund', 'dispute', 'dispute_evidence', 'settlement_run', 'operator_action', 'repeat_request', 'replay_delivery'];

/** How often (per eligible step) a fault lands in flight, and the latest it starts after the step (real ms). */
export const IN_FLIGHT_CHANCE = 0.04;
export const IN_FLIGHT_MAX_DELAY_MS = 40;

function isInFlightFault(value: unknown): value is InFlightFault {
  return typeof value === 'string' && (IN_FLIGHT_FAULTS as readonly string[]).includes(value);
}

/** Runs `step` by `run`, with its in-flight fault, if it has one, landing while it runs. */
export async function withFaultInFlight(ctx: SimContext, step: Step, run: () => Promise<StepOutcome>): Promise<StepOutcome> {
  const fault = step.params.during;
  if (fault === undefined || fault === null) return run();
  if (!isInFlightFault(fault)) throw new Error(`step ${step.n}: unknown in-flight fault "${String(fault)}" (src/simulation/in-flight.ts)`);
  const delay = Number(step.params.during_after_ms ?? 0);
  const landed = (async () => {
    await new Promise((resolve) => setTimeout(resolve, delay));
    if (fault === 'cut_db_connections') await ctx.cutDbConnections();
    else await ctx.restartWorker();
  })();
  const [outcome] = await Promise.all([run(), landed]);
  return { ...outcome, detail: `${outcome.detail}; ${fault} ${delay} ms into it` };
}

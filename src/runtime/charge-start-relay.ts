import { findUnstartedCharges, markChargeWorkflowsStarted } from '../persistence/charges/charge-workflow-start-store';
import type { PeriodicLoop } from '../support/periodic-loop';
import { startChargeWorkflow } from '../temporal/charge-start';
import { runStartRelay, START_RELAY_POLL_MS, startUnstarted, type StartRelayDeps, type StartRelayKind } from './start-relay';

/** The charge-start relay, in the worker process: the shared start relay (runtime/start-relay.ts) for charges. */
export { UNSTARTED_AFTER_SECONDS } from './start-relay';
export const CHARGE_START_POLL_MS = START_RELAY_POLL_MS;
export type ChargeStartRelayDeps = StartRelayDeps;
export type ChargeStartRelay = PeriodicLoop;

const charges: StartRelayKind<Awaited<ReturnType<typeof findUnstartedCharges>>[number]> = {
  noun: 'charge',
  find: findUnstartedCharges,
  start: startChargeWorkflow,
  markStarted: markChargeWorkflowsStarted,
};

/** One pass; see startUnstarted. */
export const startUnstartedCharges = (deps: ChargeStartRelayDeps): Promise<number> => startUnstarted(charges, deps);

export const startChargeStartRelay = (deps: ChargeStartRelayDeps, pollMs: number = CHARGE_START_POLL_MS): ChargeStartRelay => runStartRelay(charges, deps, pollMs);

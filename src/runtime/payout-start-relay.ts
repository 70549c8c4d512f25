import { findUnstartedPayouts, markPayoutWorkflowsStarted } from '../persistence/payouts/payout-workflow-start-store';
import type { PeriodicLoop } from '../support/periodic-loop';
import { startPayoutWorkflow } from '../temporal/payout-start';
import { runStartRelay, START_RELAY_POLL_MS, startUnstarted, type StartRelayDeps, type StartRelayKind } from './start-relay';

/** The payout-start relay, in the worker process: the shared start relay (runtime/start-relay.ts) for payouts. */
export type PayoutStartRelayDeps = StartRelayDeps;

const payouts: StartRelayKind<Awaited<ReturnType<typeof findUnstartedPayouts>>[number]> = {
  noun: 'payout',
  find: findUnstartedPayouts,
  start: startPayoutWorkflow,
  markStarted: markPayoutWorkflowsStarted,
};

/** One pass; see startUnstarted. */
export const startUnstartedPayouts = (deps: PayoutStartRelayDeps): Promise<number> => startUnstarted(payouts, deps);

export const startPayoutStartRelay = (deps: PayoutStartRelayDeps, pollMs: number = START_RELAY_POLL_MS): PeriodicLoop => runStartRelay(payouts, deps, pollMs);

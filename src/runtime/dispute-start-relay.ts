import { findUnstartedDisputes, markDisputeWorkflowsStarted } from '../persistence/disputes/dispute-workflow-start-store';
import type { PeriodicLoop } from '../support/periodic-loop';
import { startDisputeWorkflow } from '../temporal/dispute-start';
import { runStartRelay, START_RELAY_POLL_MS, startUnstarted, type StartRelayDeps, type StartRelayKind } from './start-relay';

/** The dispute-start relay, in the worker process: the shared start relay (runtime/start-relay.ts) for disputes. */
export type DisputeStartRelayDeps = StartRelayDeps;

const disputes: StartRelayKind<Awaited<ReturnType<typeof findUnstartedDisputes>>[number]> = {
  noun: 'dispute',
  find: findUnstartedDisputes,
  start: startDisputeWorkflow,
  markStarted: markDisputeWorkflowsStarted,
};

/** One pass; see startUnstarted. */
export const startUnstartedDisputes = (deps: DisputeStartRelayDeps): Promise<number> => startUnstarted(disputes, deps);

export const startDisputeStartRelay = (deps: DisputeStartRelayDeps, pollMs: number = START_RELAY_POLL_MS): PeriodicLoop => runStartRelay(disputes, deps, pollMs);

import { findUnstartedRefunds, markRefundWorkflowsStarted } from '../persistence/refunds/refund-workflow-start-store';
import type { PeriodicLoop } from '../support/periodic-loop';
import { startRefundWorkflow } from '../temporal/refund-start';
import { runStartRelay, START_RELAY_POLL_MS, startUnstarted, type StartRelayDeps, type StartRelayKind } from './start-relay';

/** The refund-start relay, in the worker process: the shared start relay (runtime/start-relay.ts) for refunds. */
export type RefundStartRelayDeps = StartRelayDeps;

const refunds: StartRelayKind<Awaited<ReturnType<typeof findUnstartedRefunds>>[number]> = {
  noun: 'refund',
  find: findUnstartedRefunds,
  start: startRefundWorkflow,
  markStarted: markRefundWorkflowsStarted,
};

/** One pass; see startUnstarted. */
export const startUnstartedRefunds = (deps: RefundStartRelayDeps): Promise<number> => startUnstarted(refunds, deps);

export const startRefundStartRelay = (deps: RefundStartRelayDeps, pollMs: number = START_RELAY_POLL_MS): PeriodicLoop => runStartRelay(refunds, deps, pollMs);

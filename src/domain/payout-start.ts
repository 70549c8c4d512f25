import type { RestartRequest } from './operator-action';
import type { PartnerWaitCarry } from './partner-wait';

/**
 * Input of a payout workflow (started by the API after it wrote the payout, or by the payout-start
 * relay): the id only. The workflow reads everything else from the database (loadPayout), so a run
 * started for a payout the API never wrote refuses to run.
 */
export interface PayoutStart {
  payoutId: string;
  /** Set by `payments restart` (an operator's new run for a record whose workflow closed unfinished): who, why, and what it found. */
  restart?: RestartRequest;
  /**
   * Set only by the payout workflow itself when its wait for the partner continues as new (issue 43,
   * PARTNER_WAIT_CONTINUES_PATCH): the wait's state; the new run resumes asking the partner and never
   * submits as a first submission, nor after the first run's submit window.
   */
  resume?: PartnerWaitCarry;
}

/** Workflow type of the payout workflow (workflows/payout.ts). */
export const PAYOUT_WORKFLOW_TYPE = 'payoutWorkflow';

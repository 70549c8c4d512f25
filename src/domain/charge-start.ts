import type { PartnerWaitCarry } from './partner-wait';
import type { ChargeState } from './charge-state';
import type { RestartRequest } from './operator-action';

/**
 * Input of a charge workflow started by the API after it wrote the charge (or by the charge-start
 * relay): the id only. The workflow reads everything else from the database (beginCharge), so a run
 * started for a charge the API never wrote refuses to run. Older runs got the whole draft
 * (ChargeDraft, by update-with-start); the workflow tells the two apart by this shape.
 */
export interface ChargeStart {
  chargeId: string;
  /**
   * Set only by the charge workflow itself when a live charge's wait for the partner continues as new
   * (issue 43, CHARGE_WAIT_CONTINUES_PATCH): the wait's state; the new run resumes asking the partner
   * and never submits as a first submission.
   */
  resume?: PartnerWaitCarry;
  /**
   * Set only by `payments restart` (issue 43): the operator's fields and what the command found; the
   * run audits them (`charge.restart`) before anything else. A live charge restarted after its
   * reference was chosen also carries `resume`, built from the database (src/services/restart-charge.ts).
   */
  restart?: RestartRequest;
}

export function isChargeStart(input: object): input is ChargeStart {
  return typeof (input as Partial<ChargeStart>).chargeId === 'string' && !('id' in input);
}

/**
 * What the charge workflow's first step returns: the state of the charge the API wrote (no customer
 * data: it goes into history) and its sandbox switch.
 */
export interface BegunCharge {
  charge: ChargeState;
  sandboxOutcome: string | null;
  /** The charge waits for its hosted checkout page (its stored action is one); absent in runs recorded before. */
  checkout?: boolean;
}

/** `metadata.sandbox_outcome` as stored with the charge (the same rule as the API's draft). */
export function sandboxOutcomeOf(metadataJson: string): string | null {
  const metadata = JSON.parse(metadataJson) as Record<string, unknown> | null;
  const outcome = metadata && typeof metadata === 'object' ? metadata.sandbox_outcome : undefined;
  return typeof outcome === 'string' ? outcome : null;
}

/** Error type (and message start) of a charge workflow started for a charge that was never written. */
export const CHARGE_NOT_FOUND = 'ChargeNotFoundError';

/**
 * Error type of a charge workflow refused at its start: its input is not a record the API wrote (a
 * whole draft, a workflow id other than the charge id, or search attributes naming another merchant
 * or environment than the stored charge).
 */
export const CHARGE_INPUT_REFUSED = 'ChargeInputRefused';

/** patched() id: new runs refuse a whole ChargeDraft as input (runs recorded before replay as they ran). */
export const REFUSE_DRAFT_INPUT_PATCH = 'refuse-draft-input';

/**
 * patched() id: new runs started with `{ chargeId }` check that the workflow id is the charge id and
 * that the stored charge's merchant and environment are those of the run's search attributes, and
 * run no transition for a charge already terminal. Runs recorded before replay as they ran.
 */
export const TRUST_ONLY_THE_DATABASE_PATCH = 'trust-only-the-database';

/** patched() id: a live charge never succeeds through the simulator; without a live rail it fails at once. */
export const NO_LIVE_SIMULATOR_PATCH = 'no-live-simulator';

import { ApplicationFailure } from '@temporalio/activity';
import type { RailStepRequest } from '../src/domain/live-rail';
import type { Orm } from '../src/persistence/orm';
import { railRequestFor } from '../src/persistence/rail-request-store';
import type { PartnerRail, RailStatus } from '../src/rail/partner-rail';
import type { RailSubmitOutcome } from './types';
import type { SecretBox } from '../src/support/secret-box';

export interface RailActivityDeps {
  orm: Orm;
  secretBox: SecretBox;
  /** The live partner rail of this worker; absent, every rail step fails (retried, NeedsAttention: "no live rail"). */
  rail?: PartnerRail;
}

/**
 * The partner rail's two steps (src/rail/partner-rail.ts), regular activities (network calls with
 * their own timeout). Both read what they send from the database: the payment, its counterparty
 * (sealed) and its partner reference, chosen once (`rail_references`) so every retry is the same
 * request. A transient trouble (RailUnavailable: 5xx, timeout, connection) is thrown and retried by
 * Temporal; the worker marks the payment NeedsAttention when it keeps failing.
 */
export function createRailActivities(deps: RailActivityDeps) {
  const rail = (): PartnerRail => {
    if (!deps.rail) throw ApplicationFailure.retryable('this worker has no live partner rail configured (PARTNER_BASE_URL)', 'NoLiveRail');
    return deps.rail;
  };
  return {
    /**
     * `no_rail` when this worker has no partner rail: the payment fails at once with
     * `partner_unavailable`, as every live payment did before the rail existed (the API refuses live
     * money movement without one; a payment written around it, or a worker deployed without its
     * PARTNER_* settings, must not wait for a rail that is not there).
     */
    async railSubmit(request: RailStepRequest): Promise<RailSubmitOutcome> {
      if (!deps.rail) return { kind: 'no_rail' };
      const { referenceId, railRequest } = await railRequestFor(deps.orm, deps.secretBox, request);
      return deps.rail.submit(request.product, { ...railRequest, referenceId });
    },
    async railStatus(request: RailStepRequest): Promise<RailStatus> {
      const { referenceId } = await railRequestFor(deps.orm, deps.secretBox, request);
      return rail().status(request.product, referenceId);
    },
  };
}

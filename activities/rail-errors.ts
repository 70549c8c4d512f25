import { ApplicationFailure } from '@temporalio/activity';
import type { PartnerRail } from '../src/rail/partner-rail';
import { RailMisconfigured, RailRequestInvalid } from '../src/rail/rail-errors';

/**
 * The ApplicationFailure types of the rail errors a retry cannot cure (src/rail/rail-errors.ts): the
 * failure's `type` is the error's name.
 */
export const NON_RETRYABLE_RAIL_ERRORS = ['RailMisconfigured', 'RailRequestInvalid'] as const;

/**
 * A rail error as the activity should throw it. Temporal retries any plain Error thrown from an
 * activity, so RailMisconfigured and RailRequestInvalid (`retryable = false`) become a non-retryable
 * ApplicationFailure of the same name and message, the original as its cause: the activity fails at
 * once, and the workflow keeps the payment open and raises it for attention (docs/partner-rail.md,
 * "Errors"). Anything else (RailUnavailable: transient) is returned unchanged and retried.
 */
export function railFailure(error: unknown): unknown {
  if (error instanceof RailMisconfigured || error instanceof RailRequestInvalid) {
    return ApplicationFailure.create({ message: error.message, type: error.name, nonRetryable: true, cause: error });
  }
  return error;
}

/** `rail` whose `submit` and `status` throw what railFailure makes of their errors. */
export function nonRetryableRail(rail: PartnerRail): PartnerRail {
  return {
    submit: (product, request) => rail.submit(product, request).catch((error: unknown) => Promise.reject(railFailure(error))),
    status: (product, referenceId) => rail.status(product, referenceId).catch((error: unknown) => Promise.reject(railFailure(error))),
  };
}

import { ActivityFailure, ApplicationFailure, setHandler } from '@temporalio/workflow';
import type { ChargeDraft, ChargeRecord } from '../src/domain/charge';
import { CHARGE_NOT_FOUND, isChargeStart, type BegunCharge, type ChargeStart } from '../src/domain/charge-start';
import { beginCharge } from './charge-activities';
import { acceptedByUpdate } from './charge-accepted';
import { attentionDesk } from './charge-attention';
import { followRail } from './charge-rail';
import { chargeStateQuery } from './messages';

/**
 * One charge, from acceptance to its terminal state. Workflow id = charge id (`txn_…`).
 *
 * Started by the API after it wrote the charge, its hold, `transaction.created` and the create
 * answer in one transaction (or by the charge-start relay), with `{ chargeId }` only:
 *
 * 1. Begin (local activity beginCharge): load the charge the API wrote and mark the workflow
 *    started. A charge that was never written fails the run at once, non-retryably
 *    (`ChargeNotFoundError`: the workflow refuses to run on anything but the database's record).
 * 2. The rail and the terminal transition (workflows/charge-rail.ts): the sandbox approves after
 *    three seconds, a failure outcome fails at once, `pending` times out after ten minutes,
 *    `indeterminate` stays unresolved until expiry; whatever has not happened by `expires_at` expires.
 *
 * Database steps retry for a bounded time (workflows/charge-activities.ts); a step that gives up
 * (the begin step included) marks the charge NeedsAttention with the reason (query
 * `chargeAttention`) and waits for an operator's `retryStep` (workflows/charge-attention.ts).
 *
 * A run whose input is a whole ChargeDraft was started by update-with-start before the API wrote
 * charges; it takes that path unchanged (workflows/charge-accepted.ts). The input is in the
 * history, so the branch is deterministic.
 */
export async function chargeWorkflow(input: ChargeStart | ChargeDraft): Promise<ChargeRecord> {
  return isChargeStart(input) ? begunByApi(input.chargeId) : acceptedByUpdate(input);
}

async function begunByApi(chargeId: string): Promise<ChargeRecord> {
  let charge: ChargeRecord | undefined;
  setHandler(chargeStateQuery, () => charge);
  const desk = attentionDesk(chargeId);
  let begun: BegunCharge;
  try {
    begun = await desk.persist('begin charge', () => beginCharge(chargeId));
  } catch (error) {
    if (!isNotFound(error)) throw error;
    throw ApplicationFailure.create({
      type: CHARGE_NOT_FOUND,
      message: `charge ${chargeId} was never written by the API: the charge workflow refuses to run`,
      nonRetryable: true,
    });
  }
  charge = begun.charge;
  // Search attributes were set at start from the same record: nothing to publish until a transition.
  return followRail(begun.charge, begun.sandboxOutcome, desk, (after) => (charge = after));
}

function isNotFound(error: unknown): boolean {
  const failure = error instanceof ActivityFailure ? error.cause : error;
  return failure instanceof ApplicationFailure && failure.type === CHARGE_NOT_FOUND;
}

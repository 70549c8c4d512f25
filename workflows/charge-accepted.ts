import { allHandlersFinished, condition, setHandler, type ApplicationFailure } from '@temporalio/workflow';
import type { ChargeDraft, ChargeRecord } from '../src/domain/charge';
import type { ChargeState } from '../src/domain/charge-state';
import { railPlan } from '../src/domain/sandbox-outcome';
import { recordAccepted } from './charge-activities';
import { attentionDesk, gaveUp, neverRecorded } from './charge-attention';
import { followRail } from './charge-rail';
import { publishChargeState } from './charge-search-attributes';
import { acceptChargeUpdate, chargeStateQuery, type ChargeAcceptance } from './messages';
import { answerRecord } from './record-query';

/**
 * A run started by update-with-start with the whole draft (POST /v1/charges before the API wrote
 * charges itself). Kept, command for command, for runs recorded before new runs refused such an
 * input (workflows/charge.ts) and for their histories:
 *
 * 1. Accept: record the charge (projection, pending hold, transaction.created); the API's
 *    update-with-start call returns this as the create response.
 * 2. The rail (followRail); a failure outcome fails right after the answer.
 *
 * If recording the acceptance gives up, nothing was written: the acceptance update and the run fail
 * with `ChargeNotRecorded` ("charge was never recorded: …").
 */
export async function acceptedByUpdate(draft: ChargeDraft): Promise<ChargeState> {
  let charge: ChargeState | undefined;
  let acceptance: ChargeAcceptance | undefined;
  let notRecorded: ApplicationFailure | undefined;
  setHandler(chargeStateQuery, () => charge);
  answerRecord(() => charge);
  setHandler(acceptChargeUpdate, async () => {
    await condition(() => acceptance !== undefined || notRecorded !== undefined);
    if (notRecorded) throw notRecorded;
    return acceptance!;
  });
  const desk = attentionDesk(draft.id);

  const { sandboxOutcome, ...record } = draft;
  let recorded: ChargeRecord;
  try {
    recorded = await recordAccepted(record);
  } catch (error) {
    // Same commands as before this path existed (the run fails), so no patch is needed here.
    if (!gaveUp(error)) throw error;
    notRecorded = neverRecorded(error);
    await condition(allHandlersFinished); // the acceptance update answers with the failure first
    throw notRecorded;
  }
  charge = recorded;
  publishChargeState(recorded);
  // The create answer is the charge in flight (SPEC 6.3); the outcome follows, even an immediate one.
  const unresolved = railPlan(recorded.environment, sandboxOutcome).kind === 'unresolved';
  acceptance = { kind: unresolved ? 'partner_timeout' : 'accepted', charge: recorded };
  return followRail(recorded, sandboxOutcome, desk, (after) => (charge = after));
}

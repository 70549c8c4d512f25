import { ActivityFailure, allHandlersFinished, ApplicationFailure, condition, patched, setHandler, workflowInfo } from '@temporalio/workflow';
import type { ChargeDraft } from '../src/domain/charge';
import {
  CHARGE_INPUT_REFUSED,
  CHARGE_NOT_FOUND,
  isChargeStart,
  REFUSE_DRAFT_INPUT_PATCH,
  TRUST_ONLY_THE_DATABASE_PATCH,
  type BegunCharge,
  type ChargeStart,
} from '../src/domain/charge-start';
import { chargeState, isTerminalStatus, type ChargeState } from '../src/domain/charge-state';
import { SA } from '../src/domain/search-attributes';
import { beginCharge } from './charge-activities';
import { acceptedByUpdate } from './charge-accepted';
import { attentionDesk } from './charge-attention';
import { CHARGE_PATCHES_AS_ONE_PATCH, patchedAsOne, railPatchesAtStart } from './charge-patches';
import { followRail } from './charge-rail';
import { resolutionDesk } from './charge-resolution';
import { chargeStateQuery } from './messages';
import { continueWaitAsNew } from './partner-long-wait';
import { partnerWaitCarryProblem, type PartnerWaitCarry } from '../src/domain/partner-wait';
import { answerRecord } from './record-query';
import { auditRestart } from './operator-restart';
import type { RestartRequest } from '../src/domain/operator-action';

/**
 * One charge, from acceptance to its terminal state. Workflow id = charge id (`txn_…`).
 *
 * Started by the API after it wrote the charge, its hold, `transaction.created` and the create
 * answer in one transaction (or by the charge-start relay), with `{ chargeId }` only:
 *
 * 0. Refuse to run (non-retryably, `ChargeInputRefused`, nothing written) unless the workflow id is
 *    the charge id.
 * 1. Begin (local activity beginCharge): load the state of the charge the API wrote and mark the
 *    workflow started. A charge that was never written fails the run at once, non-retryably
 *    (`ChargeNotFoundError`: the workflow refuses to run on anything but the database's record);
 *    so does a stored charge of another merchant or environment than the run's search attributes
 *    (`ChargeInputRefused`). A charge already terminal (a run started again after the first one
 *    finished) is returned as it is: no transition, no money moves twice.
 * 2. The rail and the terminal transition (workflows/charge-rail.ts): the sandbox approves after
 *    three seconds, a failure outcome fails at once, `pending` times out after ten minutes,
 *    `indeterminate` stays unresolved until expiry; whatever has not happened by `expires_at`
 *    expires. A live charge fails at once (`partner_unavailable`): no live rail exists. A sandbox
 *    card or bank charge on hosted checkout waits for the customer's `checkoutDecision` against its
 *    expiry (workflows/charge-checkout.ts, docs/checkout.md).
 *
 * Database steps retry for a bounded time (workflows/charge-activities.ts); a step that gives up
 * (the begin step included) marks the charge NeedsAttention with the reason (query
 * `chargeAttention`) and waits for an operator's `retryStep` (workflows/charge-attention.ts).
 *
 * A run whose input is a whole ChargeDraft was started by update-with-start before the API wrote
 * charges. Runs recorded then replay that path unchanged (workflows/charge-accepted.ts); a new run
 * with such an input refuses to run (`ChargeInputRefused`): whoever can reach Temporal could invent
 * a charge that way. The input is in the history, so the branch is deterministic.
 */
export async function chargeWorkflow(input: ChargeStart | ChargeDraft): Promise<ChargeState> {
  if (isChargeStart(input)) return begunByApi(input.chargeId, input.resume, input.restart);
  if (patched(REFUSE_DRAFT_INPUT_PATCH)) {
    throw refused(`a charge workflow takes { chargeId } of a charge the API wrote, not a whole charge: refused to run ${workflowInfo().workflowId}`);
  }
  return chargeState(await acceptedByUpdate(input));
}

async function begunByApi(chargeId: string, resume?: PartnerWaitCarry, restart?: RestartRequest): Promise<ChargeState> {
  // Runs recorded before these checks replay without them (no marker in their history).
  // Issue 48: a new run records one marker for all of its patches (workflows/charge-patches.ts);
  // a run recorded before it decides patch by patch below, as it did.
  const asOne = patched(CHARGE_PATCHES_AS_ONE_PATCH);
  const checked = asOne || patched(TRUST_ONLY_THE_DATABASE_PATCH);
  const { workflowId } = workflowInfo();
  if (checked && workflowId !== chargeId) throw refused(`workflow ${workflowId} was started for charge ${chargeId}: a charge workflow runs only under its charge's id`);
  const resumeProblem = resume === undefined ? null : partnerWaitCarryProblem(resume);
  if (resumeProblem) throw refused(`charge ${chargeId}: ${resumeProblem}; the charge workflow refuses to run`);
  // Before the first local activity: replay reads these markers at the same point whatever the
  // workflow tasks of the first run were (workflows/charge-patches.ts, issue 32).
  const isPatched = asOne ? patchedAsOne : railPatchesAtStart(workflowInfo().typedSearchAttributes.get(SA.Environment));
  let charge: ChargeState | undefined;
  setHandler(chargeStateQuery, () => charge);
  answerRecord(() => charge);
  const desk = attentionDesk(chargeId, isPatched);
  const resolutions = resolutionDesk(chargeId, () => charge);
  // A run started by `payments restart` (issue 43) audits the operator's request first; no other run
  // has `restart`, so recorded histories replay unchanged.
  await auditRestart(chargeId, 'charge.restart', restart);
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
  charge = chargeState(begun.charge);
  const mismatch = checked ? startedForAnother(charge) : undefined;
  if (mismatch) throw refused(`charge ${chargeId}: ${mismatch}; the charge workflow refuses to run`);
  // Started again after a run that finished it: nothing to do, and nothing is written again.
  if (checked && isTerminalStatus(charge.status)) return charge;
  // Search attributes were set at start from the same record: nothing to publish until a transition.
  // Issue 43: a live charge's long wait for the partner continues as new with `resume` (workflows/partner-answer.ts).
  const continues = { resume, continueAsNew: (carry: PartnerWaitCarry) => continueWaitAsNew<typeof chargeWorkflow>({ chargeId, resume: carry }) };
  const final = await followRail(charge, begun.sandboxOutcome, desk, (after) => (charge = after), resolutions, begun.checkout === true, isPatched, continues);
  // An operator's update (resolveCharge, retryStep) answers, and writes its audit row, before the run closes.
  await condition(allHandlersFinished);
  return final;
}

/**
 * The API and the charge-start relay start a run with the merchant and environment of the record
 * they wrote as search attributes; a run whose attributes name another (or none) was not started
 * for this record.
 */
function startedForAnother(charge: ChargeState): string | undefined {
  const attributes = workflowInfo().typedSearchAttributes;
  const merchant = attributes.get(SA.MerchantId);
  const environment = attributes.get(SA.Environment);
  if (merchant !== charge.merchantId || environment !== charge.environment) {
    return `the run was started for merchant ${merchant ?? '(none)'} in ${environment ?? '(none)'}, the stored charge belongs to ${charge.merchantId} in ${charge.environment}`;
  }
  return undefined;
}

function refused(message: string): ApplicationFailure {
  return ApplicationFailure.create({ type: CHARGE_INPUT_REFUSED, message, nonRetryable: true });
}

function isNotFound(error: unknown): boolean {
  const failure = error instanceof ActivityFailure ? error.cause : error;
  return failure instanceof ApplicationFailure && failure.type === CHARGE_NOT_FOUND;
}

import { allHandlersFinished, condition, setHandler, sleep, type ApplicationFailure } from '@temporalio/workflow';
import type { ChargeDraft, ChargeRecord } from '../src/domain/charge';
import type { ChargeStatus } from '../src/domain/charge-status';
import type { FailureClass } from '../src/domain/failure-classes';
import { railPlan, UNRESOLVED_FAILURE_CLASS } from '../src/domain/sandbox-outcome';
import { applyTransition, recordAccepted } from './charge-activities';
import { attentionDesk, gaveUp, neverRecorded } from './charge-attention';
import { publishChargeState } from './charge-search-attributes';
import { acceptChargeUpdate, chargeStateQuery, type ChargeAcceptance } from './messages';

/**
 * One charge, from acceptance to its terminal state. Workflow id = charge id (`txn_…`).
 *
 * 1. Accept: record the charge (projection, pending hold, transaction.created); the API's
 *    update-with-start call returns this as the create response.
 * 2. A failure outcome fails at once, right after the answer. Otherwise wait for the rail as a
 *    durable timer: the sandbox approves after three seconds, the `pending` outcome times out after
 *    ten minutes, an `indeterminate` one stays unresolved until expiry. Whatever has not happened by
 *    `expires_at` expires.
 * 3. Apply the terminal transition (projection, ledger, event in one transaction).
 *
 * Database steps retry for a bounded time (workflows/charge-activities.ts). If recording the
 * acceptance gives up, nothing was written: the acceptance update and the run fail with
 * `ChargeNotRecorded` ("charge was never recorded: …"). If a transition gives up, the charge keeps
 * its pending hold, so the run marks itself NeedsAttention with the reason (query `chargeAttention`)
 * and waits for an operator's `retryStep` (workflows/charge-attention.ts).
 */
export async function chargeWorkflow(draft: ChargeDraft): Promise<ChargeRecord> {
  let charge: ChargeRecord | undefined;
  let acceptance: ChargeAcceptance | undefined;
  let notRecorded: ApplicationFailure | undefined;
  setHandler(chargeStateQuery, () => charge);
  setHandler(acceptChargeUpdate, async () => {
    await condition(() => acceptance !== undefined || notRecorded !== undefined);
    if (notRecorded) throw notRecorded;
    return acceptance!;
  });
  const desk = attentionDesk(draft.id);

  const { sandboxOutcome, ...record } = draft;
  try {
    charge = await recordAccepted(record);
  } catch (error) {
    // Same commands as before this path existed (the run fails), so no patch is needed here.
    if (!gaveUp(error)) throw error;
    notRecorded = neverRecorded(error);
    await condition(allHandlersFinished); // the acceptance update answers with the failure first
    throw notRecorded;
  }
  publishChargeState(charge);
  const plan = railPlan(charge.environment, sandboxOutcome);

  const finish = async (to: ChargeStatus, failureClass: FailureClass | null): Promise<ChargeRecord> => {
    const request = { chargeId: draft.id, to, failureClass, at: new Date().toISOString() };
    charge = await desk.persist(failureClass ? `charge -> ${to} (${failureClass})` : `charge -> ${to}`, () => applyTransition(request));
    publishChargeState(charge);
    return charge;
  };
  const untilExpiry = Math.max(0, Date.parse(charge.expiresAt) - Date.now());
  const railOrExpiry = async (afterMs: number, summary: string, to: ChargeStatus, failureClass: FailureClass | null) => {
    if (afterMs >= untilExpiry) {
      await sleep(untilExpiry, { summary: 'expires_at reached before the rail answered' });
      return finish('expired', null);
    }
    await sleep(afterMs, { summary });
    return finish(to, failureClass);
  };

  // The create answer is the charge in flight (SPEC 6.3); the outcome follows, even an immediate one.
  acceptance = { kind: plan.kind === 'unresolved' ? 'partner_timeout' : 'accepted', charge };

  switch (plan.kind) {
    case 'fail':
      return finish('failed', plan.failureClass);
    case 'succeed':
      return railOrExpiry(plan.afterMs, 'sandbox completion: the customer approves', 'succeeded', null);
    case 'time_out':
      return railOrExpiry(plan.afterMs, 'sandbox pending outcome: ten minutes, then timeout', 'failed', 'timeout');
    case 'unresolved':
      await sleep(untilExpiry, { summary: 'indeterminate: unresolved until expires_at' });
      return finish('expired', UNRESOLVED_FAILURE_CLASS);
  }
}

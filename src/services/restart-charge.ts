import type { WorkflowStartOptions } from '@temporalio/client';
import type { ChargeStart } from '../domain/charge-start';
import type { PartnerWaitCarry } from '../domain/partner-wait';
import { findCharge } from '../persistence/charges/charge-store';
import type { Orm } from '../persistence/orm';
import { restartReferenceOf, RESTARTED_WAIT } from '../persistence/partner/restart-reference';
import { chargeStartOptions } from '../temporal/charge-start';

/** The charge workflow's type (src/temporal/charge-start.ts starts it by this name). */
export const CHARGE_WORKFLOW_TYPE = 'chargeWorkflow';

/** A charge the database holds open (its hold in place): a restart may start a run for it. */
export const OPEN_CHARGE_STATUSES: readonly string[] = ['pending', 'awaiting_action'];

/**
 * The wait a restarted live charge resumes (issue 43), from the database: a charge whose partner
 * reference was chosen may have reached the partner, so the new run never submits as a first
 * submission. It keeps the first submission's window (until `expires_at`) and its deadline, knows
 * whether the partner ever acknowledged the reference (an accepted or duplicate submission, a
 * PENDING, a SUCCESSFUL in `rail_answers`: then `unknown` is not final), and asks the partner at once.
 * Null when the charge has no reference yet (nothing was ever sent: the new run submits it as new).
 */
export async function restartedChargeWait(orm: Orm, chargeId: string, expiresAt: string): Promise<PartnerWaitCarry | null> {
  const ref = await restartReferenceOf(orm, chargeId);
  if (!ref) return null;
  const expiresMs = Date.parse(expiresAt);
  return { startedMs: ref.createdMs, submitUntilMs: expiresMs, deadlineMs: expiresMs, acknowledged: ref.acknowledged, ...RESTARTED_WAIT, pastDeadline: false };
}

/**
 * A charge's start for `payments restart txn_…` (src/services/restart-payment.ts): its own start
 * options (the API's: same id, queue, search attributes), with `resume` for a live charge that has a
 * partner reference. Null when no charge has this id.
 */
export async function chargeRestartStart(
  orm: Orm,
  id: string,
  taskQueue: string,
): Promise<{ type: string; status: string; options: WorkflowStartOptions & { args: [ChargeStart] } } | null> {
  const [scope] = await orm.em.fork().execute<Array<{ merchant_id: string; environment: string }>>(`select merchant_id, environment from charges where id = ?`, [id]);
  if (!scope) return null;
  const charge = await findCharge(orm, { merchantId: scope.merchant_id, environment: scope.environment }, id);
  if (!charge) return null;
  const options = chargeStartOptions(charge, taskQueue);
  const resume = charge.environment === 'live' && OPEN_CHARGE_STATUSES.includes(charge.status) ? await restartedChargeWait(orm, id, charge.expiresAt) : null;
  return { type: CHARGE_WORKFLOW_TYPE, status: charge.status, options: { ...options, args: [{ chargeId: id, ...(resume ? { resume } : {}) }] } };
}

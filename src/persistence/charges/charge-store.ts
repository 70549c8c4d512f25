import { LockMode, type EntityManager } from '@mikro-orm/postgresql';
import { chargeJson, type ChargeRecord, type ChargeTransitionRequest } from '../../domain/charge';
import { sandboxOutcomeOf, type BegunCharge } from '../../domain/charge-start';
import { isCheckoutAction } from '../../domain/hosted-checkout';
import { canTransition, eventTypeForStatus, type ChargeStatus } from '../../domain/charge-status';
import { captureReversalTransfer, captureTransfer, holdTransfer, holdVoidTransfer, type Transfer } from '../../domain/ledger';
import { Charge } from '../entities';
import { rowToRecord, recordToRow } from './charge-mapping';
import type { Orm } from '../orm';
import { writeStateChange } from '../state-change';
import { insertAuditOfChange } from '../operators/audit-of-change';
import { chargeState } from '../../domain/charge-state';
import { passGate, PaymentGateRefusedError } from '../payment-gate';

/** A transition the state machine refuses (for example reversing a failed charge). */
export class TransitionRefusedError extends Error {
  constructor(
    readonly chargeId: string,
    readonly from: ChargeStatus,
    readonly to: ChargeStatus,
    why?: string,
  ) {
    super(`charge ${chargeId} cannot go from ${from} to ${to}${why ? `: ${why}` : ''}`);
    this.name = 'TransitionRefusedError';
  }
}

export class ChargeNotFoundError extends Error {
  constructor(readonly chargeId: string) {
    super(`charge ${chargeId} does not exist`);
    this.name = 'ChargeNotFoundError';
  }
}

/**
 * The writes of one charge state change, inside the caller's transaction, in the order of
 * persistence/state-change.ts: the balance rows of the merchant's currency in account order, then the
 * event counter with the ledger entries (dated once the counter is held), then the event
 * (`transaction.<status>`, `data` = the charge object). Every transaction takes the balance rows
 * before the counter, and the balance rows in key order, so no two state changes can deadlock.
 */
function writeChargeStateChange(em: EntityManager, record: ChargeRecord, transfers: Transfer[], at: string, railAnswerId: string | null = null): Promise<void> {
  return writeStateChange(em, record, transfers, at, { type: eventTypeForStatus(record.status), resourceType: 'transaction', transactionId: record.id, dataJson: chargeJson(record), railAnswerId });
}

/**
 * Writes a new charge inside the caller's transaction: projection row, pending ledger hold (entries
 * and balance rows) and `transaction.created`, in the order of `writeStateChange` (the event counter
 * last). The API's create transaction (charge-create-store.ts) calls it after storing the answer.
 */
export async function insertAcceptedCharge(em: EntityManager, draft: ChargeRecord, workflowStartedAt: Date | null = null): Promise<void> {
  em.create(Charge, { ...recordToRow(draft), workflowStartedAt });
  await writeChargeStateChange(em, draft, [holdTransfer(draft)], draft.createdAt);
}

/**
 * Records an accepted charge for a run started by update-with-start (before the API wrote charges
 * itself): the writes of insertAcceptedCharge, in one transaction, with its workflow marked started
 * (it is running this). Running it again for the same charge returns the stored record and writes
 * nothing.
 */
export async function recordAcceptedCharge(orm: Orm, draft: ChargeRecord): Promise<ChargeRecord> {
  return orm.em.fork().transactional(async (em) => {
    const existing = await em.findOne(Charge, { id: draft.id });
    if (existing) return rowToRecord(existing);
    await insertAcceptedCharge(em, draft, new Date());
    return draft;
  });
}

/**
 * The charge workflow's first step: loads the charge the API wrote and marks its workflow started
 * (one statement; the charge-start relay stops looking at it). Throws ChargeNotFoundError when there
 * is no such charge: a workflow started for a charge the API did not write refuses to run.
 */
export async function beginCharge(orm: Orm, chargeId: string): Promise<BegunCharge> {
  const em = orm.em.fork();
  const rows = await em.execute<Record<string, unknown>[]>(
    `update charges set workflow_started_at = coalesce(workflow_started_at, now()) where id = ? returning *`,
    [chargeId],
  );
  if (rows.length === 0) throw new ChargeNotFoundError(chargeId);
  const charge = rowToRecord(em.map(Charge, rows[0]));
  return { charge, sandboxOutcome: sandboxOutcomeOf(charge.metadataJson), checkout: isCheckoutAction(charge.action) };
}

function transfersFor(record: ChargeRecord, to: ChargeStatus): Transfer[] {
  switch (to) {
    case 'succeeded':
      return [holdVoidTransfer(record), captureTransfer(record)];
    case 'failed':
    case 'expired':
      return [holdVoidTransfer(record)];
    case 'reversed':
      return [captureReversalTransfer(record)];
    default:
      return [];
  }
}

/**
 * Applies one state change: projection, ledger postings, balance rows and the event, in one
 * transaction, under the charge's row lock (taken first), written in the order of `writeStateChange`.
 * Applying a transition the charge already made returns the record and writes nothing, so activity
 * retries are safe. `onCommitted` runs once, after the commit of a change that was written.
 */
export async function applyChargeTransition(
  orm: Orm,
  request: ChargeTransitionRequest,
  onCommitted: (charge: ChargeRecord) => void = () => {},
): Promise<ChargeRecord> {
  let applied = false;
  const record = await orm.em.fork().transactional(async (em) => {
    const row = await em.findOne(Charge, { id: request.chargeId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    if (!row) throw new ChargeNotFoundError(request.chargeId);
    const before = rowToRecord(row);
    if (before.status === request.to) return before;
    if (!canTransition(before.status, request.to)) throw new TransitionRefusedError(before.id, before.status, request.to);
    // A reversal returns the whole capture: with refunds pending or made, or a dispute open or lost
    // (a chargeback), the customer would be paid twice. Refund and dispute creates lock this row
    // too, so the check and them cannot interleave.
    if (request.to === 'reversed') {
      const returned = await moneyAlreadyReturned(em, before.id);
      if (returned) throw new TransitionRefusedError(before.id, before.status, request.to, returned);
    }
    const after: ChargeRecord = {
      ...before,
      status: request.to,
      failureClass: request.failureClass ?? before.failureClass,
      updatedAt: request.at,
    };
    // Through the status gate (payment-gate.ts), from the status read under the row lock: a charge's
    // callers cannot name it (a charge ends from pending or awaiting_action), the transition table
    // above checks it. A live end the partner's word does not support is refused by the database.
    const { railAnswerId } = await passGate(em, {
      kind: 'charge',
      id: before.id,
      from: before.status,
      to: after.status,
      set: { failure_class: after.failureClass, updated_at: new Date(after.updatedAt) },
    }).catch((error: unknown) => {
      if (error instanceof PaymentGateRefusedError) throw new TransitionRefusedError(before.id, before.status, request.to, error.message);
      throw error;
    });
    await writeChargeStateChange(em, after, transfersFor(after, request.to), request.at, railAnswerId);
    // The operator's action and its row commit together, and only when the charge changed (issue 31).
    if (request.audit) await insertAuditOfChange(em, request.chargeId, request.audit, after, chargeState(after));
    applied = true;
    return after;
  });
  if (applied) onCommitted(record);
  return record;
}

/** Why a reversal would pay the customer twice (refunds pending or made; a dispute open or lost), or null. */
async function moneyAlreadyReturned(em: EntityManager, chargeId: string): Promise<string | null> {
  const refunds = await em.execute<{ one: number }[]>(`select 1 as one from refunds where charge_id = ? and status in ('pending', 'succeeded') limit 1`, [chargeId]);
  if (refunds.length > 0) return 'it has pending or succeeded refunds';
  const disputes = await em.execute<{ status: string }[]>(
    `select status from disputes where charge_id = ? and status in ('needs_response', 'under_review', 'lost') limit 1`,
    [chargeId],
  );
  if (disputes.length > 0) return `it has a dispute that is ${disputes[0].status === 'lost' ? 'lost (charged back)' : 'open'}`;
  return null;
}

export async function findCharge(orm: Orm, scope: { merchantId: string; environment: string }, id: string): Promise<ChargeRecord | null> {
  const row = await orm.em.fork().findOne(Charge, { id, merchantId: scope.merchantId, environment: scope.environment });
  return row ? rowToRecord(row) : null;
}

import { LockMode, type EntityManager } from '@mikro-orm/postgresql';
import { chargeJson, type ChargeRecord, type ChargeTransitionRequest } from '../domain/charge';
import { canTransition, eventTypeForStatus, type ChargeStatus } from '../domain/charge-status';
import { captureReversalTransfer, captureTransfer, holdTransfer, holdVoidTransfer, type Transfer } from '../domain/ledger';
import { Charge } from './entities';
import { appendEvent } from './event-log';
import { postTransfer } from './ledger';
import { rowToRecord, recordToRow } from './charge-mapping';
import type { Orm } from './orm';

/** A transition the state machine refuses (for example reversing a failed charge). */
export class TransitionRefusedError extends Error {
  constructor(
    readonly chargeId: string,
    readonly from: ChargeStatus,
    readonly to: ChargeStatus,
  ) {
    super(`charge ${chargeId} cannot go from ${from} to ${to}`);
    this.name = 'TransitionRefusedError';
  }
}

export class ChargeNotFoundError extends Error {
  constructor(readonly chargeId: string) {
    super(`charge ${chargeId} does not exist`);
    this.name = 'ChargeNotFoundError';
  }
}

function emitChargeEvent(em: EntityManager, record: ChargeRecord, at: string) {
  const type = eventTypeForStatus(record.status);
  return appendEvent(
    em,
    {
      merchantId: record.merchantId,
      environment: record.environment,
      type,
      resourceType: 'transaction',
      resourceId: record.id,
      transactionId: record.id,
      createdAt: at,
      dataJson: chargeJson(record),
    },
    `${record.id}:${type}`,
  );
}

function ledgerScope(record: ChargeRecord) {
  return { merchantId: record.merchantId, environment: record.environment, currency: record.currency, resourceId: record.id };
}

/**
 * Records an accepted charge: projection row, pending ledger hold and `transaction.created`, in one
 * transaction. Running it again for the same charge returns the stored record and writes nothing.
 */
export async function recordAcceptedCharge(orm: Orm, draft: ChargeRecord): Promise<ChargeRecord> {
  return orm.em.fork().transactional(async (em) => {
    const existing = await em.findOne(Charge, { id: draft.id });
    if (existing) return rowToRecord(existing);
    em.create(Charge, recordToRow(draft));
    postTransfer(em, ledgerScope(draft), holdTransfer(draft), new Date(draft.createdAt));
    await emitChargeEvent(em, draft, draft.createdAt);
    return draft;
  });
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
 * Applies one state change: projection, ledger postings and the event, in one transaction, under a
 * row lock. Applying a transition the charge already made returns the record and writes nothing, so
 * activity retries are safe. `onCommitted` runs once, after the commit of a change that was written.
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
    const after: ChargeRecord = {
      ...before,
      status: request.to,
      failureClass: request.failureClass ?? before.failureClass,
      updatedAt: request.at,
    };
    row.status = after.status;
    row.failureClass = after.failureClass;
    row.updatedAt = new Date(after.updatedAt);
    for (const transfer of transfersFor(after, request.to)) postTransfer(em, ledgerScope(after), transfer, new Date(request.at));
    await emitChargeEvent(em, after, request.at);
    applied = true;
    return after;
  });
  if (applied) onCommitted(record);
  return record;
}

export async function findCharge(orm: Orm, scope: { merchantId: string; environment: string }, id: string): Promise<ChargeRecord | null> {
  const row = await orm.em.fork().findOne(Charge, { id, merchantId: scope.merchantId, environment: scope.environment });
  return row ? rowToRecord(row) : null;
}

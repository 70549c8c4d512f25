import type { EntityManager } from '@mikro-orm/postgresql';
import type { Environment } from '../domain/environment';
import type { Transfer } from '../domain/ledger';
import { balanceDeltas } from './ledger/account-balances';
import { appendEvent } from './events/event-log';
import { postingRowsOf } from './ledger/ledger';

/** The money resource a state change belongs to (a charge, payout or refund). */
export interface MoneyResource {
  id: string;
  merchantId: string;
  environment: Environment;
  currency: string;
}

/** The event of a state change: `type` is also its dedupe key's suffix (`<id>:<type>`). */
export interface StateChangeEvent {
  type: string;
  resourceType: string;
  transactionId?: string;
  /** The resource in the shape the API returns it, already serialised. */
  dataJson: string;
  /** The partner answer the change rests on (passGate's answer for a live end): kept on its postings. */
  railAnswerId?: string | null;
}

/**
 * The writes of one state change inside the caller's transaction, in the one order every payment
 * type keeps (the projection row is written by the caller): the projection in one flush;
 * `beforeBalances` (a create's balance lock and check); then ONE statement (issue 48): the balance rows
 * of the resource's currency, in account order, then the per-merchant event counter, the ledger
 * entries dated by the database once the counter is held, and the event. The hot rows are held only
 * for that statement and the commit (before issue 48, four round trips and the commit). A posting is
 * dated when it commits, not at `at` (the time the workflow or the API decided the change, which the
 * projection and the event keep): why, and what that guarantees, in event-log.ts. The caller commits.
 */
export async function writeStateChange(
  em: EntityManager,
  resource: MoneyResource,
  transfers: Transfer[],
  at: string,
  event: StateChangeEvent,
  beforeBalances: () => Promise<void> = async () => {},
): Promise<void> {
  // Checked before anything is written: a transfer that does not balance is never posted.
  const rows = postingRowsOf(transfers);
  await em.flush();
  await beforeBalances();
  // Issue 48: the balance rows go in the same statement as the counter, postings and event (event-log.ts).
  await appendEvent(
    em,
    {
      merchantId: resource.merchantId,
      environment: resource.environment,
      type: event.type,
      resourceType: event.resourceType,
      resourceId: resource.id,
      ...(event.transactionId === undefined ? {} : { transactionId: event.transactionId }),
      createdAt: at,
      dataJson: event.dataJson,
    },
    `${resource.id}:${event.type}`,
    { currency: resource.currency, resourceId: resource.id, rows, railAnswerId: event.railAnswerId ?? null },
    { currency: resource.currency, deltas: balanceDeltas(transfers) },
  );
}

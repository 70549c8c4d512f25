import type { EntityManager } from '@mikro-orm/postgresql';
import { sqlStateOf } from './db-errors';
import { TEXT_ARRAY } from './sql-values';

/**
 * The one gate for a payment's status (issue 43; docs/partner-rail.md, "The status gate"). Every
 * change of `status` on charges, payouts, settlement batches and refunds (issue 45) goes through `passGate`, inside the
 * caller's transaction and under the row's lock:
 *
 * - compare-and-set: the update names the status it moves from, and is refused
 *   (StaleStatusError) when the row is elsewhere;
 * - it sets the transaction-local marker `payments.gate` = `<kind>:<id>:<from>:<to>`, without which
 *   the database's trigger (migration 20261215000012) refuses any status change: code that writes a
 *   status around the store fails;
 * - the same trigger refuses to end a live payment that has a partner reference unless the
 *   partner's answer in `rail_answers` supports the end (PaymentGateRefusedError, SQLSTATE 23P43);
 * - the gate itself refuses a live end succeeded / paid on a partner transaction id that already
 *   paid another live payment (PaymentGateRefusedError; transactionPaidAnother).
 *
 * Both refusals are final (retrying the same change cannot help): the stores turn them into their
 * own typed refusals, which the activities make non-retryable.
 *
 * The callers, and where their `from` comes from:
 * - named by the change: writePayoutTransition (payoutFromOf: a review decision from
 *   held_for_review, the rail's end from pending, a reversal from succeeded),
 *   applySettlementTransition (from pending), settle-late `accept` (from failed);
 * - read under the row lock and checked by the transition table, where the caller cannot know it:
 *   applyChargeTransition (a charge ends from pending or awaiting_action; canTransition) and
 *   settle-late `credit` (from expired or failed; canSettleLate).
 * Test set-up that seeds statuses in bulk goes around it explicitly (test/support/status-gate.ts).
 */
export type GatedKind = 'charge' | 'payout' | 'settlement' | 'refund';

const TABLE: Record<GatedKind, string> = { charge: 'charges', payout: 'payouts', settlement: 'settlements', refund: 'refunds' };

/** The SQLSTATE of the trigger's refusal (class 23: a constraint of the data, the same change fails again). */
export const GATE_REFUSED_SQLSTATE = '23P43';

/** The database refused the change: not through the gate's marker, or a live end the partner's word does not support. */
export class PaymentGateRefusedError extends Error {
  constructor(readonly kind: GatedKind, readonly id: string, readonly from: string, readonly to: string, why: string) {
    super(why);
    this.name = 'PaymentGateRefusedError';
  }
}

/** The row is not in the status the change moves from (compare-and-set). */
export class StaleStatusError extends Error {
  constructor(readonly kind: GatedKind, readonly id: string, readonly from: string, readonly to: string, readonly actual: string | null) {
    super(`${kind} ${id} cannot go from ${from} to ${to}: it is ${actual ?? 'missing'}`);
    this.name = 'StaleStatusError';
  }
}

export interface GatedChange {
  kind: GatedKind;
  id: string;
  from: string;
  to: string;
  /** The other columns the change writes, with their values (column names are the caller's constants, never input). */
  set?: Record<string, unknown>;
}

/** The marker the trigger expects for this change. */
export function gateMarker(change: Pick<GatedChange, 'kind' | 'id' | 'from' | 'to'>): string {
  return `${change.kind}:${change.id}:${change.from}:${change.to}`;
}

/** The partner answers that support an end, best first (the trigger's rule, migration 20261215000012). */
const SUPPORT: Record<string, readonly string[]> = { succeeded: ['succeeded'], paid: ['succeeded'], failed: ['failed', 'unknown'], expired: ['failed', 'unknown'] };

/**
 * Writes the change through the gate, in the caller's transaction (which should hold the row's lock:
 * then `from` read under it cannot be stale). Throws StaleStatusError when the row is not in `from`,
 * PaymentGateRefusedError when the database refuses the change. Answers the partner answer
 * (`rail_answers.id`) a live end rests on, for its ledger postings; null for any other change.
 */
export async function passGate(em: Pick<EntityManager, 'execute'>, change: GatedChange): Promise<{ railAnswerId: string | null }> {
  const columns = Object.keys(change.set ?? {});
  for (const column of columns) if (!/^[a-z_]+$/.test(column)) throw new Error(`payment gate: bad column name ${column}`);
  const shared = await transactionPaidAnother(em, change);
  if (shared) throw new PaymentGateRefusedError(change.kind, change.id, change.from, change.to, shared);
  await em.execute(`select set_config('payments.gate', ?, true)`, [gateMarker(change)]);
  let rows: Array<{ id: string }>;
  try {
    rows = await em.execute<Array<{ id: string }>>(
      `update ${TABLE[change.kind]} set status = ?${columns.map((c) => `, ${c} = ?`).join('')} where id = ? and status = ? returning id`,
      [change.to, ...columns.map((c) => change.set![c]), change.id, change.from],
    );
  } catch (error) {
    if (sqlStateOf(error) === GATE_REFUSED_SQLSTATE) {
      const message = String((error as Error).message ?? error);
      const at = message.indexOf('payment gate:');
      const why = (at >= 0 ? message.slice(at) : message).split('\n')[0];
      throw new PaymentGateRefusedError(change.kind, change.id, change.from, change.to, why);
    }
    throw error;
  }
  if (rows.length === 1) return { railAnswerId: await supportingAnswer(em, change) };
  const now = await em.execute<Array<{ status: string }>>(`select status from ${TABLE[change.kind]} where id = ?`, [change.id]);
  throw new StaleStatusError(change.kind, change.id, change.from, change.to, now[0]?.status ?? null);
}

/** The statuses of a payment the partner's money reached (a succeeded or reversed charge or payout, a paid batch). */
const PAID_STATUSES = ['succeeded', 'paid', 'reversed'];

/**
 * Issue 43 (Low: "financialTransactionId is not unique across payments"): one partner transaction
 * pays one payment. A live payment ends succeeded / paid only when no SUCCESSFUL recorded for it
 * (status, callback, statement line, an operator's evidence) names a partner transaction id that a
 * SUCCESSFUL of another live payment of the same product already names, that payment having ended
 * with the money. Why it is refused, or null. Under a transaction-scoped advisory lock per partner
 * transaction id, so two payments ending at once on the same id cannot both pass.
 */
async function transactionPaidAnother(em: Pick<EntityManager, 'execute'>, change: GatedChange): Promise<string | null> {
  if (change.to !== 'succeeded' && change.to !== 'paid') return null;
  const mine = await em.execute<Array<{ product: string; ft: string }>>(
    `select distinct a.product, a.partner_transaction_id as ft from rail_answers a join ${TABLE[change.kind]} t on t.id = a.payment_id and t.environment = 'live'
     where a.payment_id = ? and a.outcome = 'succeeded' and coalesce(a.partner_transaction_id, '') <> '' order by 1, 2`,
    [change.id],
  );
  for (const { product, ft } of mine) {
    await em.execute(`select pg_advisory_xact_lock(hashtext(?))`, [`partner-transaction:${product}:${ft}`]);
    const others = await em.execute<Array<{ payment_id: string; status: string }>>(
      `select o.payment_id, p.status from rail_answers o
       join lateral (select status, environment from charges where id = o.payment_id
                     union all select status, environment from payouts where id = o.payment_id
                     union all select status, environment from settlements where id = o.payment_id
                     union all select status, environment from refunds where id = o.payment_id) p on true
       where o.product = ? and o.partner_transaction_id = ? and o.outcome = 'succeeded' and o.payment_id <> ?
         and p.environment = 'live' and p.status = any(${TEXT_ARRAY})
       order by o.id limit 1`,
      [product, ft, change.id, JSON.stringify(PAID_STATUSES)],
    );
    const other = others[0];
    if (other) {
      return (
        `payment gate: live ${change.kind} ${change.id} ${change.from} -> ${change.to} refused: the partner's transaction id ${ft} already paid ${other.payment_id} (${other.status}); ` +
        `one partner transaction pays one payment: ask the partner which reference it paid (its statement), the payment stays ${change.from}`
      );
    }
  }
  return null;
}

/** The answer a live end rests on (the trigger has checked one exists): a final one first, the latest of its kind; null in the sandbox or for a change that is not an end. */
async function supportingAnswer(em: Pick<EntityManager, 'execute'>, change: GatedChange): Promise<string | null> {
  const outcomes = SUPPORT[change.to];
  if (!outcomes) return null;
  const rows = await em.execute<Array<{ id: string }>>(
    `select a.id::text as id from rail_answers a join ${TABLE[change.kind]} t on t.id = a.payment_id and t.environment = 'live'
     where a.payment_id = ? and a.outcome = any(${TEXT_ARRAY}) order by array_position(${TEXT_ARRAY}, a.outcome), a.id desc limit 1`,
    [change.id, JSON.stringify(outcomes), JSON.stringify(outcomes)],
  );
  return rows[0]?.id ?? null;
}

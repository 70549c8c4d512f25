import type { Orm } from '../../src/persistence/orm';
import { passGate, type GatedKind } from '../../src/persistence/payment-gate';

const TABLE: Record<GatedKind, string> = { charge: 'charges', payout: 'payouts', settlement: 'settlements', refund: 'refunds' };

/**
 * Test set-up only: a bulk status update (`update <table> set status = ... where ...`) that the status
 * gate's trigger (migration 20261215000012) would refuse row by row: run in one transaction with that
 * table's trigger disabled (transactional DDL: it is on again at commit, and no other transaction
 * sees it off). For seeding a private test database's backlog, never for a payment a test then moves.
 */
export async function bulkStatusAroundGate(orm: Orm, kind: GatedKind, update: string, params: unknown[] = []): Promise<void> {
  const table = TABLE[kind];
  if (!new RegExp(`^\\s*update ${table}\\b`).test(update)) throw new Error(`bulkStatusAroundGate: the statement must update ${table}`);
  await orm.em.fork().transactional(async (em) => {
    await em.execute(`alter table ${table} disable trigger ${table}_status_gate`);
    await em.execute(update, params);
    await em.execute(`alter table ${table} enable trigger ${table}_status_gate`);
  });
}

/** Test set-up: one payment's status moved through the store's gate (compare-and-set from `from`; a live end still needs the partner's answer). */
export async function gatedStatus(orm: Orm, kind: GatedKind, id: string, from: string, to: string): Promise<void> {
  await orm.em.fork().transactional((em) => passGate(em, { kind, id, from, to }));
}

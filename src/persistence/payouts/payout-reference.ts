import { listBanks } from '../reference-store';
import type { Orm } from '../orm';

type BankRow = { code: string; name: string; country: string; currency: string };
const banks = new WeakMap<Orm, Promise<Map<string, BankRow>>>();

/**
 * A bank of the reference list (GET /v1/reference/banks) by its code, or null. The list changes only
 * through migrations, so each process loads it once (per ORM) and checks requests from memory.
 */
export async function findBank(orm: Orm, code: string): Promise<BankRow | null> {
  let lookup = banks.get(orm);
  if (!lookup) {
    lookup = listBanks(orm).then((rows) => new Map(rows.map((r) => [r.code, r])));
    lookup.catch(() => banks.delete(orm));
    banks.set(orm, lookup);
  }
  return (await lookup).get(code) ?? null;
}

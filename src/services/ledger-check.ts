import { readLedgerSnapshot, type DriftedBalance, type UnbalancedTransfer } from '../persistence/ledger-check-store';
import type { Orm } from '../persistence/orm';

export type LedgerCheckReport =
  | { ok: true; transfers: number; balances: number }
  | { ok: false; transfers: number; balances: number; unbalanced_transfers: UnbalancedTransfer[]; drifted_balances: DriftedBalance[] };

/**
 * `ledger check` (INTERFACE "Admin command line, continued"): every transfer sums to zero (within one
 * merchant, environment and currency), and every balance row equals the sum of its account's
 * postings, over the whole database in one snapshot. Not ok: the offending rows.
 */
export async function ledgerCheck(orm: Orm): Promise<LedgerCheckReport> {
  const snapshot = await readLedgerSnapshot(orm);
  const { transfers, balances } = snapshot;
  if (snapshot.unbalancedTransfers.length === 0 && snapshot.driftedBalances.length === 0) return { ok: true, transfers, balances };
  return { ok: false, transfers, balances, unbalanced_transfers: snapshot.unbalancedTransfers, drifted_balances: snapshot.driftedBalances };
}

/** One line for a failing report (tests, logs): the counts and the first offending rows. */
export function describeLedgerProblems(report: LedgerCheckReport): string {
  if (report.ok) return 'ledger balanced';
  const first = <T>(rows: T[]) => JSON.stringify(rows.slice(0, 5));
  return `ledger not balanced: ${report.unbalanced_transfers.length} unbalanced transfer(s) ${first(report.unbalanced_transfers)}, ${report.drifted_balances.length} drifted balance(s) ${first(report.drifted_balances)}`;
}

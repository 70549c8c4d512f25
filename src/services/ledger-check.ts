import { readLedgerSnapshot, type DriftedBalance, type UnbalancedTransfer } from '../persistence/ledger/ledger-check-store';
import type { ReservedMismatch, UnfinishedResource, UnsweptMismatch } from '../persistence/ledger/ledger-resource-checks';
import type { Orm } from '../persistence/orm';
import type { LateMoneyMismatch } from '../persistence/partner/late-answer-checks';

export type LedgerCheckReport =
  | { ok: true; transfers: number; balances: number }
  | {
      ok: false;
      transfers: number;
      balances: number;
      unbalanced_transfers: UnbalancedTransfer[];
      drifted_balances: DriftedBalance[];
      unfinished_resources: UnfinishedResource[];
      reserved_mismatches: ReservedMismatch[];
      unswept_mismatches: UnsweptMismatch[];
      late_money_mismatches: LateMoneyMismatch[];
    };

/**
 * `ledger check` (INTERFACE "Admin command line, continued"), over the whole database in one
 * snapshot: every transfer sums to zero (within one merchant, environment and currency); every
 * balance row equals the sum of its account's postings; and the resources agree with the money
 * (src/persistence/ledger/ledger-resource-checks.ts): every finished payout and refund has its reserve and
 * its post or release, every ended charge its hold voided (and a succeeded one its capture), `reserved` equals what is open against it (payouts, refunds, disputes,
 * settlements), and the postings no settlement swept add up to `available`; late money
 * (issue 29): `late_funds` and `returns_in_transit` hold what the late_answers rows say is not
 * settled or not yet returned. Not ok: the offending rows.
 */
export async function ledgerCheck(orm: Orm): Promise<LedgerCheckReport> {
  const s = await readLedgerSnapshot(orm);
  const { transfers, balances } = s;
  const problems = s.unbalancedTransfers.length + s.driftedBalances.length + s.unfinishedResources.length + s.reservedMismatches.length + s.unsweptMismatches.length + s.lateMoneyMismatches.length;
  if (problems === 0) return { ok: true, transfers, balances };
  return {
    ok: false,
    transfers,
    balances,
    unbalanced_transfers: s.unbalancedTransfers,
    drifted_balances: s.driftedBalances,
    unfinished_resources: s.unfinishedResources,
    reserved_mismatches: s.reservedMismatches,
    unswept_mismatches: s.unsweptMismatches,
    late_money_mismatches: s.lateMoneyMismatches,
  };
}

/** One line for a failing report (tests, logs): the counts and the first offending rows. */
export function describeLedgerProblems(report: LedgerCheckReport): string {
  if (report.ok) return 'ledger balanced';
  const part = (name: string, rows: unknown[]) => `${rows.length} ${name} ${JSON.stringify(rows.slice(0, 5))}`;
  return `ledger not balanced: ${[
    part('unbalanced transfer(s)', report.unbalanced_transfers),
    part('drifted balance(s)', report.drifted_balances),
    part('unfinished charge(s)/payout(s)/refund(s)', report.unfinished_resources),
    part('reserved mismatch(es)', report.reserved_mismatches),
    part('unswept mismatch(es)', report.unswept_mismatches),
    part('late money mismatch(es)', report.late_money_mismatches),
  ].join(', ')}`;
}
